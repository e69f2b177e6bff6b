"""Runs every class of published validation cases under one folder (validation/: collectives, compute,
scaling, local-sgd-family) with the class runners' own loading, prediction and verdicts, and writes one
table of all of them (suite.csv, suite.md), the summary statistics per class (suite.json and in
suite.md) and a scatter plot of predicted against published, one panel per class (suite.png).

Every case file of every class is checked before anything is simulated: a bad one is refused with one
line `FILE: json.path: what was expected` and exit status 2, nothing written. After the runs, the
status is 1 when a case is outside its class's band and known-disagreements.json does not list it (or
lists a case that is now within: the list must say what is true today), else 0.

--docs FILE rewrites, in FILE, the block between the lines `<!-- validate-suite:begin ... -->` and
`<!-- validate-suite:end -->` with suite.md: docs/validation.md's summary section is this output.

--case PATTERN (repeatable; shell-style, matched against each case's id) runs only the matching cases,
for a case being written or a model change being tried on the cases it should move; every file is still
checked first, each pattern must match a case, and the statistics are the selection's. It cannot be
combined with --docs, whose block is the whole suite.
"""

import argparse
import concurrent.futures
import fnmatch
import importlib
import os
import statistics
import tempfile

from .errors import EXIT_FAILURE, fail
from .fidelity_common import DEFAULT_BIN_DIR
from .files import format_cell, write_json, write_text
from .figures import pyplot, save_figure, subplot_grid
from .validation_cases import KNOWN, WITHIN, aligned_table, csv_text

# The class runners, in the order of the table; each names its folder (validation_cases.py: the suite's
# four names).
RUNNERS = ("validate_collectives", "validate_compute", "validate_scaling", "validate_local_sgd")
COLUMNS = ["class", "group", "case", "quantity", "unit", "published", "predicted", "error", "error_unit", "band",
           "within_band", "verdict", "cause", "source"]
BEGIN, END = "<!-- validate-suite:begin", "<!-- validate-suite:end -->"
FIGURE = "validation-suite.png"  # --docs writes it into the Markdown file's figures/ folder
COMMAND = ("cd analysis && /usr/bin/python3 -m dasim_analysis validate-suite ../validation --dasim "
           "../build/bin/dasim --out /tmp/suite --docs ../docs/validation.md")


def parse_arguments(argv, prog):
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    source = os.path.dirname(os.path.dirname(DEFAULT_BIN_DIR))
    parser.add_argument("folder", nargs="?", default=os.path.join(source, "validation"),
                        help="folder holding the class folders (default: the repository's validation/)")
    parser.add_argument("--dasim", default=os.path.join(DEFAULT_BIN_DIR, "dasim"), help="the dasim binary")
    parser.add_argument("--out", required=True, help="folder for suite.csv, suite.md, suite.json, suite.png")
    parser.add_argument("--docs", help="Markdown file whose validate-suite block is rewritten with suite.md")
    parser.add_argument("--jobs", type=int, default=1, help="simulations run at once (default 1)")
    parser.add_argument("--case", action="append", default=[], metavar="PATTERN",
                        help="run only the cases whose id matches PATTERN (shell-style: *, ?, [...]); repeatable")
    args = parser.parse_args(argv)
    if not (os.path.isfile(args.dasim) and os.access(args.dasim, os.X_OK)):
        fail(f"--dasim: {args.dasim} is not an executable (build first, or name it)")
    if args.jobs < 1:
        fail(f"--jobs: expected a positive integer, got {args.jobs}")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        fail(f"--out: {args.out} exists and is not a folder")
    if args.docs and args.case:
        fail("--case: the --docs block holds the whole suite; rewrite it without --case")
    if args.docs:
        docs_parts(args.docs)  # refused now, before anything runs
    return args


