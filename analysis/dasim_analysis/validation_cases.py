"""What the validation runners (validate_collectives, validate_compute, validate_scaling, validate_local_sgd)
share: reading a folder of published cases, each one JSON file with exactly the keys its class defines, the
list of known disagreements with their causes, the CSV of the comparison, and the verdict that decides the
exit status (a case outside its target that nobody explained, or one listed but now within, fails).

Each runner module also offers the suite (validate_suite) the same four names:
  FOLDER                the folder of validation/ its cases live in
  load(directory)       (cases, disagreements), refusing a bad input (one line, exit 2) before any run
  evaluate(dasim, case, disagreements, scratch)   the runner's own row for one case (one prediction)
  suite_row(row)        that row in the suite's common columns (suite_entry below)
"""

import argparse
import csv
import io
import json
import os

from .errors import EXIT_FAILURE, fail
from .fidelity_common import DEFAULT_BIN_DIR

DISAGREEMENTS_FILE = "known-disagreements.json"
WITHIN = "within target"
KNOWN = "known disagreement"
STALE = "stale: listed as a disagreement but within target"


def parse_arguments(argv, prog, description, folder):
    """--dasim (checked to be an executable), --cases (default: validation/FOLDER of the
    repository) and --out (FOLDER.csv, FOLDER.md, FOLDER.json go there)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    source = os.path.dirname(os.path.dirname(DEFAULT_BIN_DIR))
    parser.add_argument("--dasim", default=os.path.join(DEFAULT_BIN_DIR, "dasim"), help="the dasim binary")
    parser.add_argument("--cases", default=os.path.join(source, "validation", folder),
                        help=f"folder of case files (default: the repository's validation/{folder})")
    parser.add_argument("--out", help=f"folder for {folder}.csv, {folder}.md and {folder}.json")
    args = parser.parse_args(argv)
    if not (os.path.isfile(args.dasim) and os.access(args.dasim, os.X_OK)):
        fail(f"--dasim: {args.dasim} is not an executable (build first, or name it)")
    return args


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def verdict(within, listed):
    """A case's verdict from whether it meets its target and whether known-disagreements.json lists it."""
    if within:
        return STALE if listed else WITHIN
    return KNOWN if listed else "REGRESSION: outside target, cause not listed"


def expect(condition, path, what):
    if not condition:
        fail(f"{path}: {what}")


def read_case(path, keys, optional=frozenset()):
    """The case object of `path`, refused (one line, exit 2) unless it has every one of `keys` and
    nothing else but `optional` ones."""
    try:
        with open(path) as f:
            case = json.load(f)
    except OSError as error:
        fail(f"{path}: cannot read: {error.strerror}")
    except json.JSONDecodeError as error:
        fail(f"{path}: not JSON ({error.msg} at line {error.lineno})")
    expect(isinstance(case, dict), path, "expected an object")
    missing, unknown = keys - case.keys(), case.keys() - keys - optional
    expect(not missing, path, f"missing keys {', '.join(sorted(missing))}")
    expect(not unknown, path, f"unknown keys {', '.join(sorted(unknown))}")
    return case


def expect_identity(case, path, case_class, quantity):
    """A case file names itself (`id` is the file name without .json), its class and its quantity: the
    suite groups its rows and bands by class and case id, and compares the quantity its class predicts."""
    stem = os.path.splitext(os.path.basename(path))[0]
    expect(case["id"] == stem, f"{path}: id", f"expected the file name without .json ({stem})")
    expect(case["class"] == case_class, f"{path}: class", f"expected {case_class}")
    expect(case["quantity"] == quantity, f"{path}: quantity", f"expected {quantity}")


def expect_texts(case, path, keys):
    """The citation fields a reader checks the case against: each a non-empty text."""
    for key in keys:
        expect(isinstance(case[key], str) and case[key].strip(), f"{path}: {key}", "expected a non-empty text")


def case_paths(directory):
    if not os.path.isdir(directory):
        fail(f"{directory}: not a folder of validation cases")
    names = sorted(n for n in os.listdir(directory) if n.endswith(".json") and n != DISAGREEMENTS_FILE)
    if not names:
        fail(f"{directory}: no case files (*.json)")
    return [os.path.join(directory, n) for n in names]


def load_disagreements(directory, cases):
    path = os.path.join(directory, DISAGREEMENTS_FILE)
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            listed = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        fail(f"{path}: cannot read as JSON: {error}")
    expect(isinstance(listed, dict), path, "expected an object: case id -> cause")
    known = {c["id"] for c in cases}
    for case_id, cause in listed.items():
        expect(case_id in known, f"{path}: {case_id}", "no case has this id")
        expect(isinstance(cause, str) and cause.strip(), f"{path}: {case_id}", "expected the cause as text")
    return listed


def suite_entry(class_name, row, quantity, unit, error, error_unit, band, group=""):
    """One case in the suite's common columns. ERROR is signed, in ERROR_UNIT ("%": relative to the
    published figure; "points": percentage points), rounded as the runner's row has it; BAND is the
    largest |error| the class's target allows; within_band is the runner's verdict (from the unrounded
    error)."""
    return {"class": class_name, "group": group, "case": row["id"], "quantity": quantity, "unit": unit,
            "published": row["published"], "predicted": row["predicted"], "error": error, "error_unit": error_unit,
            "band": band, "within_band": row["verdict"] in (WITHIN, STALE), "verdict": row["verdict"],
            "cause": row["cause"],
            "source": row["source"]}


def aligned_table(rows, columns):
    """`columns` of `rows` as left-aligned text columns under a header line, for the terminal."""
    cells = [{c: str(r[c]) for c in columns} for r in rows]
    widths = {c: max(len(c), *(len(cell[c]) for cell in cells)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines += ["  ".join(cell[c].ljust(widths[c]) for c in columns) for cell in cells]
    return "\n".join(lines)


def csv_text(rows, columns, cell=lambda value: value):
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: cell(v) for k, v in r.items()} for r in rows)
    return stream.getvalue()


def finish(rows):
    """Prints the verdict counts; exits 1 when a case is neither within target nor explained."""
    met = sum(r["verdict"] == WITHIN for r in rows)
    known = sum(r["verdict"] == KNOWN for r in rows)
    bad = len(rows) - met - known
    print(f"{len(rows)} cases: {met} within target, {known} known disagreements, {bad} to look at")
    if bad:
        raise SystemExit(EXIT_FAILURE)
