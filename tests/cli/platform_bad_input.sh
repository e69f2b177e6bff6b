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
mkdir -p "$WORK/adir.json"
expect_bad_input "a directory" "adir.json: is a directory, expected a JSON file" "$BIN/dasim" validate "$WORK/adir.json"
expect_bad_input "a directory as the scenario" "adir.json: is a directory, expected a JSON file" \
  "$BIN/dasim" run "$WORK/adir.json" --out "$WORK/out-dir"

mutate unknown_key 'p["node"]["nvlink"]["lnk"] = 1'
expect_bad_input "unknown key" "node.nvlink.lnk: unknown key" "$BIN/dasim" validate "$WORK/unknown_key.json"

mutate cpu_vendor 'p["node"]["cpu_vendor"] = "via"'
expect_bad_input "unknown CPU vendor" "node.cpu_vendor: expected one of intel, amd, arm" "$BIN/dasim" validate "$WORK/cpu_vendor.json"
mutate generation 'p["node"]["gpu"]["generation"] = "kepler"'
expect_bad_input "unknown GPU generation" "node.gpu.generation: expected one of unknown, volta, ampere, hopper, blackwell" \
  "$BIN/dasim" validate "$WORK/generation.json"

mutate wrong_type 'p["node"]["gpus"] = "eight"'
expect_bad_input "wrong type" "node.gpus: expected an integer" "$BIN/dasim" validate "$WORK/wrong_type.json"

mutate negative_bw 'p["node"]["pcie"]["gpu_link"]["bandwidth"] = -5'
expect_bad_input "negative bandwidth" "node.pcie.gpu_link.bandwidth: expected a value > 0" "$BIN/dasim" validate "$WORK/negative_bw.json"

# Values beyond what the simulator represents validated, then deadlocked or crashed SimGrid.
mutate tiny_bw 'p["node"]["nics"][0]["link"] = {"bandwidth": 1e-308, "latency": "1us"}'
mutate huge_latency 'p["fabric"]["link"]["latency"] = "1e308s"'
mutate tiny_speed 'p["node"]["gpu"]["speed"] = 1e-308'
for tool in validate "platform show"; do
  expect_bad_input "$tool: NIC bandwidth 1e-308" "expected a bandwidth of 1 kB/s to 1 PB/s (1e3..1e15 B/s), got 1e-308" \
    "$BIN/dasim" $tool "$WORK/tiny_bw.json"
  expect_bad_input "$tool: latency 1e308 s" "fabric.link.latency: expected a time of 0 to 1 day (86400 s), got \"1e308s\"" \
    "$BIN/dasim" $tool "$WORK/huge_latency.json"
  expect_bad_input "$tool: GPU speed 1e-308" "node.gpu.speed: expected a rate of 1 MFLOP/s to 1 EFLOP/s" \
    "$BIN/dasim" $tool "$WORK/tiny_speed.json"
done

expect_bad_input "platform show --nodes 1048576" "--nodes 1048576: 1048576 nodes x 8 GPUs = 8388608 GPUs would need" \
  "$BIN/dasim" platform show "$base" --nodes 1048576

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

