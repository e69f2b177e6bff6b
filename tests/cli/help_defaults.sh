#!/usr/bin/env bash
# --help says the default of every option that has one a user can rely on (issue 24: "help shows
# no defaults for dasim subcommands"); options whose default is "take it from the file" say so.
source "$2/tests/lib/cli_assert.sh"

expect_help() {  # expect_help "SUBCOMMAND..." TEXT...
  local cmd=$1
  shift
  # shellcheck disable=SC2086
  "$BIN/dasim" $cmd --help >"$WORK/help.txt" 2>&1 || fail "dasim $cmd --help exited $?"
  for text in "$@"; do
    grep -qF -- "$text" "$WORK/help.txt" && echo "ok: $cmd: $text" || fail "dasim $cmd --help lacks '$text'"
  done
}
expect_help run "--jobs INT:INT in [1 - 256]=1" "--trace-ranks INT:INT in [1 - 1048576]=64"
expect_help collective "--op TEXT=allreduce" "--min-bytes TEXT=8" "--max-bytes TEXT=1G" "--factor FLOAT=2" \
  "--format TEXT:{table,csv}=table" "--algo TEXT:{ring,tree,hierarchical,nvls,auto}=auto" "default: the file's"
expect_help "workload show" "--batch INT:POSITIVE=1" "--format TEXT:{table,json}=table" "--bucket-cap TEXT=25MiB"
expect_help "platform show" "default: the file's"
finish
