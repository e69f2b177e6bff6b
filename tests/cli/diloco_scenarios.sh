# The DiLoCo family in scenarios: a run of every new schedule key (results carry schedule_detail,
# DiLoCo's comm per step is the allreduce / H) and every class of bad DiLoCo schedule: exit 2,
# FILE: json.path, nothing written.
source "$2/tests/lib/cli_assert.sh"

scenario() {  # NAME SCHEDULES_JSON: a 1-8 GPU ResNet-50 scenario with these schedules
  cat >"$WORK/$1.json" <<JSON
{"name": "$1", "platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [1, 8]}],
 "workloads": ["resnet50"], "batch_per_gpu": 32, "collective": {"algorithm": "ring"},
 "iterations": 8, "warmup": 4, "schedules": $2}
JSON
}

scenario good '[{"type": "diloco", "H": 10},
  {"type": "diloco", "H": 10, "outer": {"optimizer": "sgd", "lr": 1}, "compression": {"bits": 8}},
  {"type": "streaming_diloco", "H": 20, "fragments": 4, "overlap_steps": 2, "alpha": 0.5,
   "compression": {"bits": 4}},
  {"type": "local_sgd", "tau": 10},
  {"type": "diloco", "H": 10, "compression": {"bits": 8, "top_k": 0.01, "index_bits": 16}},
  {"type": "diloco", "H": 10, "compression": {"top_k": 0.01}}]'
expect_ok "diloco scenario" "$BIN/dasim" run "$WORK/good.json" --out "$WORK/out" --quiet
/usr/bin/python3 - "$WORK/out/results.csv" <<'PY' || fail "diloco results"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
detail = [r["schedule_detail"] for r in rows if r["gpus"] == "8"]
assert detail == ["diloco(H=10,nesterov lr=0.7 mu=0.9)", "diloco(H=10,sgd lr=1,bits=8)",
                  "streaming_diloco(H=20,P=4,d=2,alpha=0.5,nesterov lr=0.7 mu=0.9,bits=4)",
                  "local_sgd(tau=10)", "diloco(H=10,nesterov lr=0.7 mu=0.9,bits=8,top_k=0.01/16)",
                  "diloco(H=10,nesterov lr=0.7 mu=0.9,top_k=0.01)"], detail
by = {r["schedule_detail"]: r for r in rows if r["gpus"] == "8"}
# Blocking DiLoCo and local SGD with the same period exchange the same fp32 weight-sized payload:
# the same communication per step; 8-bit DiLoCo about a quarter of it.
full, local = float(by[detail[0]]["comm_s"]), float(by[detail[3]]["comm_s"])
assert abs(full - local) < 1e-3 * local, (full, local)
assert 0.2 < float(by[detail[1]]["comm_s"]) / full < 0.3, by[detail[1]]["comm_s"]
# Streaming DiLoCo's fragments (2.5% of a 25 ms ResNet-50 allreduce each, 4 bits) hide in 2 steps.
assert float(by[detail[2]]["exposed_comm_s"]) == 0.0, by[detail[2]]
# Top-k at 1% of ResNet-50's 25,557,032 parameters: k = 255,571 pairs per worker, all-gathered, so
# each of 8 ranks receives 7 workers' pairs; 8-bit values with 16-bit indices (3 B) against fp32
# values with 32-bit indices (8 B) take 7 x 255,571 x 5 B / 12.5e9 B/s less per round of H = 10.
small, large = float(by[detail[4]]["comm_s"]), float(by[detail[5]]["comm_s"])
assert abs((large - small) - 7 * 255571 * 5 / 12.5e9 / 10) < 1e-3 * (large - small), (small, large)
assert large < full / 10, (large, full)
PY
grep -q "streaming_diloco(H=20,P=4" "$WORK/stdout" || fail "summary table lacks the streaming_diloco label"

bad() {  # NAME EXPECTED SCHEDULE_JSON
  scenario "$1" "[$3]"
  expect_bad_input "$1" "$1.json: $2" "$BIN/dasim" run "$WORK/$1.json" --out "$WORK/out-$1" --quiet
  [ ! -e "$WORK/out-$1" ] || fail "$1: output directory was created"
  expect_bad_input "$1 (validate)" "$1.json: $2" "$BIN/dasim" validate "$WORK/$1.json"
}
bad no_H 'schedules[0].H: required key is missing' '{"type": "diloco"}'
bad H_zero 'schedules[0].H: expected a positive integer, got 0' '{"type": "diloco", "H": 0}'
bad tau_for_diloco 'schedules[0].tau: unknown key' '{"type": "diloco", "H": 4, "tau": 4}'
bad fragments_not_dividing 'schedules[0].fragments: expected a fragment count that divides H = 10, got 3' \
  '{"type": "streaming_diloco", "H": 10, "fragments": 3, "overlap_steps": 1}'
