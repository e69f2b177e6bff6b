# `cmake --install` gives a dasim that works on its own: the installed binary, run from another
# directory with the installed scenarios, finds the installed analysis scripts and writes the
# plots of `--plot` (PNG files), and nothing of the source tree is needed.
source "$2/tests/lib/cli_assert.sh"

is_png() {  # the PNG signature and more than 10 kB (an empty axes alone is smaller)
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 10240 ]
}

build=$(dirname "$BIN")
prefix="$WORK/prefix"
expect_ok "cmake --install" cmake --install "$build" --prefix "$prefix"
for f in bin/dasim bin/dasim-train share/dasim/analysis/plot_scaleup.py share/dasim/scenarios/quick.json \
  share/dasim/platforms/flat-100gbe-64.json; do
  [ -e "$prefix/$f" ] || fail "install tree lacks $f"
done

cd "$WORK"
expect_ok "installed dasim run --plot" "$prefix/bin/dasim" run "$prefix/share/dasim/scenarios/quick.json" \
  --out "$WORK/out" --quiet --plot
for png in scaleup.png scaleup_efficiency.png breakdown.png; do
  is_png "$WORK/out/$png" || fail "$png is not a PNG plot"
  grep -q "plot: $WORK/out/$png" "$WORK/stdout" || fail "--plot did not report $png"
done
[ "$(wc -l <"$WORK/out/results.csv")" -eq 13 ] || fail "installed run: expected 12 result rows + header"

# The scripts are found beside the binary, not in the source tree: with them gone, --plot fails
# with one line naming where it looked, after writing the results.
mv "$prefix/share/dasim/analysis" "$prefix/share/dasim/analysis.away"
"$prefix/bin/dasim" run "$prefix/share/dasim/scenarios/quick.json" --out "$WORK/out2" --quiet --plot \
  >"$WORK/stdout" 2>"$WORK/stderr" && fail "--plot without the analysis scripts succeeded"
grep -q "share/dasim/analysis" "$WORK/stderr" || fail "--plot failure does not say where it looked: $(cat "$WORK/stderr")"
finish
