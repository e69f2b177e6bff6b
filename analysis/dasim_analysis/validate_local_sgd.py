"""Predicts every published local-SGD / DiLoCo-family measurement of validation/local-sgd-family/ with
`dasim run` and compares: one row per case with the published and predicted compute utilization (the
share of the step the GPUs compute, the rest waiting for communication between the workers), the error
in percentage points and whether it is within target.

Target (docs/validation.md): every case within 10 points of compute utilization. A case outside is
either listed in known-disagreements.json with its cause, or a regression: the command then exits 1 (so
the test suite fails on a drift nobody explained). A listed case that now meets the target also exits 1.
"""

import os
import statistics
import tempfile

from .files import format_cell, write_json, write_text
from .validate_scaling import run_dasim, with_runnable_scenario
from .validation_cases import (STALE, WITHIN, aligned_table, case_paths, csv_text, expect, expect_identity, expect_texts,
                               finish, is_int, is_number, load_disagreements, parse_arguments, read_case, suite_entry,
                               verdict)

FOLDER = "local-sgd-family"
CASE_CLASS = "local_sgd_family"
CASE_KEYS = {"id", "class", "scenario", "quantity", "published", "as_printed", "source", "where", "framework",
             "notes"}
QUANTITY = "compute_utilization_pct"  # 100 x dasim's compute_s / iter_time_s
TEXT_KEYS = ("as_printed", "source", "where", "framework", "notes")
SCHEDULES = ("local_sgd", "dasgd", "diloco", "streaming_diloco")

CASE_TARGET_POINTS = 10.0
TARGET_TEXT = "every case within 10 points of compute utilization"
MEDIAN_TARGET = None


def check_scenario(case, path):
    """The checks dasim cannot make: one configuration of a periodic schedule on several nodes."""
    scenario = case["scenario"]
    expect(isinstance(scenario, dict), f"{path}: scenario", "expected an object (a dasim scenario without name)")
    expect("name" not in scenario, f"{path}: scenario.name", "not allowed: the runner names it after the case id")
    platforms = scenario.get("platforms")
    expect(isinstance(platforms, list) and len(platforms) == 1 and isinstance(platforms[0], dict),
           f"{path}: scenario.platforms", "expected exactly one platform")
    nodes = platforms[0].get("nodes")
    expect(isinstance(nodes, list) and len(nodes) == 1 and is_int(nodes[0]) and nodes[0] > 1,
           f"{path}: scenario.platforms[0].nodes", "expected one node count above 1 (several workers)")
    expect(isinstance(scenario.get("workloads"), list) and len(scenario["workloads"]) == 1,
           f"{path}: scenario.workloads", "expected exactly one workload")
    schedules = scenario.get("schedules")
    expect(isinstance(schedules, list) and len(schedules) == 1 and isinstance(schedules[0], dict),
           f"{path}: scenario.schedules", "expected exactly one schedule")
    expect(schedules[0].get("type") in SCHEDULES, f"{path}: scenario.schedules[0].type",
           f"expected one of {', '.join(SCHEDULES)}")
    if "sweep" in scenario:
        sweep = scenario["sweep"]
        expect(isinstance(sweep, dict) and isinstance(sweep.get("values"), list) and len(sweep["values"]) == 1,
               f"{path}: scenario.sweep.values", "expected exactly one value (one configuration per case)")


def load_case(path):
    case = read_case(path, CASE_KEYS)
    expect_identity(case, path, CASE_CLASS, QUANTITY)
    expect(is_number(case["published"]) and 0 < case["published"] <= 100, f"{path}: published",
           "expected a compute utilization in percent, above 0 and at most 100")
    expect_texts(case, path, TEXT_KEYS)
    check_scenario(case, path)
    return with_runnable_scenario(case, path)


def load(directory):
    """(cases, known disagreements) of DIRECTORY, every file checked before anything runs."""
    cases = [load_case(path) for path in case_paths(directory)]  # ids are unique: each is its file's name
    return cases, load_disagreements(directory, cases)


