#!/usr/bin/env bash
# dasim-train with hierarchical data parallelism on 4 ranks in 2 islands of 2: gradients averaged
# inside each island every step, DiLoCo (blocking and eager), DaSGD or local SGD between the
# islands, the islands being the workers (eager DiLoCo combines one fresh outer gradient per
# island). Every rank's final weights equal the serial reference's (--verify, which averages the
# replicas' gradients per island), the weights differ across islands between synchronisations
# (--check-consistency), the target loss is reached; islands that do not split the ranks get one
# line and exit 2.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"
mpi4() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4 "$TRAIN" "$@"; }

for schedule in "diloco --H 5" "diloco --H 5 --eager" "dasgd --tau 4 --delay 1" "local_sgd --tau 4"; do
  name=${schedule//[ -]/}
  # shellcheck disable=SC2086
  mpi4 --schedule $schedule --island-ranks 2 --steps 100 --check-consistency --verify --target-loss 0.3 \
    -o "$WORK/$name.json" "${TASK[@]}" || fail "$name with islands failed"
  [ "$(json "$WORK/$name.json" "d['verify']['passed']")" = True ] || fail "$name: differs from the serial reference"
  [ "$(json "$WORK/$name.json" "d['target']['reached']")" = True ] || fail "$name: target loss not reached"
  [ "$(json "$WORK/$name.json" "d['results'][0]['schedule_detail'].endswith(',island=2)')")" = True ] ||
    fail "$name: schedule_detail lacks the islands"
done

rc=0
timeout 60 mpirun --allow-run-as-root --oversubscribe -np 3 "$TRAIN" --schedule diloco --island-ranks 2 \
  -o "$WORK/bad.json" "${TASK[@]}" 2>"$WORK/err" >/dev/null || rc=$?
[ "$rc" != 0 ] || fail "3 ranks in islands of 2 ran"
grep -q "^dasim-train: --island-ranks: 3 ranks do not split into islands of 2$" "$WORK/err" ||
  fail "islands that do not split the ranks: $(cat "$WORK/err")"
[ ! -e "$WORK/bad.json" ] || fail "output written for islands that do not split the ranks"
rc=0
"$TRAIN" --schedule sgd --island-ranks 2 -o "$WORK/bad.json" 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] && grep -q "sgd has no islands" "$WORK/err" || fail "sgd with islands: $rc $(cat "$WORK/err")"
echo "executor_islands: ok"
