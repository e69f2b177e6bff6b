# dasim-mpi-sweep under mpirun: the quick scenario (shortened to one 4-step period, no warm-up:
# what is tested is the spreading and merging of its 12 configurations) over 2 and 3 ranks (1 and
# 2 workers) and on one rank gives results.csv / results.json byte-identical to one local dasim run; a configuration
# whose dasim is killed fails the sweep with its number, the rank and how it ended; a bad
# scenario is its one-line error, exit 2; --help works without mpirun.
source "$2/tests/lib/cli_assert.sh"
[ -x "$BIN/dasim-mpi-sweep" ] || { echo "dasim-mpi-sweep not built (no MPI): skipped"; exit 0; }
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { local n=$1; shift; timeout 240 mpirun --allow-run-as-root --oversubscribe -np "$n" "$BIN/dasim-mpi-sweep" "$@"; }

quick="$WORK/quick.json"
sed -e "s|\"../platforms/|\"$SRC/platforms/|" -e 's/"iterations": 8/"iterations": 4/' -e 's/"warmup": 4/"warmup": 0/' \
  "$SRC/scenarios/quick.json" >"$quick"
grep -q '"iterations": 4' "$quick" && grep -q '"warmup": 0' "$quick" || fail "quick.json no longer has 8 + 4 iterations"
expect_ok "local run" "$BIN/dasim" run "$quick" --out "$WORK/local" --quiet --jobs 2
for n in 1 2 3; do
  expect_ok "sweep on $n ranks" mpi $n "$quick" --out "$WORK/sweep$n"
  for f in results.csv results.json; do
    cmp -s "$WORK/local/$f" "$WORK/sweep$n/$f" || fail "$n ranks: $f differs from the local run's"
  done
  [ ! -e "$WORK/sweep$n.parts" ] || fail "$n ranks: the parts directory was left behind"
  [ "$(grep -c '^dasim-mpi-sweep: configuration [0-9]* ([0-9]* of 12) to rank' "$WORK/stderr")" -eq 12 ] ||
    fail "$n ranks: not one assignment line per configuration"
done
grep -q "^12 configurations from 12 shards; results in $WORK/sweep3/results.csv" "$WORK/stdout" ||
  fail "3 ranks: no merge summary"

# A dasim that is killed on configuration 5 (as by the OOM killer): the sweep names it.
cat >"$WORK/dying-dasim" <<SH
#!/usr/bin/env bash
case " \$* " in *" --configuration 5 "*) kill -9 \$\$ ;; esac
exec "$BIN/dasim" "\$@"
SH
chmod +x "$WORK/dying-dasim"
mpi 3 "$quick" --out "$WORK/dies" --dasim "$WORK/dying-dasim" >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
[ "$status" -eq 1 ] || fail "killed configuration: exit status $status, expected 1"
grep -q "^dasim-mpi-sweep: configuration 5 failed on rank [12] (killed by signal 9 (Killed)" "$WORK/stderr" ||
  fail "killed configuration: not named: $(tail -3 "$WORK/stderr")"
[ ! -e "$WORK/dies" ] || fail "killed configuration: results were written"

# Bad scenario: the scenario's own one-line error, exit 2, nothing written.
printf '{"platforms": [' >"$WORK/bad.json"
mpi 2 "$WORK/bad.json" --out "$WORK/bad" >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
[ "$status" -eq 2 ] || fail "bad scenario: exit status $status, expected 2"
grep -q "bad.json: malformed JSON" "$WORK/stderr" || fail "bad scenario: $(cat "$WORK/stderr")"
[ ! -e "$WORK/bad" ] && [ ! -e "$WORK/bad.parts" ] || fail "bad scenario: something was written"

expect_ok "--help without mpirun" "$BIN/dasim-mpi-sweep" --help
grep -q "dasim-mpi-sweep\|Spread a scenario" "$WORK/stdout" || fail "--help: no usage"
finish
