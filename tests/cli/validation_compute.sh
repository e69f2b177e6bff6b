#!/usr/bin/env bash
# validate-compute on its own: the published single-GPU throughputs themselves are predicted once, with
# every other class, by tests/cli/validation_suite.sh (the suite reuses this runner's loading, prediction
# and verdicts). Here: the runner's own outputs on one real case (its csv, md, json; the error and
# samples/s columns), the verdicts against a stand-in dasim whose answer is set, and the command's bad
# inputs: one line naming the file and key, exit 2, nothing written.
source "$2/tests/lib/analysis_common.sh"
source "$2/tests/lib/validation_common.sh"  # expect_refusal
BIN=$1
CASES=$SOURCE_DIR/validation/compute
run() { (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis validate-compute "$@"); }

mkdir -p "$WORK/real"
$PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['calibration']=sys.argv[3]; json.dump(c, open(sys.argv[2], 'w'))" \
  "$CASES/dle-pyt-rn50-dgx1-v100-16g-fp32.json" "$WORK/real/dle-pyt-rn50-dgx1-v100-16g-fp32.json" \
  "$SOURCE_DIR/platforms/calibration/v100-sxm2-deepbench.json"
run --dasim "$BIN/dasim" --cases "$WORK/real" --out "$WORK/out" >"$WORK/table.txt" ||
  { cat "$WORK/table.txt" >&2; fail "validate-compute"; }
grep -q "^1 cases: 1 within target, 0 known disagreements, 0 to look at$" "$WORK/table.txt" || fail "summary: $(tail -1 "$WORK/table.txt")"
grep -q "^median |error| .*; worst .*; within 20%: 1 of 1$" "$WORK/table.txt" ||
  fail "no median / worst line: $(tail -2 "$WORK/table.txt" | head -1)"
[[ -s $WORK/out/compute.md && -s $WORK/out/compute.json ]] || fail "compute.md/json not written"
# One row; its error recomputed from the csv: (predicted - published) / published, and samples/s = batch / step.
$PY - "$WORK/out/compute.csv" <<'EOF' || fail "compute.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, f"{len(rows)} rows for 1 case"
for r in rows:
    error = (float(r["predicted"]) - float(r["published"])) / float(r["published"]) * 100
    assert abs(error - float(r["error_pct"])) <= 0.06, f"{r['id']}: error {r['error_pct']}, recomputed {error:.2f}"
    step = float(r["step_s"])
    assert abs(float(r["batch"]) / step - float(r["predicted"])) <= 1e-3 * float(r["predicted"]) + 1e-3, \
        f"{r['id']}: batch / step_s {float(r['batch']) / step:.4g} is not the predicted {r['predicted']}"
EOF

# The verdicts, against a stand-in dasim that answers FAKE_THROUGHPUT samples/s and logs its arguments.
one=$CASES/dle-pyt-rn50-dgxa100-80g-tf32.json
published=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['published'])" "$one")
cat >"$WORK/fake-dasim" <<'EOF'
#!/usr/bin/python3
import json, os, sys
print(" ".join(sys.argv[1:]), file=open(os.environ["FAKE_LOG"], "a"))
batch, rate = int(sys.argv[sys.argv.index("--batch") + 1]), float(os.environ["FAKE_THROUGHPUT"])
print(json.dumps({"step": {"batch": batch, "calibration": "c", "forward_s": 0, "backward_s": 0, "update_s": 0,
                           "overhead_s": 0, "step_s": batch / rate, "samples_per_s": rate}}))