# Dragonfly keys (the DGX-1 preset: 16 nodes, 4 NICs). dragonfly MUTATION: a dragonfly fabric
# of 4 routers x 2 nodes per router (groups from the 16 nodes: 2), then MUTATION.
dragonfly() {
  mutate "$1" 'p["fabric"] = {"topology": "dragonfly", "link": {"preset": "ib-edr"}, "routers_per_chassis": 4, "nodes_per_router": 2}; '"$2"
}
dragonfly df_small 'p["fabric"]["groups"] = 1'
expect_bad_input "dragonfly too small" "fabric.groups: dragonfly 1 groups x 1 chassis x 4 routers x 2 nodes holds 8 nodes, not 16" "$BIN/dasim" validate "$WORK/df_small.json"
dragonfly df_groups 'p["fabric"].update({"groups": 8, "nodes_per_router": 1})'
expect_bad_input "more dragonfly groups than routers" "fabric.groups: 8 groups need at least 8 routers per chassis" "$BIN/dasim" validate "$WORK/df_groups.json"
dragonfly df_derived 'p["fabric"]["routers_per_chassis"] = 2'
expect_bad_input "derived groups beyond the routers" "fabric.routers_per_chassis: 4 groups need at least 4 routers per chassis" "$BIN/dasim" validate "$WORK/df_derived.json"
dragonfly df_no_routers 'del p["fabric"]["routers_per_chassis"]'
expect_bad_input "dragonfly without routers" "fabric.routers_per_chassis: required key is missing" "$BIN/dasim" validate "$WORK/df_no_routers.json"
dragonfly df_no_nodes 'del p["fabric"]["nodes_per_router"]'
expect_bad_input "dragonfly without nodes per router" "fabric.nodes_per_router: required key is missing" "$BIN/dasim" validate "$WORK/df_no_nodes.json"
for key in groups chassis_per_group routers_per_chassis nodes_per_router links_between_groups links_between_chassis links_between_routers; do
  dragonfly "df_zero_$key" "p[\"fabric\"][\"$key\"] = 0"
  expect_bad_input "dragonfly $key 0" "fabric.$key: expected an integer in 1..1024, got 0" "$BIN/dasim" validate "$WORK/df_zero_$key.json"
done
dragonfly df_type 'p["fabric"]["chassis_per_group"] = "two"'
expect_bad_input "dragonfly count as text" "fabric.chassis_per_group: expected an integer" "$BIN/dasim" validate "$WORK/df_type.json"
mutate df_key_on_fat_tree 'p["fabric"]["groups"] = 2'
expect_bad_input "dragonfly key on a fat-tree" "fabric.groups: unknown key" "$BIN/dasim" validate "$WORK/df_key_on_fat_tree.json"

# Fat-tree leaves sized in ports: one plane divides them among a node's 4 rails.
mutate leaf_both 'p["fabric"]["leaf_ports"] = 36'
expect_bad_input "leaf_ports and switch_radix" "fabric.leaf_ports: give switch_radix (nodes per leaf) or leaf_ports (ports per leaf switch), not both" "$BIN/dasim" validate "$WORK/leaf_both.json"
mutate leaf_rails 'del p["fabric"]["switch_radix"]; p["fabric"]["leaf_ports"] = 18'
expect_bad_input "leaf ports not a whole number of nodes" "fabric.leaf_ports: a single-plane leaf takes all 4 ports of a node: 18 ports is not a whole number of nodes" "$BIN/dasim" validate "$WORK/leaf_rails.json"
mutate leaf_zero 'del p["fabric"]["switch_radix"]; p["fabric"]["leaf_ports"] = 0'
expect_bad_input "zero leaf ports" "fabric.leaf_ports: expected an integer in 1..65536, got 0" "$BIN/dasim" validate "$WORK/leaf_zero.json"
mutate rail_without_ports 'p["fabric"]["rail_optimised"] = True'
expect_bad_input "rail_optimised without leaf_ports" "fabric.rail_optimised: needs \"leaf_ports\"" "$BIN/dasim" validate "$WORK/rail_without_ports.json"
mutate rail_type 'del p["fabric"]["switch_radix"]; p["fabric"].update({"leaf_ports": 16, "rail_optimised": "yes"})'
expect_bad_input "rail_optimised not a boolean" "fabric.rail_optimised: expected true or false" "$BIN/dasim" validate "$WORK/rail_type.json"
mutate leaf_uplinks 'del p["fabric"]["switch_radix"]; p["fabric"].update({"leaf_ports": 16, "oversubscription": 3})'
expect_bad_input "leaf ports over oversubscription" "fabric.oversubscription: 4 nodes per leaf / oversubscription = " "$BIN/dasim" validate "$WORK/leaf_uplinks.json"

mutate preset 'p["fabric"]["link"] = {"preset": "ib-fdr"}'
expect_bad_input "unknown link preset" "fabric.link.preset: unknown link preset \"ib-fdr\"" "$BIN/dasim" validate "$WORK/preset.json"

mutate transport 'p["node"]["nics"][0]["link"]["transport"] = "infiniband"'
expect_bad_input "unknown transport" "node.nics[0].link.transport: expected one of ideal, nvlink, nvlink4, nvlink5, pcie, ib, roce, tcp, got \"infiniband\"" "$BIN/dasim" validate "$WORK/transport.json"

