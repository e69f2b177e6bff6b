#!/usr/bin/env bash
# validate-scaling on its own: the published scaling efficiencies themselves are simulated once, with
# every other class, by tests/cli/validation_suite.sh (the suite reuses this runner's loading, prediction
# and verdicts). Here: the runner's own outputs on one real case (its csv, md, json; the error and the
# samples/s ratio), the BERT-base workload files against dasim's own BERT builder, the verdicts against a
# stand-in dasim whose answer is set, and the command's bad inputs: one line naming the file and key,
# exit 2, nothing written.
source "$2/tests/lib/analysis_common.sh"
source "$2/tests/lib/validation_common.sh"  # expect_refusal
BIN=$1
CASES=$SOURCE_DIR/validation/scaling
run() { (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis validate-scaling "$@"); }

mkdir -p "$WORK/real"
$PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['scenario']['platforms'][0]['file']=sys.argv[3]; json.dump(c, open(sys.argv[2], 'w'))" \
  "$CASES/dlperf-ngc-pyt-rn50-fp32-2x8.json" "$WORK/real/dlperf-ngc-pyt-rn50-fp32-2x8.json" \
  "$SOURCE_DIR/validation/platforms/dlperf-dgx1v-1xedr.json"
run --dasim "$BIN/dasim" --cases "$WORK/real" --out "$WORK/out" >"$WORK/table.txt" ||
  { cat "$WORK/table.txt" >&2; fail "validate-scaling"; }
grep -q "^1 cases: 1 within target, 0 known disagreements, 0 to look at$" "$WORK/table.txt" || fail "summary: $(tail -1 "$WORK/table.txt")"
grep -q "^median |error| .* points (target 3: .*); worst .*; within 10 points: 1 of 1$" "$WORK/table.txt" ||
  fail "no median / worst line"
grep -q "^  infiniband: " "$WORK/table.txt" || fail "no per-fabric summary"
[[ -s $WORK/out/scaling.md && -s $WORK/out/scaling.json ]] || fail "scaling.md/json not written"
# One row; the error is predicted - published, in points; the prediction is dasim's own samples/s over the
# baseline's, per GPU.
$PY - "$WORK/out/scaling.csv" <<'EOF' || fail "scaling.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, f"{len(rows)} rows for 1 case"
for r in rows:
    error = float(r["predicted"]) - float(r["published"])
    assert abs(error - float(r["error_points"])) <= 0.011, f"{r['id']}: error {r['error_points']}, recomputed {error:.2f}"
    ratio = float(r["samples_per_s"]) / int(r["gpus"]) / (float(r["baseline_samples_per_s"]) / int(r["baseline_gpus"]))
    assert abs(100 * ratio - float(r["predicted"])) <= 0.011, f"{r['id']}: samples/s ratio {100 * ratio:.2f}"
EOF

# The BERT-base files: make_bert.py's builder gives dasim's bert-large exactly, and the files are its output.
$PY "$CASES/workloads/make_bert.py" --check "$BIN/dasim" >/dev/null || fail "make_bert.py --check"
mkdir "$WORK/bert" && $PY "$CASES/workloads/make_bert.py" --out "$WORK/bert"
for f in "$WORK"/bert/*.json; do cmp -s "$f" "$CASES/workloads/$(basename "$f")" || fail "$(basename "$f") is stale"; done
# The length counts are the paper's: over 16 M sequences, of which padding to 512 would be in
# excess of 50% (Krell et al. 2021, abstract); the binned files' shares are the counts' 64-token bins.
$PY - "$CASES/workloads" <<'EOF' || fail "wikipedia-s512-lengths.json or the bin64 shares"
import json, sys
counts = json.load(open(sys.argv[1] + "/wikipedia-s512-lengths.json"))["counts"]
total, tokens = sum(counts), sum((i + 1) * c for i, c in enumerate(counts))
assert len(counts) == 512 and total > 16_000_000, total
assert 0.50 < 1 - tokens / (512 * total) < 0.51, tokens
for precision in ("amp", "tf32"):
    shapes = json.load(open(f"{sys.argv[1]}/bert-large-pretrain-s512-bin64-{precision}.json"))["shapes"]
    assert [s["sequence_length"] for s in shapes] == list(range(64, 513, 64)), shapes
    for b, s in enumerate(shapes):
        assert abs(s["share"] - sum(counts[64 * b:64 * b + 64]) / total) < 1e-12, (b, s)
EOF

# The verdicts, against a stand-in dasim that writes one results.csv row of efficiency FAKE_EFFICIENCY
# and logs its arguments and the scenario it was given.
one=$CASES/dlperf-ngc-pyt-rn50-fp32-4x8.json
published=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['published'])" "$one")
cat >"$WORK/fake-dasim" <<'EOF'
#!/usr/bin/python3
import os, shutil, sys
print(" ".join(sys.argv[1:]), file=open(os.environ["FAKE_LOG"], "a"))
shutil.copy(sys.argv[2], os.environ["FAKE_LOG"] + ".scenario")
out = sys.argv[sys.argv.index("--out") + 1]
os.makedirs(out)
e = float(os.environ["FAKE_EFFICIENCY"])
with open(os.path.join(out, "results.csv"), "w") as f:
    f.write("gpus,baseline_gpus,efficiency,iter_time_s,compute_s,exposed_comm_s,samples_per_s,baseline_samples_per_s,"
            "algorithms_used\n")
    f.write(f"32,1,{e},0.4,0.35,0.05,{32 * 300 * e},300,ring/simple\n")
EOF
chmod +x "$WORK/fake-dasim"
mkdir -p "$WORK/cases"
edit() {  # PYTHON_STATEMENT_ON_c: a copy of one case (platform path made absolute), alone in $WORK/cases as case.json
  rm -f "$WORK"/cases/*
  $PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['id']='case'; c['scenario']['platforms'][0]['file']='$SOURCE_DIR/validation/platforms/dlperf-dgx1v-1xedr.json'; $1; json.dump(c, open(sys.argv[2], 'w'))" \
    "$one" "$WORK/cases/case.json"
}
verdict() {  # POINTS EXPECTED_STATUS EXPECTED_SUMMARY: the stand-in answers published + POINTS
  local status
  set +e
  FAKE_LOG=$WORK/fake.log FAKE_EFFICIENCY=$($PY -c "print(($published + $1) / 100)") \
    run --dasim "$WORK/fake-dasim" --cases "$WORK/cases" >"$WORK/verdict.txt" 2>&1
  status=$?
  set -e
  [[ $status == "$2" ]] || { cat "$WORK/verdict.txt" >&2; fail "+$1 points: exit status $status, expected $2"; }
  [[ $(tail -1 "$WORK/verdict.txt") == "$3" ]] || fail "+$1 points: summary '$(tail -1 "$WORK/verdict.txt")', expected '$3'"
}
edit "pass"
verdict 9.9 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
[[ $(tail -1 "$WORK/fake.log") =~ ^run\ .*/case\.json\ --out\ .*/case\ --quiet$ ]] || fail "dasim called as: $(tail -1 "$WORK/fake.log")"
$PY - "$WORK/fake.log.scenario" "$SOURCE_DIR" <<'EOF' || fail "the scenario dasim was given"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["name"] == "case", s["name"]
assert s["platforms"][0]["file"] == sys.argv[2] + "/validation/platforms/dlperf-dgx1v-1xedr.json", s["platforms"]
assert s["efficiency_baseline"] == 1 and s["workloads"] == ["resnet50"], s
EOF
verdict -10.1 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"
echo '{"case": "the cause"}' >"$WORK/cases/known-disagreements.json"
verdict -10.1 0 "1 cases: 0 within target, 1 known disagreements, 0 to look at"
verdict 2 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"  # listed but now within: stale
grep -q "^outside 10 points:" "$WORK/verdict.txt" && fail "a case within 2 points listed as outside"

