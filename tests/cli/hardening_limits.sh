#!/usr/bin/env bash
# Absurd scenarios are refused before anything is simulated: one line naming the file and JSON
# path with the estimated memory / time, exit status 2, no output directory. --force skips the
# check (the forced run is then interrupted: it did start simulating).
source "$2/tests/lib/cli_strict.sh"

# scenario NAME PLATFORM NODES [ITERATIONS [SCHEDULE]]: writes $work/NAME.json
scenario() {
  local schedule=${5:-'{"type": "sgd"}'}
  cat >"$work/$1.json" <<JSON
{"platforms": [{"file": "$SRC/platforms/$2.json", "nodes": [$3]}], "workloads": ["resnet50"],
 "batch_per_gpu": 32, "schedules": [$schedule], "iterations": ${4:-8}, "warmup": 4}
JSON
}

# refused NAME EXPECTED_PREFIX EXPECTED_PIECE...
refused() {
  local name=$1 prefix=$2
  shift 2
  "$BIN/dasim" run "$work/$name.json" --out "$work/out-$name" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [ "$status" = 2 ] || fail "$name: exit status $status, expected 2: $(cat "$work/stderr")"
  [ "$(wc -l <"$work/stderr")" = 1 ] || fail "$name: expected one line: $(cat "$work/stderr")"
  grep -qF "dasim: error: $work/$name.json: $prefix" "$work/stderr" || fail "$name: $(cat "$work/stderr")"
  for piece in "$@" "refusing (use --force to run anyway)"; do
    grep -qF "$piece" "$work/stderr" || fail "$name: missing \"$piece\" in: $(cat "$work/stderr")"
  done
  [ -e "$work/out-$name" ] && fail "$name: output directory created"
  echo "ok: $name: $(cat "$work/stderr")"
}

# 1,000,000 DGX-1 nodes = 8,000,000 GPUs: ~135 KB each (docs/hardening.md) is ~1006 GiB.
scenario gpus dgx1-v100-edr "1, 1000000"
refused gpus "platforms[0].nodes[1]: 1000000 nodes x 8 GPUs = 8000000 GPUs would need ~1006 GiB" \
  "per iteration" "limit: 131072 GPUs"
# 16384 x 8 = 131072 GPUs is at the limit, 16385 x 8 is over it.
scenario gpus_edge dgx1-v100-edr "16385"
refused gpus_edge "platforms[0].nodes[0]: 16385 nodes x 8 GPUs = 131080 GPUs"

scenario iterations flat-100gbe-64 "1, 2" 1000000
refused iterations "iterations: 1000000 iterations + 4 warmup would take ~" "limit: 100000 iterations"

# The limit holds for what is simulated: warm-up and run rounded up to whole tau periods. tau 200000
# ran 400,000 iterations; tau 1e9 ran until killed with "ETA 0 s".
scenario tau flat-100gbe-64 "1, 2" 8 '{"type": "local_sgd", "tau": 200000}'
refused tau "schedules[0].tau: 8 iterations + 4 warmup, rounded up to whole periods of tau = 200000: 400000 iterations," \
  "limit: 100000 iterations"
scenario tau_huge flat-100gbe-64 "1, 2" 8 '{"type": "dasgd", "tau": 1000000000, "delay": 1}'
refused tau_huge "schedules[0].tau: 8 iterations + 4 warmup, rounded up to whole periods of tau = 1000000000: 2000000000 iterations,"

scenario bucket flat-100gbe-64 "2048" 8 '{"type": "sgd", "bucket_cap": "512B"}'
refused bucket "schedules[0].bucket_cap: a 512 B bucket cap on 2048 GPUs makes" "allreduces of resnet50 per iteration"

nodes=$(seq -s, 1 10001)
scenario configurations flat-100gbe-64 "$nodes"
refused configurations "10001 configurations (10001 platform node counts x 1 workload x 1 schedule) would take ~" \
  "limit: 10000 configurations"

# A wrapped node count must not slip past the limits: 2^32 nodes is refused by the loader.
scenario wrapped flat-100gbe-64 "4294967296"
"$BIN/dasim" run "$work/wrapped.json" --out "$work/out-wrapped" 2>"$work/stderr"
[ $? = 2 ] && grep -qF "platforms[0].nodes[0]: expected a positive node count below 2^31" "$work/stderr" ||
  fail "wrapped: $(cat "$work/stderr")"

# A batch that does not fit an int wrapped to -727379968 and was refused later without file or path.
scenario batch flat-100gbe-64 "1"
sed -i 's/"batch_per_gpu": 32/"batch_per_gpu": 1000000000000/' "$work/batch.json"
"$BIN/dasim" run "$work/batch.json" --out "$work/out-batch" 2>"$work/stderr"
[ $? = 2 ] && grep -qF "$work/batch.json: batch_per_gpu: expected an integer in 1..1048576, got 1000000000000" "$work/stderr" ||
  fail "batch: $(cat "$work/stderr")"
echo "ok: batch: $(cat "$work/stderr")"

# --force: the iterations scenario starts simulating (interrupted after its children start).
"$BIN/dasim" run "$work/iterations.json" --out "$work/out-force" --force --quiet >/dev/null 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 300); do
  [ -n "$(pgrep -P "$pid" || true)" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$(pgrep -P "$pid" || true)" ] || fail "--force: no simulation started: $(cat "$work/stderr")"
kill -TERM "$pid"
wait "$pid"
[ $? = 143 ] || fail "--force: expected the interrupted run's 143: $(cat "$work/stderr")"
echo "ok: --force runs past the limits"
echo "PASS"