def compare(case, result, disagreements):
    predicted = 100 * result["compute_s"] / result["iter_time_s"]
    error = predicted - case["published"]
    within = abs(error) <= CASE_TARGET_POINTS
    scenario = case["scenario"]
    schedule = scenario["schedules"][0]
    sweep = scenario.get("sweep", {})
    return {"id": case["id"], "schedule": schedule["type"], "gpus": int(result["gpus"]),
            "sweep": f"{sweep['parameter']} {sweep['values'][0]}" if sweep else "",
            "published": case["published"], "predicted": round(predicted, 2), "error_points": round(error, 2),
            "target_points": CASE_TARGET_POINTS, "verdict": verdict(within, case["id"] in disagreements),
            "iter_time_s": result["iter_time_s"], "compute_s": result["compute_s"],
            "exposed_comm_s": result["exposed_comm_s"], "algorithms_used": result["algorithms_used"],
            "cause": disagreements.get(case["id"], ""), "source": case["source"]}


def evaluate(dasim, case, disagreements, scratch):
    """CASE's row: one `dasim run` of its scenario (written to SCRATCH)."""
    return compare(case, run_dasim(dasim, case, scratch), disagreements)


def suite_row(row):
    what = f"compute utilization ({row['schedule']}, {row['gpus']} GPUs" + (f", {row['sweep']})" if row["sweep"]
                                                                             else ")")
    return suite_entry(CASE_CLASS, row, what, "%", row["error_points"], "points", row["target_points"])


COLUMNS = ["id", "schedule", "gpus", "sweep", "published", "predicted", "error_points", "target_points", "verdict",
           "iter_time_s", "compute_s", "exposed_comm_s", "algorithms_used", "cause", "source"]


def summary(rows):
    errors = [abs(r["error_points"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["error_points"]))
    return {"cases": len(rows), "median_abs_error_points": round(statistics.median(errors), 2),
            "worst_id": worst["id"], "worst_error_points": worst["error_points"],
            "case_target_points": CASE_TARGET_POINTS,
            "within_case_target": sum(r["verdict"] in (WITHIN, STALE) for r in rows)}


def summary_text(s):
    return (f"median |error| {s['median_abs_error_points']:g} points; worst {s['worst_error_points']:+.1f} "
            f"({s['worst_id']}); within {s['case_target_points']:g} points: {s['within_case_target']} of {s['cases']}")


def table_text(rows):
    return aligned_table(rows, ["id", "gpus", "sweep", "published", "predicted", "error_points", "verdict"])


def markdown(rows, s):
    lines = ["| case | schedule | GPUs | setting | published | predicted | error (points) | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| [{r['id']}]({r['source']}) | {r['schedule']} | {r['gpus']} | {r['sweep']} | "
                     f"{r['published']:.1f}% | {r['predicted']:.1f}% | {r['error_points']:+.1f} | {r['verdict']} |")
    return "\n".join(lines) + "\n\n" + summary_text(s) + "\n"


def main(argv, prog):
    args = parse_arguments(argv, prog, __doc__.split("\n\n")[0], FOLDER)
    cases, disagreements = load(args.cases)
    with tempfile.TemporaryDirectory(prefix="dasim-validate-local-sgd-") as scratch:
        rows = [evaluate(args.dasim, case, disagreements, scratch) for case in cases]
    totals = summary(rows)
    print(table_text(rows))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_text(os.path.join(args.out, f"{FOLDER}.csv"), csv_text(rows, COLUMNS, format_cell))
        write_text(os.path.join(args.out, f"{FOLDER}.md"), markdown(rows, totals))
        write_json(os.path.join(args.out, f"{FOLDER}.json"), {"summary": totals, "cases": rows})
    print(f"\n{summary_text(totals)}")
    finish(rows)