mutate efficiency_zero 'p["node"]["nvlink"]["link"]["efficiency"] = 0'
expect_bad_input "efficiency 0" "node.nvlink.link.efficiency: expected a fraction of the line rate in (0, 1], got 0" "$BIN/dasim" validate "$WORK/efficiency_zero.json"
mutate efficiency_high 'p["node"]["nvlink"]["link"]["efficiency"] = 1.5'
expect_bad_input "efficiency above 1" "node.nvlink.link.efficiency: expected a fraction of the line rate in (0, 1], got 1.5" "$BIN/dasim" validate "$WORK/efficiency_high.json"

mutate tcp_not_tcp 'p["node"]["nics"][0]["link"]["tcp"] = {"sockets": 4}'
expect_bad_input "tcp settings on an IB NIC" "node.nics[0].link.tcp: socket settings need \"transport\": \"tcp\", not \"ib\"" "$BIN/dasim" validate "$WORK/tcp_not_tcp.json"
mutate tcp_sockets 'p["node"]["nics"][0]["link"].update({"transport": "tcp", "tcp": {"sockets": 0}})'
expect_bad_input "zero sockets" "node.nics[0].link.tcp.sockets: expected" "$BIN/dasim" validate "$WORK/tcp_sockets.json"

nvswitch_base="$SRC/platforms/dgx-h100-ndr.json"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["node"]["nvswitch"]["nvls"]={"efficiency": 2}; json.dump(p, open(sys.argv[2], "w"))' "$nvswitch_base" "$WORK/nvls.json"
expect_bad_input "NVLS efficiency above 1" "node.nvswitch.nvls.efficiency: expected a fraction of the port's achieved rate in (0, 1], got 2" "$BIN/dasim" validate "$WORK/nvls.json"
# DGX A100's NVSwitch (NVLink3) has no NVLink SHARP.
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["node"]["nvswitch"]["nvls"]=True; json.dump(p, open(sys.argv[2], "w"))' "$SRC/platforms/dgx-a100-hdr.json" "$WORK/nvls_a100.json"
expect_bad_input "NVLS on an NVLink3 switch" "node.nvswitch.nvls: NVLink SHARP needs NVSwitch ports of transport nvlink4 (Hopper) or nvlink5 (Blackwell), got nvlink" "$BIN/dasim" validate "$WORK/nvls_a100.json"

expect_bad_input "bad --nodes" "nodes" "$BIN/dasim" platform show "$base" --nodes 0

for f in "$SRC"/platforms/*.json; do expect_ok "validate $(basename "$f")" "$BIN/dasim" validate "$f"; done
expect_ok "show with --nodes" "$BIN/dasim" platform show "$base" --nodes 128
grep -q "Bisection:  3200.00 GB/s" "$WORK/stdout" || fail "128-node DGX-1 bisection should be 64 nodes x 4 x 12.5 GB/s = 3200 GB/s: $(grep Bisection "$WORK/stdout")"
# platform show --nodes 1 counts in the right number; platform presets has a header row.
expect_ok "show one node" "$BIN/dasim" platform show "$base" --nodes 1
grep -q "^Nodes:      1 node x 8 GPUs (" "$WORK/stdout" || fail "one node: $(grep Nodes "$WORK/stdout")"
# The DGX-1's six NVLinks per GPU (2 x NV2 + 2 x NV1 at 25 GB/s x 0.80): six rings of 20 GB/s.
grep -q "^Rings:      6 inside a node over different links, 20.00 GB/s each, 120.00 GB/s of bus bandwidth" "$WORK/stdout" ||
  fail "DGX-1 rings: $(grep Rings "$WORK/stdout")"
expect_ok "presets" "$BIN/dasim" platform presets
head -1 "$WORK/stdout" | grep -Eq '^preset +bandwidth +latency +source$' || fail "presets header: $(head -1 "$WORK/stdout")"
grep -Eq '^ib-hdr +25\.00 GB/s +0\.60 us ' "$WORK/stdout" || fail "presets: no ib-hdr row (200 Gb/s = 25 GB/s)"
finish
