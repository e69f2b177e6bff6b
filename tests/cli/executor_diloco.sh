#!/usr/bin/env bash
# dasim-train diloco and streaming_diloco on 2 ranks: every rank's final weights equal the serial
# reference's (--verify: outer Nesterov steps, fragments in turn, the alpha merge), the weights are
# identical across ranks exactly when the schedule says so (--check-consistency), and the target
# loss is reached; bad DiLoCo arguments get one line and exit 2.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

run_checked() {  # NAME ARGS...: a verified, consistency-checked run that reaches the target
  local name="$1"
  shift
  mpi2 "$@" --steps 120 --check-consistency --verify --target-loss 0.3 -o "$WORK/$name.json" "${TASK[@]}" ||
    fail "$name run failed"
  [ "$(json "$WORK/$name.json" "d['verify']['passed']")" = True ] || fail "$name differs from the serial reference"
  [ "$(json "$WORK/$name.json" "d['target']['reached'] and d['target']['steps'] <= 120")" = True ] ||
    fail "$name: target loss not reached"
}

run_checked diloco --schedule diloco --H 10
[ "$(json "$WORK/diloco.json" "d['results'][0]['schedule_detail']")" = "diloco(H=10,nesterov lr=0.7 mu=0.9)" ] ||
  fail "schedule_detail column"
[ "$(json "$WORK/diloco.json" "d['results'][0]['tau']")" = 10 ] || fail "tau column holds H"
run_checked streaming --schedule streaming_diloco --H 12 --fragments 3 --overlap-steps 2 --alpha 0.5
# Step 120 synchronises the last fragment; its outer step is due after the run: drained.
[ "$(json "$WORK/streaming.json" "all(r['drain_s'] > 0 for r in d['per_rank_steps'])")" = True ] ||
  fail "streaming_diloco: no end-of-run drain recorded"
run_checked outer_sgd --schedule diloco --H 6 --outer-optimizer sgd --outer-lr 1
# Eager: each round's average arrives during the next round; the last one only after the run.
run_checked eager --schedule diloco --H 10 --eager
[ "$(json "$WORK/eager.json" "all(r['drain_s'] > 0 for r in d['per_rank_steps'])")" = True ] ||
  fail "eager diloco: the last round's allreduce is not drained"

# Top-k with error feedback (10% of each outer gradient, all-gathered): every rank's weights equal
# the serial reference's, which sparsifies each replica in turn, and the target is still reached;
# the loss curve is not dense DiLoCo's.
run_checked top_k --schedule diloco --H 10 --top-k 0.1
[ "$(json "$WORK/top_k.json" "d['results'][0]['schedule_detail']")" = "diloco(H=10,nesterov lr=0.7 mu=0.9,top_k=0.1)" ] ||
  fail "top-k schedule_detail"
! same_loss_curve "$WORK/top_k.json" "$WORK/diloco.json" 120 1e-4 "top-k vs dense" 2>/dev/null ||
  fail "top-k diloco follows dense diloco's loss curve"
run_checked streaming_top_k --schedule streaming_diloco --H 12 --fragments 3 --overlap-steps 2 --top-k 0.1
# Outer gradients rounded to 4 bits (one absmax scale per fragment) and, with top-k, its values
# rounded to 8 bits with the rounding error kept in the residual: the serial reference rounds the same.
run_checked int4 --schedule diloco --H 10 --bits 4
[ "$(json "$WORK/int4.json" "d['results'][0]['schedule_detail']")" = "diloco(H=10,nesterov lr=0.7 mu=0.9,bits=4)" ] ||
  fail "bits schedule_detail"
! same_loss_curve "$WORK/int4.json" "$WORK/diloco.json" 120 1e-4 "4-bit vs fp32" 2>/dev/null ||
  fail "4-bit diloco follows fp32 diloco's loss curve"
run_checked top_k_int8 --schedule streaming_diloco --H 12 --fragments 3 --overlap-steps 2 --top-k 0.1 --bits 8

# diloco with the sgd outer optimizer at lr 1 is local SGD (ALGORITHMS.md): the same loss curve.
mpi2 --schedule local_sgd --tau 6 --steps 120 -o "$WORK/local.json" "${TASK[@]}" || fail "local_sgd run failed"
same_loss_curve "$WORK/outer_sgd.json" "$WORK/local.json" 120 1e-4 "diloco(outer sgd lr 1) vs local_sgd" ||
  fail "diloco with outer sgd lr 1 does not follow local_sgd"

expect_refused() {  # MESSAGE ARGS...
  local message="$1" rc=0
  shift
  "$TRAIN" "$@" -o "$WORK/bad.json" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ "$rc" = 2 ] || fail "expected exit 2 for $*, got $rc"
  [ "$(wc -l <"$WORK/err")" = 1 ] || fail "expected one line for $*: $(cat "$WORK/err")"
  grep -q -- "$message" "$WORK/err" || fail "expected '$message' for $*: $(cat "$WORK/err")"
  [ ! -e "$WORK/bad.json" ] || fail "output written for $*"
}
expect_refused "divides H = 10" --schedule streaming_diloco --H 10 --fragments 3
expect_refused "0 <= overlap <= H = 4" --schedule streaming_diloco --H 4 --fragments 2 --overlap-steps 5
expect_refused "at most 3 fragments" --schedule streaming_diloco --H 8 --fragments 4 --hidden 64,64
expect_refused "\[0, 1\]" --schedule streaming_diloco --H 4 --fragments 2 --alpha 1.5
expect_refused "no momentum" --schedule diloco --outer-optimizer sgd --outer-momentum 0.9
expect_refused "only for diloco" --schedule dasgd --H 10
expect_refused "takes --H" --schedule diloco --tau 4
expect_refused "use streaming_diloco" --schedule diloco --fragments 2
expect_refused "only diloco has eager" --schedule streaming_diloco --H 4 --fragments 2 --eager
expect_refused "without --eager" --schedule diloco --H 4 --eager --top-k 0.1
expect_refused "in \[1e-9, 1)" --schedule diloco --top-k 1
expect_refused "expected 32, 16, 8 or 4" --schedule diloco --bits 3
echo "executor_diloco: ok"