def docs_parts(path):
    """(text before the block, its begin line, text after the end line) of the Markdown file PATH."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror}")
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.startswith(BEGIN)]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\n") == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        fail(f"{path}: expected one line starting '{BEGIN}' and, after it, one line '{END}'")
    return "".join(lines[:begins[0]]), lines[begins[0]], "".join(lines[ends[0]:])


def load_classes(folder):
    """[(runner module, cases, disagreements)] for every class folder present under FOLDER."""
    if not os.path.isdir(folder):
        fail(f"{folder}: not a folder of validation classes")
    runners = [importlib.import_module(f".{name}", __package__) for name in RUNNERS]
    present = [r for r in runners if os.path.isdir(os.path.join(folder, r.FOLDER))]
    if not present:
        fail(f"{folder}: no class folder ({', '.join(r.FOLDER for r in runners)})")
    return [(r, *r.load(os.path.join(folder, r.FOLDER))) for r in present]


def select_cases(classes, patterns):
    """CLASSES with only the cases whose id matches one of PATTERNS (all when there are none), classes
    left without a case dropped; a pattern that matches no case is refused (a misspelt id would
    otherwise run nothing and pass)."""
    if not patterns:
        return classes
    ids = [case["id"] for _, cases, _ in classes for case in cases]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(case_id, pattern) for case_id in ids):
            fail(f"--case: no case id matches '{pattern}'")
    picked = [(runner, [c for c in cases if any(fnmatch.fnmatchcase(c["id"], p) for p in patterns)], listed)
              for runner, cases, listed in classes]
    return [entry for entry in picked if entry[1]]


def run_all(dasim, classes, jobs):
    """The suite rows of every case, in class then case order; JOBS simulations at a time."""
    with tempfile.TemporaryDirectory(prefix="dasim-validate-suite-") as scratch:
        tasks = []
        for runner, cases, disagreements in classes:
            where = os.path.join(scratch, runner.FOLDER)
            os.makedirs(where)
            tasks += [(runner, case, disagreements, where) for case in cases]
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        try:  # a case that fails (its one line is printed) stops the rest: nothing more is started
            rows = list(pool.map(lambda t: t[0].suite_row(t[0].evaluate(dasim, t[1], t[2], t[3])), tasks))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return rows


def statistics_of(name, rows, runner, group="", whole=True):
    errors = [abs(r["error"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["error"]))
    median = statistics.median(errors)
    # A class's median target is about all its cases: a group's or a --case selection's median is shown
    # without it.
    median_target = getattr(runner, "MEDIAN_TARGET", None) if whole and not group else None
    signed = [r["error"] for r in rows]
    # Which way the errors lean: a median |error| can meet its target while most predictions are
    # optimistic (above the measurement), which a user sizing a cluster needs to know.
    return {"class": name, "group": group, "cases": len(rows), "error_unit": rows[0]["error_unit"],
            "median_abs_error": round(median, 2), "median_target": median_target,
            "above": sum(e > 0 for e in signed), "below": sum(e < 0 for e in signed),
            "median_signed_error": round(statistics.median(signed), 2),
            "median_within_target": None if median_target is None else median <= median_target,
            "worst_case": worst["case"], "worst_error": worst["error"],
            "within_target": sum(r["verdict"] == WITHIN for r in rows),
            "known_disagreements": sum(r["verdict"] == KNOWN for r in rows),
            "to_look_at": sum(r["verdict"] not in (WITHIN, KNOWN) for r in rows),
            "target": runner.TARGET_TEXT}


def summaries(classes, rows, whole_classes):
    """Per class, then per group inside a class that has several (fabric, one node / across nodes);
    WHOLE_CLASSES: the classes every case of which ran (all of them without --case)."""
    out = []
    for runner, _, _ in classes:
        members = [r for r in rows if r["class"] == runner.CASE_CLASS]
        if not members:
            continue
        whole = runner.CASE_CLASS in whole_classes
        out.append(statistics_of(members[0]["class"], members, runner, whole=whole))
        groups = sorted({r["group"] for r in members if r["group"]})
        if len(groups) > 1:
            out += [statistics_of(members[0]["class"], [r for r in members if r["group"] == g], runner, g, whole)
                    for g in groups]
    return out


def unit_text(value, unit):
    return f"{value:g} {unit}" if unit != "%" else f"{value:g}%"


def error_text(value, unit):
    return f"{value:+.1f}%" if unit == "%" else f"{value:+.1f} points"


def verdict_text(verdict):
    return {WITHIN: "within band", KNOWN: "**known disagreement**"}.get(verdict, f"**{verdict}**")


def cell(text):
    """TEXT inside a Markdown table cell (a bar would end the cell)."""
    return str(text).replace("|", "\\|")


def summary_markdown(parts):
    lines = ["| class | cases | median \\|error\\| | above / below (median error) | worst | within target | "
             "known disagreements | to look at | target |", "|---|---|---|---|---|---|---|---|---|"]
    for p in parts:
        name = p["class"] + (f": {p['group']}" if p["group"] else "")
        median = error_text(p["median_abs_error"], p["error_unit"]).lstrip("+")
        if p["median_target"] is not None:
            median += " (target met)" if p["median_within_target"] else " (target **not met**)"
        lean = f"{p['above']} / {p['below']} ({error_text(p['median_signed_error'], p['error_unit'])})"
        lines.append(f"| {name} | {p['cases']} | {median} | {lean} | {error_text(p['worst_error'], p['error_unit'])} "
                     f"(`{p['worst_case']}`) | {p['within_target']} | {p['known_disagreements']} | "
                     f"{p['to_look_at']} | {cell(p['target']) if not p['group'] else ''} |")
    return "\n".join(lines) + "\n"


def cases_markdown(rows):
    lines = ["| class | case | quantity | published | predicted | error | band | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        band = f"±{r['band']:g}%" if r["error_unit"] == "%" else f"±{r['band']:g} points"
        lines.append(f"| {r['class']} | [{r['case']}]({r['source']}) | {cell(r['quantity'])} | "
                     f"{unit_text(r['published'], r['unit'])} | {unit_text(r['predicted'], r['unit'])} | "
                     f"{error_text(r['error'], r['error_unit'])} | {band} | {verdict_text(r['verdict'])} |")
    return "\n".join(lines) + "\n"


def markdown(parts, rows, selection=""):
    total = len(rows)
    within = sum(r["verdict"] == WITHIN for r in rows)
    known = sum(r["verdict"] == KNOWN for r in rows)
    return (f"{total} published cases{selection}: {within} within their class's band, {known} known disagreements "
            f"(each listed with its cause in its class's known-disagreements.json), {total - within - known} to look "
            f"at. Errors: relative (%) for collectives and single-GPU throughput, percentage points for "
            f"efficiencies and utilizations.\n\n"
            f"![Predicted against published, one panel per class](figures/{FIGURE})\n\n"
            f"{summary_markdown(parts)}\n{cases_markdown(rows)}")


def plot(classes, rows, path, selection=""):
    """One panel per class: predicted against published, y = x and the class's band(s); markers by verdict."""
    plt = pyplot()
    names = [r.CASE_CLASS for r, _, _ in classes]
    figure, axes = subplot_grid(plt, len(names), panel_width=6.0, panel_height=5.2)
    styles = {WITHIN: dict(marker="o", color="tab:blue", label="within band"),
              KNOWN: dict(marker="s", color="tab:orange", label="known disagreement", facecolors="none"),
              None: dict(marker="X", color="tab:red", label="to look at (regression or stale)")}
    for axis, name in zip(axes, names):
        members = [r for r in rows if r["class"] == name]
        relative = members[0]["error_unit"] == "%"
        values = [v for r in members for v in (r["published"], r["predicted"])]
        low, high = min(values), max(values)
        if relative:
            low, high = low / 1.6, high * 1.6
            axis.set_xscale("log")
            axis.set_yscale("log")
        else:
            low, high = max(0.0, low - 12), min(100.0 if high <= 100 else high + 12, high + 12)
        line = [low, high]
        axis.plot(line, line, color="black", linewidth=0.8, label="predicted = published")
        for band, dash in zip(sorted({r["band"] for r in members}), ("--", ":", "-.")):
            text = f"±{band:g}%" if relative else f"±{band:g} points"
            if relative:
                upper, lower = [v * (1 + band / 100) for v in line], [v * (1 - band / 100) for v in line]
            else:
                upper, lower = [v + band for v in line], [v - band for v in line]
            axis.plot(line, upper, color="grey", linestyle=dash, linewidth=0.8, label=f"band {text}")
            axis.plot(line, lower, color="grey", linestyle=dash, linewidth=0.8)
        for key, style in styles.items():
            picked = [r for r in members if (r["verdict"] if r["verdict"] in (WITHIN, KNOWN) else None) == key]
            if not picked:
                continue
            style = dict(style)
            faces = style.pop("facecolors", None)
            axis.scatter([r["published"] for r in picked], [r["predicted"] for r in picked], s=36, zorder=3,
                         facecolors=faces if faces else style["color"], edgecolors=style.pop("color"), **style)
        axis.set_xlim(low, high)
        axis.set_ylim(low, high)
        axis.set_aspect("equal", adjustable="box")
        units = sorted({r["unit"] for r in members})
        axis.set_xlabel(f"published ({', '.join(units)})")
        axis.set_ylabel(f"predicted ({', '.join(units)})")
        if len(units) > 1:  # a time among bandwidths (nccl-tests' small message): say which point it is
            for r in members:
                if r["unit"] == "us":
                    axis.annotate("time in us (the rest: busbw in GB/s)", (r["published"], r["predicted"]),
                                  xytext=(8, -4), textcoords="offset points", fontsize=8, ha="left", va="top")
        within = sum(r["verdict"] == WITHIN for r in members)
        known = sum(r["verdict"] == KNOWN for r in members)
        axis.set_title(f"{name}: {len(members)} cases, {within} within band, {known} known")
        axis.legend(loc="upper left", fontsize=8)
    figure.suptitle(f"dasim against published measurements (validation/){selection}")
    save_figure(figure, path)
    plt.close(figure)


