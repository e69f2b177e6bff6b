# Every class of bad platform input: exit 2, one line naming the file and JSON path, no stdout.
source "$2/tests/lib/cli_assert.sh"

base="$SRC/platforms/dgx1-v100-edr.json"
# mutate NAME PYTHON_EXPR: writes $WORK/NAME.json from the DGX-1 preset with `p` edited.
mutate() {
  /usr/bin/python3 - "$base" "$WORK/$1.json" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(p, open(sys.argv[2], "w"))
PY
}

printf '{"nodes": 2, "node": {' >"$WORK/malformed.json"
expect_bad_input "malformed JSON" "malformed.json: malformed JSON: parse error" "$BIN/dasim" validate "$WORK/malformed.json"

expect_bad_input "missing file" "nope.json: cannot open file" "$BIN/dasim" validate "$WORK/nope.json"

mutate unknown_key 'p["node"]["nvlink"]["lnk"] = 1'
expect_bad_input "unknown key" "node.nvlink.lnk: unknown key" "$BIN/dasim" validate "$WORK/unknown_key.json"

mutate wrong_type 'p["node"]["gpus"] = "eight"'
expect_bad_input "wrong type" "node.gpus: expected an integer" "$BIN/dasim" validate "$WORK/wrong_type.json"

mutate negative_bw 'p["node"]["pcie"]["gpu_link"]["bandwidth"] = -5'
expect_bad_input "negative bandwidth" "node.pcie.gpu_link.bandwidth: expected a value > 0" "$BIN/dasim" validate "$WORK/negative_bw.json"

mutate zero_bw 'p["fabric"]["link"]["bandwidth"] = "0GBps"'
expect_bad_input "zero bandwidth" "fabric.link.bandwidth: expected a value > 0" "$BIN/dasim" validate "$WORK/zero_bw.json"

mutate bad_unit 'p["node"]["nvlink"]["link"]["bandwidth"] = "25GBq"'
expect_bad_input "unparsable unit" "node.nvlink.link.bandwidth: unknown bandwidth unit \"GBq\"" "$BIN/dasim" validate "$WORK/bad_unit.json"

mutate zero_gpus 'p["node"]["gpus"] = 0'
expect_bad_input "zero GPUs" "node.gpus: expected a positive integer" "$BIN/dasim" validate "$WORK/zero_gpus.json"

mutate zero_nodes 'p["nodes"] = 0'
expect_bad_input "zero nodes" "nodes: expected a positive integer" "$BIN/dasim" validate "$WORK/zero_nodes.json"

mutate nic_switch 'p["node"]["nics"][2]["pcie_switch"] = "plx9"'
expect_bad_input "NIC under a missing switch" "node.nics[2].pcie_switch: no PCIe switch named \"plx9\"" "$BIN/dasim" validate "$WORK/nic_switch.json"

mutate unserved 'p["node"]["nics"][3]["gpus"] = [6]'
expect_bad_input "GPU without a NIC" "node.nics: GPU 7 is served by no NIC" "$BIN/dasim" validate "$WORK/unserved.json"

mutate unroutable 'del p["node"]["pcie"]; [p["node"]["nics"][i].pop("pcie_switch") for i in range(4)]'
expect_bad_input "unroutable node" "node.nvlink.pairs: GPUs 0 and 5 have no NVLink" "$BIN/dasim" validate "$WORK/unroutable.json"

mutate torus 'p["fabric"] = {"topology": "torus", "link": {"preset": "ib-edr"}, "dimensions": [3, 3]}'
expect_bad_input "torus that cannot hold the nodes" "fabric.dimensions: torus 3x3 holds 9 nodes, not 16" "$BIN/dasim" validate "$WORK/torus.json"

mutate preset 'p["fabric"]["link"] = {"preset": "ib-xdr"}'
expect_bad_input "unknown link preset" "fabric.link.preset: unknown link preset \"ib-xdr\"" "$BIN/dasim" validate "$WORK/preset.json"

expect_bad_input "bad --nodes" "nodes" "$BIN/dasim" platform show "$base" --nodes 0

for f in "$SRC"/platforms/*.json; do expect_ok "validate $(basename "$f")" "$BIN/dasim" validate "$f"; done
expect_ok "show with --nodes" "$BIN/dasim" platform show "$base" --nodes 128
grep -q "Bisection:  3200.00 GB/s" "$WORK/stdout" || fail "128-node DGX-1 bisection should be 64 nodes x 4 x 12.5 GB/s = 3200 GB/s: $(grep Bisection "$WORK/stdout")"
finish
