#!/usr/bin/env bash
# The whole validation suite, once (the only test that predicts every published case of validation/:
# collectives, single-GPU throughput, multi-node scaling, local-SGD family): every case is within its
# class's band or listed with its cause in its class's known-disagreements.json, else exit 1. Then what
# the suite writes: suite.csv's columns and one row per case, each error recomputed from published and
# predicted, the band and verdict of each class; suite.md and the --docs block it rewrites; suite.png, and
# the same bytes from the same input. Then its failures (a regression or a stale entry: exit 1; a bad case
# file of any class, refused before anything runs, or a --docs file without the block: exit 2, one line),
# the local-SGD runner's verdicts and bad inputs, and the INTELLECT-1 workload file against its generator.
source "$2/tests/lib/analysis_common.sh"
BIN=$1
V=$SOURCE_DIR/validation
suite() { (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis validate-suite "$@"); }
CLASSES="collectives compute scaling local-sgd-family"

cp "$SOURCE_DIR/docs/validation.md" "$WORK/validation.md"
suite "$V" --dasim "$BIN/dasim" --out "$WORK/out" --docs "$WORK/validation.md" >"$WORK/table.txt" ||
  { cat "$WORK/table.txt" >&2; fail "validate-suite"; }
cases=$(for c in $CLASSES; do find "$V/$c" -maxdepth 1 -name '*.json' ! -name known-disagreements.json; done | wc -l)
grep -q "^$cases cases: [0-9]* within target, [0-9]* known disagreements, 0 to look at$" "$WORK/table.txt" ||
  fail "summary: $(tail -1 "$WORK/table.txt")"
for name in collectives single_gpu_step scaling_efficiency local_sgd_family; do
  grep -q "^$name: [0-9]* cases, median |error| .*, [0-9]* above / [0-9]* below (median .*), worst .*, [0-9]* within target, [0-9]* known disagreements, 0 to look at$" \
    "$WORK/table.txt" || fail "no summary line for $name"
done

# suite.csv: the columns, one row per case of each class; the error recomputed (relative in %, or in
# points); within_band = |error| <= band; the verdict agrees with it; every known disagreement has a cause;
# each class's band is the one docs/validation.md states.
$PY - "$WORK/out/suite.csv" "$WORK/out/suite.json" "$V" <<'EOF' || fail "suite.csv"
import csv, json, os, sys
columns = ["class", "group", "case", "quantity", "unit", "published", "predicted", "error", "error_unit", "band",
           "within_band", "verdict", "cause", "source"]
with open(sys.argv[1]) as f:
    reader = csv.DictReader(f)
    assert reader.fieldnames == columns, reader.fieldnames
    rows = list(reader)
folders = {"collectives": "collectives", "single_gpu_step": "compute", "scaling_efficiency": "scaling",
           "local_sgd_family": "local-sgd-family"}
bands = {"collectives": {"5", "10"}, "single_gpu_step": {"20"}, "scaling_efficiency": {"10"},
         "local_sgd_family": {"10"}}
units = {"collectives": "%", "single_gpu_step": "%", "scaling_efficiency": "points", "local_sgd_family": "points"}
for name, folder in folders.items():
    files = sorted(n[:-5] for n in os.listdir(os.path.join(sys.argv[3], folder))
                   if n.endswith(".json") and n != "known-disagreements.json")
    ids = sorted(r["case"] for r in rows if r["class"] == name)
    if name != "collectives":  # collectives' ids are their own, the others' are the file names
        assert ids == files, f"{name}: rows {ids} for files {files}"
    assert len(ids) == len(files), f"{name}: {len(ids)} rows for {len(files)} files"
for r in rows:
    published, predicted, error, band = (float(r[k]) for k in ("published", "predicted", "error", "band"))
    assert r["error_unit"] == units[r["class"]], r
    recomputed = (predicted - published) / published * 100 if r["error_unit"] == "%" else predicted - published
    assert abs(recomputed - error) <= (0.06 if r["error_unit"] == "%" else 0.011), f"{r['case']}: {error} vs {recomputed}"
    assert r["band"] in bands[r["class"]], f"{r['case']}: band {r['band']}"
    assert r["verdict"] == ("within target" if r["within_band"] == "True" else "known disagreement"), r
    if abs(abs(error) - band) > 0.051:  # the error is rounded: at the band's edge the runner decides
        assert r["within_band"] == str(abs(error) <= band), f"{r['case']}: within_band {r['within_band']}"
    assert (r["verdict"] == "known disagreement") == bool(r["cause"].strip()), f"{r['case']}: cause"