# Bad inputs.
bad() { expect_refusal "$WORK/cases/case.json: $1" --dasim "$WORK/fake-dasim" --cases "$WORK/cases"; }
edit "c['fabric']='wifi'"
bad "fabric: expected one of infiniband, ethernet, one-node"
edit "c['model_class']='memory-heavy'"
bad "model_class: expected one of compute-heavy, communication-heavy"
edit "c['quantity']='speedup'"
bad "quantity: expected efficiency_pct"
edit "c['published']=0"
bad "published: expected an efficiency in percent, above 0 and at most 150"
edit "c['surprise']=1"
bad "unknown keys surprise"
edit "del c['where']"
bad "missing keys where"
edit "c['id']='another'"
bad "id: expected the file name without .json (case)"
edit "c['scenario']['name']='x'"
bad "scenario.name: not allowed: the runner names it after the case id"
edit "del c['scenario']['efficiency_baseline']"
bad 'scenario.efficiency_baseline: missing: state the baseline the source uses (1, a GPU count of whole nodes, or "node")'
edit "c['scenario']['platforms'].append(c['scenario']['platforms'][0])"
bad "scenario.platforms: expected exactly one platform"
edit "c['scenario']['platforms'][0]['nodes']=[1]"
bad "scenario.platforms[0].nodes: expected one node count above 1 (a multi-node case; one server is fabric one-node)"
edit "c['scenario']['platforms'][0]['nodes']=[2, 4]"
bad "scenario.platforms[0].nodes: expected one node count above 1 (a multi-node case; one server is fabric one-node)"
edit "c['fabric']='one-node'"
bad "scenario.platforms[0].nodes: expected [1] (fabric one-node: the GPUs of one server)"
edit "c['fabric']='one-node'; c['scenario']['platforms'][0]['nodes']=[True]"
bad "scenario.platforms[0].nodes: expected [1] (fabric one-node: the GPUs of one server)"
edit "c['scenario']['workloads']=['resnet50', 'vgg16']"
bad "scenario.workloads: expected exactly one workload"
edit "c['scenario']['platforms'][0]['file']='nowhere.json'"
bad "scenario.platforms[0].file: no such file $WORK/cases/nowhere.json"
edit "c['scenario']['workloads']=[{'file': 'w.json'}]"
bad "scenario.workloads[0].file: no such file $WORK/cases/w.json"
# A scenario dasim itself refuses: its one-line message, exit 2.
edit "c['scenario']['batch_per_gpu']=0"
set +e
message=$(run --dasim "$BIN/dasim" --cases "$WORK/cases" --out "$WORK/bad" 2>&1 >/dev/null)
status=$?
set -e
[[ $status == 2 && $message == "$WORK/cases/case.json: dasim run failed (status 2): "*batch_per_gpu* ]] ||
  fail "dasim's refusal: status $status, '$message'"
[[ ! -e $WORK/bad ]] || fail "wrote output despite dasim's refusal"
edit "pass"
echo '{"no-such-case": "cause"}' >"$WORK/cases/known-disagreements.json"
expect_refusal "$WORK/cases/known-disagreements.json: no-such-case: no case has this id" \
  --dasim "$WORK/fake-dasim" --cases "$WORK/cases"
echo "ok: one real case, the BERT-base files, verdicts and bad inputs" >&2