def table_text(rows):
    shown = ["class", "case", "published", "predicted", "error", "verdict"]
    return aligned_table([{**r, "error": error_text(r["error"], r["error_unit"])} for r in rows], shown)


def main(argv, prog):
    args = parse_arguments(argv, prog)
    every = load_classes(args.folder)
    classes = select_cases(every, args.case)
    # A selected class is held to its median target only when all its cases ran.
    sizes = {runner.CASE_CLASS: len(cases) for runner, cases, _ in every}
    selection = f" (selected by --case from {sum(sizes.values())})" if args.case else ""
    whole_classes = {runner.CASE_CLASS for runner, cases, _ in classes if len(cases) == sizes[runner.CASE_CLASS]}
    rows = run_all(args.dasim, classes, args.jobs)
    parts = summaries(classes, rows, whole_classes)
    text = markdown(parts, rows, selection)
    os.makedirs(args.out, exist_ok=True)
    write_text(os.path.join(args.out, "suite.csv"), csv_text(rows, COLUMNS, format_cell))
    write_text(os.path.join(args.out, "suite.md"), text)
    write_json(os.path.join(args.out, "suite.json"), {"summary": parts, "cases": rows})
    plot(classes, rows, os.path.join(args.out, "suite.png"), selection)
    if args.docs:
        figures = os.path.join(os.path.dirname(os.path.abspath(args.docs)), "figures")
        os.makedirs(figures, exist_ok=True)
        plot(classes, rows, os.path.join(figures, FIGURE))
        before, begin, after = docs_parts(args.docs)
        write_text(args.docs, f"{before}{begin}\n*Generated by `validate-suite --docs`; do not edit by hand. "
                              f"Regenerate with:*\n\n    {COMMAND}\n\n{text}\n{after}")
    print(table_text(rows))
    print()
    for p in parts:
        name = p["class"] + (f" / {p['group']}" if p["group"] else "")
        print(f"{name}: {p['cases']} cases, median |error| "
              f"{error_text(p['median_abs_error'], p['error_unit']).lstrip('+')}, {p['above']} above / "
              f"{p['below']} below (median {error_text(p['median_signed_error'], p['error_unit'])}), worst "
              f"{error_text(p['worst_error'], p['error_unit'])} ({p['worst_case']}), {p['within_target']} within "
              f"target, {p['known_disagreements']} known disagreements, {p['to_look_at']} to look at")
    bad = sum(p["to_look_at"] for p in parts if not p["group"])
    print(f"{len(rows)} cases{selection}: {sum(p['within_target'] for p in parts if not p['group'])} within target, "
          f"{sum(p['known_disagreements'] for p in parts if not p['group'])} known disagreements, {bad} to look at")
    if bad:
        raise SystemExit(EXIT_FAILURE)