EOF
chmod +x "$WORK/fake-dasim"
mkdir -p "$WORK/cases"
edit() {  # PYTHON_STATEMENT_ON_c: a copy of one case, edited, alone in $WORK/cases as case.json
  rm -f "$WORK"/cases/*
  $PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['id']='case'; c['calibration']='$SOURCE_DIR/platforms/calibration/a100-datasheet.json'; $1; json.dump(c, open(sys.argv[2], 'w'))" \
    "$one" "$WORK/cases/case.json"
}
verdict() {  # FACTOR EXPECTED_STATUS EXPECTED_SUMMARY: the stand-in answers published x FACTOR
  local status
  set +e
  FAKE_LOG=$WORK/fake.log FAKE_THROUGHPUT=$($PY -c "print($published * $1)") \
    run --dasim "$WORK/fake-dasim" --cases "$WORK/cases" >"$WORK/verdict.txt" 2>&1
  status=$?
  set -e
  [[ $status == "$2" ]] || { cat "$WORK/verdict.txt" >&2; fail "x $1: exit status $status, expected $2"; }
  [[ $(tail -1 "$WORK/verdict.txt") == "$3" ]] || fail "x $1: summary '$(tail -1 "$WORK/verdict.txt")', expected '$3'"
}
edit "pass"
verdict 1.19 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == "workload show resnet50 --batch 256 --precision tf32 --calibration $SOURCE_DIR/platforms/calibration/a100-datasheet.json --fusion none --memory-format nchw --optimizer sgd_momentum --zero-grad zero --format json" ]] ||
  fail "dasim called as: $(tail -1 "$WORK/fake.log")"
verdict 0.79 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"
echo '{"case": "the cause"}' >"$WORK/cases/known-disagreements.json"
verdict 0.79 0 "1 cases: 0 within target, 1 known disagreements, 0 to look at"
verdict 1.1 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"  # listed but now within: stale
edit "c['workload']='bert-large'; c['seq_len']=384; del c['memory_format']"  # optional: channels_last
verdict 1 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == *" --fusion none --memory-format channels_last --optimizer sgd_momentum --zero-grad zero --seq-len 384 --format json" ]] || fail "no --seq-len: $(tail -1 "$WORK/fake.log")"
edit "c['workload']='bert-large'; c['seq_len']=384; c['grad_clip']='norm'"  # passed on only when set
verdict 1 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == *" --optimizer sgd_momentum --grad-clip norm --zero-grad zero --seq-len 384 --format json" ]] || fail "no --grad-clip: $(tail -1 "$WORK/fake.log")"
edit "del c['zero_grad']"  # optional: set_to_none, which is not passed on
verdict 1 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == *" --optimizer sgd_momentum --format json" ]] || fail "--zero-grad without the key: $(tail -1 "$WORK/fake.log")"
edit "c['workload']='bert-large'; c['seq_len']=384; del c['zero_grad']; c['activation_checkpointing']='blocks'"
verdict 1 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == *" --optimizer sgd_momentum --activation-checkpointing blocks --seq-len 384 --format json" ]] ||
  fail "no --activation-checkpointing: $(tail -1 "$WORK/fake.log")"
# A workload file (relative to the case), passed to dasim as its path, with no --seq-len.
edit "c['workload']='$SOURCE_DIR/validation/scaling/workloads/bert-large-pretrain-s512-bin64-tf32.json'; c['seq_len']=None"
verdict 1 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") == "workload show $SOURCE_DIR/validation/scaling/workloads/bert-large-pretrain-s512-bin64-tf32.json --batch 256 "*" --format json" &&
   $(tail -1 "$WORK/fake.log") != *--seq-len* ]] || fail "workload file: $(tail -1 "$WORK/fake.log")"

# Bad inputs.
bad() { expect_refusal "$WORK/cases/case.json: $1" --dasim "$WORK/fake-dasim" --cases "$WORK/cases"; }
edit "c['precision']='fp8'"
bad "precision: expected one of amp, amp_bf16, bf16, fp16, fp32, tf32"
edit "c['fusion']='xla'"
bad "fusion: expected one of bn_relu, none"
edit "c['memory_format']='nhwc'"
bad "memory_format: expected one of channels_last, nchw"
edit "c['optimizer']='adagrad'"
bad "optimizer: expected one of adam, bert_adam, lamb, sgd_momentum"
edit "c['grad_clip']='always'"
bad "grad_clip: expected one of none, norm, norm_and_scale"
edit "c['zero_grad']='none'"
bad "zero_grad: expected one of fill_only, set_to_none, zero"
edit "c['activation_checkpointing']='all'"
bad "activation_checkpointing: expected one of blocks, none"
edit "c['grad_clip']=['norm']"  # not a string: the same one line, no traceback
bad "grad_clip: expected one of none, norm, norm_and_scale"
edit "c['workload']='resnet18'"
bad "workload: expected one of bert-large, gpt2-xl, inception-v3, resnet101, resnet152, resnet50, vgg16"
edit "c['workload']='absent.json'; c['seq_len']=None"
bad "workload: no such file $WORK/cases/absent.json"
edit "c['workload']='$SOURCE_DIR/validation/scaling/workloads/bert-large-pretrain-s512-bin64-tf32.json'; c['seq_len']=512"
bad "seq_len: expected null (a workload file fixes its own sequence lengths)"
edit "c['workload']='$SOURCE_DIR/tests/data/workload/inception_block.json'; c['seq_len']=None"
bad "workload: expected a built-in name or a workload file of sequences ($SOURCE_DIR/tests/data/workload/inception_block.json)"
edit "c['surprise']=1"
bad "unknown keys surprise"
edit "del c['as_printed']"
bad "missing keys as_printed"
edit "c['batch_per_gpu']=0"
bad "batch_per_gpu: expected a positive integer"
edit "c['seq_len']=128"
bad "seq_len: expected null (resnet50 takes no sequence length)"
edit "c['published']='938'"
bad "published: expected a positive number"
edit "c['id']='another'"
bad "id: expected the file name without .json (case)"
edit "c['calibration']='nowhere.json'"
bad "calibration: no such file $WORK/cases/nowhere.json"
edit "pass"
echo '{"no-such-case": "cause"}' >"$WORK/cases/known-disagreements.json"
expect_refusal "$WORK/cases/known-disagreements.json: no-such-case: no case has this id" \
  --dasim "$WORK/fake-dasim" --cases "$WORK/cases"
echo "ok: one real case, verdicts and bad inputs" >&2
