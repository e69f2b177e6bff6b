# "Did you mean": a misspelt scenario key (top level and nested), an enumeration value, an option
# and a subcommand are each refused in one line that names the nearest real name (exit 2, nothing
# on stdout, no output written); with nothing near, the messages name no suggestion.
source "$2/tests/lib/cli_assert.sh"

quick="$SRC/scenarios/quick.json"

source "$SRC/tests/lib/quick_mutations.sh"
bad top_level_key 'iteration: unknown key; did you mean "iterations"?' 's["iteration"] = s.pop("iterations")'
bad nested_key 'schedules[0].bucket_capp: unknown key; did you mean "bucket_cap"?' 's["schedules"][0]["bucket_capp"] = "25MiB"'
bad enumeration 'collective.algorithm: expected one of ring, tree' 's["collective"]["algorithm"] = "rign"'
expect_bad_input "enumeration suggestion" 'got "rign"; did you mean "ring"?' \
  "$BIN/dasim" run "$WORK/enumeration.json" --out "$WORK/out-enumeration" --quiet
# The nearest key is already set: the typo is a second key, not a misspelling of it.
bad key_beside_its_spelling 'iteration: unknown key (check' 's["iteration"] = 3'
# Nothing near: the unknown key points at the documentation, the value lists what is allowed.
bad far_key 'zzzzzz: unknown key (check the spelling against docs/file-formats.md)' 's["zzzzzz"] = 1'
# A key valid in another schedule is not suggested for this one (H is DiLoCo's, not SGD's).
bad other_schedule_key 'schedules[0].h: unknown key (check' 's["schedules"][0]["h"] = 4'

expect_bad_input "misspelt option" "dasim: error: --jbos: unknown option; did you mean --jobs?" \
  "$BIN/dasim" run "$quick" --out "$WORK/out-o" --jbos 2
[ ! -e "$WORK/out-o" ] || fail "misspelt option: output directory was created"
expect_bad_input "misspelt option before a missing positional" "dasim: error: --hepl: unknown option; did you mean --help?" \
  "$BIN/dasim" run --hepl
expect_bad_input "far option" "dasim: error: --zzzzzz: unknown option (see --help)" \
  "$BIN/dasim" run "$quick" --out "$WORK/out-o" --zzzzzz
expect_bad_input "misspelt subcommand" "dasim: error: rnu: unknown subcommand; did you mean run?" "$BIN/dasim" rnu
expect_bad_input "misspelt nested subcommand" "dasim: error: shwo: unknown subcommand; did you mean show?" \
  "$BIN/dasim" platform shwo "$SRC/platforms/flat-100gbe-64.json"
expect_bad_input "far subcommand" "dasim: error: frobnicate: unknown subcommand (see --help)" "$BIN/dasim" frobnicate

# --help is still help: exit 0, the usage on stdout.
"$BIN/dasim" run --help >"$WORK/help" 2>/dev/null || fail "run --help: exit status $?"
grep -q "^Usage: .*dasim run" "$WORK/help" || fail "run --help: no usage printed"
finish