summary = json.load(open(sys.argv[2]))["summary"]
assert [s["class"] for s in summary if not s["group"]] == list(folders), summary
for s in summary:
    members = [r for r in rows if r["class"] == s["class"] and (not s["group"] or r["group"] == s["group"])]
    assert s["cases"] == len(members) and s["within_target"] + s["known_disagreements"] == len(members), s
    # which way they lean, recounted from the rows: above (optimistic), below, and the signed median
    signed = sorted(float(r["error"]) for r in members)
    assert (s["above"], s["below"]) == (sum(e > 0 for e in signed), sum(e < 0 for e in signed)), s
    middle = (signed[(len(signed) - 1) // 2] + signed[len(signed) // 2]) / 2
    assert abs(s["median_signed_error"] - middle) <= 0.011, (s, middle)
EOF

# suite.md is the --docs block; outside it the file is unchanged; the figure went beside it too.
check_png "$WORK/out/suite.png"
cmp -s "$WORK/out/suite.png" "$WORK/figures/validation-suite.png" || fail "--docs figure differs from suite.png"
$PY - "$SOURCE_DIR/docs/validation.md" "$WORK/validation.md" "$WORK/out/suite.md" <<'EOF' || fail "--docs block"
import sys
def parts(text):
    lines = text.splitlines(keepends=True)
    b = next(i for i, l in enumerate(lines) if l.startswith("<!-- validate-suite:begin"))
    e = next(i for i, l in enumerate(lines) if l.rstrip("\n") == "<!-- validate-suite:end -->")
    return "".join(lines[:b + 1]), "".join(lines[b + 1:e]), "".join(lines[e:])
old, new, md = (open(p).read() for p in sys.argv[1:])
(ob, _, oa), (nb, block, na) = parts(old), parts(new)
assert (ob, oa) == (nb, na), "text outside the block changed"
assert block.rstrip().endswith(md.rstrip()), "the block is not suite.md"
assert "validate-suite" in block.split("\n\n")[1], "no regenerate command in the block"
EOF

# The verdicts and the same bytes from the same input, on a copy of validation/ reduced to two
# collectives cases (with the tree their paths need), against a stand-in dasim that answers 480 GB/s:
# one case published at twice its figure and not listed (a regression), the other listed in
# known-disagreements.json though within (stale). Both runs exit 1, write everything, byte for byte alike.
subset() {  # DIR CASE...: validation/ copied to DIR with only the named cases and no disagreement lists
  cp -r "$V" "$1"
  find "$1" -mindepth 2 -maxdepth 2 -name '*.json' ! -path '*/platforms/*' | while read -r f; do
    keep=0
    for c in "${@:2}"; do [[ $(basename "$f" .json) == "$c" ]] && keep=1; done
    ((keep)) || rm "$f"
  done
  for d in "$1"/*/; do  # a class folder left without cases goes (the suite runs the class folders it finds)
    [[ $(basename "$d") == platforms ]] || compgen -G "$d*.json" >/dev/null || rm -r "$d"
  done
}
ln -s "$SOURCE_DIR/platforms" "$WORK/platforms"  # the cases' ../../platforms/calibration paths
subset "$WORK/regression" stas00-h200-allreduce-1x8-16g-ring stas00-h200-allreduce-1x8-16g-nvls
f=$WORK/regression/collectives/stas00-h200-allreduce-1x8-16g-ring.json
$PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['published']*=2; json.dump(c, open(sys.argv[1], 'w'))" "$f"
id=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$WORK/regression/collectives/stas00-h200-allreduce-1x8-16g-nvls.json")
echo "{\"$id\": \"a cause that is no longer true\"}" >"$WORK/regression/collectives/known-disagreements.json"
cat >"$WORK/fake-collective" <<'EOF'
#!/bin/sh
printf 'algorithm,busbw_GBps,time_us\nring/simple,480,1000\n'
EOF
chmod +x "$WORK/fake-collective"
for i in 1 2; do
  set +e
  suite "$WORK/regression" --dasim "$WORK/fake-collective" --out "$WORK/regression-$i" >"$WORK/status.txt" 2>&1
  status=$?
  set -e
  [[ $status == 1 ]] || { cat "$WORK/status.txt" >&2; fail "a regression and a stale entry: exit status $status, expected 1"; }
done
grep -q "^2 cases: 0 within target, 0 known disagreements, 2 to look at$" "$WORK/status.txt" ||
  fail "regression summary: $(tail -1 "$WORK/status.txt")"
grep -q "\"REGRESSION: outside target, cause not listed\"" "$WORK/regression-1/suite.csv" || fail "no REGRESSION row"
grep -q ",stale: listed as a disagreement but within target," "$WORK/regression-1/suite.csv" || fail "no stale row"
check_png "$WORK/regression-1/suite.png"
for f in suite.csv suite.md suite.json suite.png; do
  cmp -s "$WORK/regression-1/$f" "$WORK/regression-2/$f" || fail "$f differs between two runs of the same input"
done

# Bad inputs: one line FILE: json.path: what was expected, exit 2, no dasim run and nothing written.
cat >"$WORK/fake-dasim" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
exit 3
EOF
chmod +x "$WORK/fake-dasim"
refused() {  # EXPECTED_MESSAGE ARGS...
  local expected=$1 status message
  shift
  set +e
  message=$(FAKE_LOG=$WORK/fake.log suite "$@" --out "$WORK/bad" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 ]] || fail "$*: exit status $status, expected 2 ($message)"
  [[ $message == "$expected" ]] || fail "message '$message', expected '$expected'"
  [[ ! -e $WORK/bad && ! -e $WORK/fake.log ]] || fail "$*: ran dasim or wrote output despite bad input"
}
rm -rf "$WORK/badcase" && cp -r "$V" "$WORK/badcase"
f=$WORK/badcase/local-sgd-family/intellect1-usa-4gbps.json
$PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['quantity']='mfu_pct'; json.dump(c, open(sys.argv[1], 'w'))" "$f"
refused "$f: quantity: expected compute_utilization_pct" "$WORK/badcase" --dasim "$WORK/fake-dasim"
rm -rf "$WORK/badcase" && cp -r "$V" "$WORK/badcase"
f=$WORK/badcase/scaling/horovod2017-vgg16-tcp-25gbe-4x4.json
$PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['surprise']=1; json.dump(c, open(sys.argv[1], 'w'))" "$f"
refused "$f: unknown keys surprise" "$WORK/badcase" --dasim "$WORK/fake-dasim"
echo "# no block" >"$WORK/plain.md"
refused "$WORK/plain.md: expected one line starting '<!-- validate-suite:begin' and, after it, one line '<!-- validate-suite:end -->'" \
  "$V" --dasim "$WORK/fake-dasim" --docs "$WORK/plain.md"
mkdir -p "$WORK/empty"
refused "$WORK/empty: no class folder (collectives, compute, scaling, local-sgd-family)" "$WORK/empty" --dasim "$WORK/fake-dasim"
refused "--case: no case id matches 'horovod2071-*'" "$V" --dasim "$WORK/fake-dasim" --case 'horovod2017-*' \
  --case 'horovod2071-*'
refused "--case: the --docs block holds the whole suite; rewrite it without --case" "$V" --dasim "$WORK/fake-dasim" \
  --case 'horovod2017-*' --docs "$WORK/validation.md"

# --case: only the matching cases run, in two classes here, each predicted as in the whole run above;
# the summary says it is a selection, and a selection's median is not held to its class's target.
suite "$V" --dasim "$BIN/dasim" --out "$WORK/some" --case 'horovod2017-vgg16-*' --case intellect1-usa-4gbps \
  >"$WORK/some.txt" || { cat "$WORK/some.txt" >&2; fail "validate-suite --case"; }
[[ $(tail -1 "$WORK/some.txt") == "4 cases (selected by --case from $cases): 4 within target, 0 known disagreements, 0 to look at" ]] ||
  fail "--case summary: $(tail -1 "$WORK/some.txt")"
$PY - "$WORK/some/suite.csv" "$WORK/out/suite.csv" "$WORK/some/suite.json" <<'EOF' || fail "--case rows"
import csv, json, sys
some, whole = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
ids = [r["case"] for r in some]
assert ids == ["horovod2017-vgg16-rdma-25gbe-4x4", "horovod2017-vgg16-tcp-25gbe-4x4",
               "horovod2017-vgg16-tcp-40gbe-16x4", "intellect1-usa-4gbps"], ids
by_id = {r["case"]: r for r in whole}
for r in some:
    assert r == by_id[r["case"]], (r, by_id[r["case"]])
summary = json.load(open(sys.argv[3]))["summary"]
assert [s["cases"] for s in summary if not s["group"]] == [3, 1], summary
assert all(s["median_target"] is None and s["median_within_target"] is None for s in summary), summary
EOF
# A selection that holds every case of its class keeps the class's median target: a folder whose
# scaling class is the three VGG-16 cases, selected, gives the statistics of the same folder unselected.
rm -rf "$WORK/vgg" && cp -r "$V" "$WORK/vgg"
find "$WORK/vgg/scaling" -maxdepth 1 -name '*.json' ! -name 'horovod2017-vgg16-*' -delete
echo '{}' >"$WORK/vgg/scaling/known-disagreements.json"
suite "$WORK/vgg" --dasim "$BIN/dasim" --out "$WORK/vgg-all" >/dev/null || fail "validate-suite on the VGG-16 folder"
suite "$WORK/vgg" --dasim "$BIN/dasim" --out "$WORK/vgg-some" --case 'horovod2017-vgg16-*' >/dev/null ||
  fail "validate-suite --case on the VGG-16 folder"
$PY - "$WORK/vgg-all/suite.json" "$WORK/vgg-some/suite.json" <<'EOF' || fail "--case on a whole class"
import json, sys
every, some = (json.load(open(p))["summary"] for p in sys.argv[1:])
scaling = [s for s in every if s["class"] == "scaling_efficiency"]
assert scaling[0]["median_target"] == 3.0 and scaling[0]["cases"] == 3, scaling
assert some == scaling, (some, scaling)
EOF

# The local-SGD runner alone: its verdicts against a stand-in dasim whose compute share is set
# (compute_s / iter_time_s = FAKE_UTILIZATION), and its own bad inputs.
local_sgd() { (cd "$SOURCE_DIR/analysis" && $PY -m dasim_analysis validate-local-sgd "$@"); }
cat >"$WORK/fake-run" <<'EOF'
#!/usr/bin/python3
import os, sys
out = sys.argv[sys.argv.index("--out") + 1]
os.makedirs(out)
u = float(os.environ["FAKE_UTILIZATION"])
with open(os.path.join(out, "results.csv"), "w") as f:
    f.write("gpus,baseline_gpus,efficiency,iter_time_s,compute_s,exposed_comm_s,samples_per_s,baseline_samples_per_s,"
            "algorithms_used\n")
    f.write(f"112,1,{u},20,{20 * u},{20 - 20 * u},100,1,hierarchical/simple\n")
EOF
chmod +x "$WORK/fake-run"
mkdir -p "$WORK/ls"
one=$V/local-sgd-family/intellect1-usa-4gbps.json
edit() {  # PYTHON_STATEMENT_ON_c: a copy of one case (paths made absolute), alone in $WORK/ls as case.json
  rm -f "$WORK"/ls/*
  $PY -c "import json,sys; c=json.load(open(sys.argv[1])); c['id']='case'; s=c['scenario']; s['platforms'][0]['file']='$V/platforms/intellect1-14-nodes-usa.json'; s['workloads'][0]['file']='$V/local-sgd-family/workloads/intellect1-llama3-10b-s8192.json'; $1; json.dump(c, open(sys.argv[2], 'w'))" \
    "$one" "$WORK/ls/case.json"
}
verdict() {  # UTILIZATION_PCT EXPECTED_STATUS EXPECTED_SUMMARY (the case's published figure is 95.7)
  local status
  set +e
  FAKE_UTILIZATION=$($PY -c "print($1 / 100)") local_sgd --dasim "$WORK/fake-run" --cases "$WORK/ls" >"$WORK/v.txt" 2>&1
  status=$?
  set -e
  [[ $status == "$2" ]] || { cat "$WORK/v.txt" >&2; fail "$1%: exit status $status, expected $2"; }
  [[ $(tail -1 "$WORK/v.txt") == "$3" ]] || fail "$1%: summary '$(tail -1 "$WORK/v.txt")', expected '$3'"
}
edit "pass"
verdict 86 0 "1 cases: 1 within target, 0 known disagreements, 0 to look at"
verdict 85.6 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"
echo '{"case": "the cause"}' >"$WORK/ls/known-disagreements.json"
verdict 85.6 0 "1 cases: 0 within target, 1 known disagreements, 0 to look at"
verdict 95.7 1 "1 cases: 0 within target, 0 known disagreements, 1 to look at"  # listed but now within: stale
bad() {  # MESSAGE: validate-local-sgd on $WORK/ls refuses with "case.json: MESSAGE"
  local status message
  set +e
  message=$(local_sgd --dasim "$WORK/fake-run" --cases "$WORK/ls" --out "$WORK/bad" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 2 && $message == "$WORK/ls/case.json: $1" ]] || fail "status $status, '$message', expected '$1'"
  [[ ! -e $WORK/bad ]] || fail "wrote output despite bad input"
}
edit "c['scenario']['schedules'][0]['type']='sgd'"
bad "scenario.schedules[0].type: expected one of local_sgd, dasgd, diloco, streaming_diloco"
edit "c['scenario']['sweep']['values']=['500Mbps', '4Gbps']"
bad "scenario.sweep.values: expected exactly one value (one configuration per case)"
edit "c['published']=101"
bad "published: expected a compute utilization in percent, above 0 and at most 100"
edit "c['scenario']['workloads'][0]['file']='nowhere.json'"
bad "scenario.workloads[0].file: no such file $WORK/ls/nowhere.json"

# The INTELLECT-1 workload file is its generator's output.
mkdir "$WORK/llama" && $PY "$V/local-sgd-family/workloads/make_llama.py" --out "$WORK/llama"
cmp -s "$WORK/llama/intellect1-llama3-10b-s8192.json" "$V/local-sgd-family/workloads/intellect1-llama3-10b-s8192.json" ||
  fail "intellect1-llama3-10b-s8192.json is stale: rerun make_llama.py --out"
echo "ok: $cases cases in one suite run, its outputs, failures and bad inputs" >&2