bad overlap_above_H 'schedules[0].overlap_steps: expected 0 <= overlap_steps <= H = 4, got 5' \
  '{"type": "streaming_diloco", "H": 4, "fragments": 2, "overlap_steps": 5}'
# ResNet-50: 53 convolutions (conv1, 16 bottlenecks x 3, 4 projection shortcuts), 53 batch norms, fc.
bad too_many_fragments 'schedules[0].fragments: expected at most 107 fragments: workload resnet50 has 107 layers' \
  '{"type": "streaming_diloco", "H": 1000, "fragments": 500, "overlap_steps": 1}'
bad alpha 'schedules[0].alpha: expected a mixing factor in [0, 1], got 2' \
  '{"type": "streaming_diloco", "H": 4, "fragments": 2, "overlap_steps": 1, "alpha": 2}'
bad bits 'schedules[0].compression.bits: expected 32, 16, 8 or 4 bits per element, got 3' \
  '{"type": "diloco", "H": 4, "compression": {"bits": 3}}'
bad empty_compression 'schedules[0].compression.bits: expected bits (32, 16, 8 or 4 per element), top_k (a density in [1e-9, 1)) or both' \
  '{"type": "diloco", "H": 4, "compression": {}}'
bad top_k_one 'schedules[0].compression.top_k: expected the fraction of elements sent, in [1e-9, 1), got 1' \
  '{"type": "diloco", "H": 4, "compression": {"top_k": 1}}'
bad index_bits_without_top_k 'schedules[0].compression.index_bits: index_bits needs top_k' \
  '{"type": "local_sgd", "tau": 4, "compression": {"bits": 8, "index_bits": 16}}'
bad index_bits_range 'schedules[0].compression.index_bits: expected an integer in 1..64, got 0' \
  '{"type": "dasgd", "tau": 4, "delay": 1, "compression": {"top_k": 0.1, "index_bits": 0}}'
bad sgd_compression 'schedules[0].compression: unknown key' '{"type": "sgd", "compression": {"bits": 8}}'
bad outer_optimizer 'schedules[0].outer.optimizer: expected one of sgd, nesterov, got "adam"' \
  '{"type": "diloco", "H": 4, "outer": {"optimizer": "adam"}}'
bad outer_lr 'schedules[0].outer.lr: expected an outer learning rate in (0, 10], got 0' \
  '{"type": "diloco", "H": 4, "outer": {"lr": 0}}'
bad sgd_momentum 'schedules[0].outer.momentum: the sgd outer optimizer has no momentum' \
  '{"type": "diloco", "H": 4, "outer": {"optimizer": "sgd", "momentum": 0.9}}'
bad momentum_one 'schedules[0].outer.momentum: expected a momentum in [0, 1), got 1' \
  '{"type": "diloco", "H": 4, "outer": {"momentum": 1}}'
bad streaming_eager 'schedules[0].eager: unknown key' \
  '{"type": "streaming_diloco", "H": 4, "fragments": 2, "overlap_steps": 1, "eager": true}'
bad eager_not_boolean 'schedules[0].eager: expected true or false' '{"type": "diloco", "H": 4, "eager": 1}'
bad sgd_island 'schedules[0].island_gpus: unknown key' '{"type": "sgd", "island_gpus": 2}'
bad bucket_cap_without_islands 'schedules[0].bucket_cap: a periodic schedule has gradient buckets only inside islands' \
  '{"type": "diloco", "H": 4, "bucket_cap": "25MiB"}'
bad islands_not_splitting 'schedules[0].island_gpus: 8 nodes of platform flat-100gbe-64 (8 GPUs) do not split into islands of 3 GPUs' \
  '{"type": "diloco", "H": 4, "island_gpus": 3}'
bad fsdp_without_islands 'schedules[0].data_parallel: a periodic schedule shards the model only inside islands (set island_gpus above 1)' \
  '{"type": "diloco", "H": 4, "data_parallel": "fsdp"}'
bad fsdp_bucket_view 'schedules[0].bucket_view: bucket_view is a ddp option: fsdp units are flat buffers already (leave it out)' \
  '{"type": "sgd", "data_parallel": "fsdp", "bucket_view": true}'
bad data_parallel_value 'schedules[0].data_parallel: expected one of ddp, fsdp, got "zero3"' \
  '{"type": "sgd", "data_parallel": "zero3"}'
cat >"$WORK/dgx.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/dgx1-v100-edr.json", "nodes": [1, 2]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "schedules": [{"type": "diloco", "H": 4, "island_gpus": 4}]}
JSON
expect_bad_input "islands of part of a node" \
  "dgx.json: schedules[0].island_gpus: expected whole nodes: a multiple of platform dgx1-v100-edr's 8 GPUs per node, got 4" \
  "$BIN/dasim" validate "$WORK/dgx.json"

# Top-k's all-gather runs on rings whatever algorithm the allreduces use (hierarchical here: the
# same all-gather time as with ring); polled_rounds replays allreduces only.
for algorithm in ring hierarchical; do
  cat >"$WORK/topk-$algorithm.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/dgx1-v100-edr.json", "nodes": [2]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "collective": {"algorithm": "$algorithm"}, "iterations": 8, "warmup": 4,
 "schedules": [{"type": "diloco", "H": 4, "compression": {"top_k": 0.01}}]}
JSON
  expect_ok "top-k with $algorithm" "$BIN/dasim" run "$WORK/topk-$algorithm.json" --out "$WORK/out-topk-$algorithm" --quiet
done
/usr/bin/python3 - "$WORK/out-topk-ring/results.csv" "$WORK/out-topk-hierarchical/results.csv" <<'PY' ||
import csv, sys
ring, hier = (float(next(csv.DictReader(open(f))).get("comm_s")) for f in sys.argv[1:])
assert ring > 0 and ring == hier, (ring, hier)
PY
  fail "top-k's all-gather differs between ring and hierarchical settings"
cat >"$WORK/topk-polled.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [2]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "collective": {"progress": "polled_rounds"},
 "schedules": [{"type": "diloco", "H": 4, "compression": {"top_k": 0.01}}]}
JSON
expect_bad_input "top-k with polled_rounds" \
  "topk-polled.json: schedules[0].compression.top_k: top-k's pairs are all-gathered, and progress polled_rounds replays allreduces only" \
  "$BIN/dasim" validate "$WORK/topk-polled.json"

cat >"$WORK/fsdp-polled.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/flat-100gbe-64.json", "nodes": [2]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "collective": {"progress": "polled_rounds"},
 "schedules": [{"type": "sgd", "data_parallel": "fsdp"}]}
JSON
expect_bad_input "fsdp with polled_rounds" \
  "fsdp-polled.json: schedules[0].data_parallel: fsdp all-gathers and reduce-scatters, and progress polled_rounds replays allreduces only" \
  "$BIN/dasim" validate "$WORK/fsdp-polled.json"

# fsdp moves each unit three times (two gathers, a reduce-scatter: 3 ring phases) where ddp
# allreduces it once (2 phases): more time with a collective in flight (not 1.5 x: comm_s is the
# time any is in flight, and fsdp's prefetched gathers overlap the reduce-scatters); the closed
# forms are tests/schedules/fsdp_closed_form_test.cpp. fsdp runs are simulated whole.
scenario fsdp '[{"type": "sgd"}, {"type": "sgd", "data_parallel": "fsdp"},
  {"type": "diloco", "H": 10, "island_gpus": 4}, {"type": "diloco", "H": 10, "island_gpus": 4, "data_parallel": "fsdp"}]'
expect_ok "fsdp scenario" "$BIN/dasim" run "$WORK/fsdp.json" --out "$WORK/out-fsdp" --quiet
/usr/bin/python3 - "$WORK/out-fsdp/results.csv" <<'PY' || fail "fsdp results"
import csv, sys
rows = {r["schedule_detail"]: r for r in csv.DictReader(open(sys.argv[1])) if r["gpus"] == "8"}
assert list(rows) == ["sgd", "sgd(fsdp)", "diloco(H=10,nesterov lr=0.7 mu=0.9,island=4)",
                      "diloco(H=10,nesterov lr=0.7 mu=0.9,island=4,fsdp)"], list(rows)
ratio = float(rows["sgd(fsdp)"]["comm_s"]) / float(rows["sgd"]["comm_s"])
assert 1.2 < ratio < 1.5, ratio
assert rows["sgd(fsdp)"]["not_folded_because"] == "fsdp", rows["sgd(fsdp)"]["not_folded_because"]
PY

# Islands of 4 GPUs run DDP's buckets inside (8 GPUs: 2 islands); the row names them.
scenario islands '[{"type": "diloco", "H": 10, "island_gpus": 4, "bucket_cap": "25MiB"}]'
expect_ok "islands scenario" "$BIN/dasim" run "$WORK/islands.json" --out "$WORK/out-islands" --quiet
grep -q 'diloco(H=10,nesterov lr=0.7 mu=0.9,island=4)' "$WORK/out-islands/results.csv" ||
  fail "islands: schedule_detail"
finish
