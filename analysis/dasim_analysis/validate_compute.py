"""Predicts every published single-GPU training throughput of validation/compute/ with `dasim workload
show ... --calibration` and compares: one row per case with the published and predicted samples/s, the
error and whether it is within the class's target (docs/validation.md).

Targets (issue 16): every case within 20%, and the median |error| over the cases within 10%. A case
outside 20% is either listed in known-disagreements.json with its cause, or a regression: the command
then exits 1 (so the test suite fails on a drift nobody explained). A listed case that now meets the
target also exits 1: the list must say what is true today. The median is reported, not enforced.
"""

import json
import os
import statistics
import subprocess

from .errors import EXIT_FAILURE, fail
from .files import format_cell, write_json, write_text
from .validation_cases import (aligned_table, case_paths, csv_text, expect, expect_identity, expect_texts, finish, is_int,
                               is_number, load_disagreements, parse_arguments, read_case, suite_entry, verdict)

FOLDER = "compute"
TARGET_TEXT = "every case within 20%, median |error| <= 10% (issue 16)"

CASE_KEYS = {"id", "class", "gpu", "calibration", "workload", "seq_len", "batch_per_gpu", "precision", "fusion",
             "optimizer", "quantity", "published", "as_printed", "source", "where", "framework", "data", "notes"}
# memory_format: the activations' layout where the source states it and it matters (convolutions on
# tensor cores); absent, channels_last (no layout transposes). grad_clip: the global-norm gradient
# clipping the training script runs before the update; absent, none. zero_grad: how the script
# clears the gradients between steps; absent, set_to_none (nothing to charge).
# activation_checkpointing: blocks where the script recomputes each block's forward in the backward;
# absent, none.
OPTIONAL_KEYS = frozenset({"memory_format", "grad_clip", "zero_grad", "activation_checkpointing"})
MEMORY_FORMATS = {"channels_last", "nchw"}
CASE_CLASS = "single_gpu_step"
QUANTITY = "samples_per_s"
# dasim's built-in workloads -> whether they take a sequence length (--seq-len). A case may name a
# workload file instead ("....json", relative to the case file).
WORKLOADS = {"resnet50": False, "resnet101": False, "resnet152": False, "inception-v3": False, "vgg16": False,
             "bert-large": True, "gpt2-xl": True}
IMAGE_MODELS = frozenset(name for name, takes_sequence in WORKLOADS.items() if not takes_sequence)
PRECISIONS = {"fp32", "tf32", "fp16", "bf16", "amp", "amp_bf16"}
FUSIONS = {"none", "bn_relu"}
OPTIMIZERS = {"sgd_momentum", "adam", "lamb", "bert_adam"}
GRAD_CLIPS = {"none", "norm", "norm_and_scale"}
ZERO_GRADS = {"set_to_none", "zero", "fill_only"}
ACTIVATION_CHECKPOINTING = {"none", "blocks"}
TEXT_KEYS = ("gpu", "as_printed", "source", "where", "framework", "data", "notes")
# The `step` object of `dasim workload show --calibration ... --format json`: the keys read (numbers), and
# those copied into the table when dasim prints them.
STEP_KEYS = ("batch", "step_s", "samples_per_s")
STEP_DETAIL_KEYS = ("forward_s", "backward_s", "recompute_s", "update_s", "overhead_s", "input_wait_s",
                    "compute_precision", "fell_back_to_fp32")

# Targets (issue 16).
CASE_TARGET_PCT = 20.0
MEDIAN_TARGET_PCT = 10.0
MEDIAN_TARGET = MEDIAN_TARGET_PCT  # the suite's name for it


def expect_one_of(case, key, names, path):
    """A name from NAMES (a JSON string: a list or object would not even be hashable)."""
    expect(isinstance(case[key], str) and case[key] in names, f"{path}: {key}",
           f"expected one of {', '.join(sorted(names))}")


def load_workload_file(case, path):
    """A workload file, relative to the case: one that dasim's built-ins cannot state (micro-batches of
    several lengths: docs/workloads.md). Its samples must be sequences (the table's unit)."""
    workload = os.path.normpath(os.path.join(os.path.dirname(path), case["workload"]))
    expect(os.path.isfile(workload), f"{path}: workload", f"no such file {workload}")
    try:
        with open(workload) as f:
            sample = json.load(f).get("sample_name")
    except (OSError, ValueError, AttributeError):
        sample = None
    expect(sample == "sequence", f"{path}: workload",
           f"expected a built-in name or a workload file of sequences ({workload})")
    case["workload_path"] = workload


def load_case(path):
    case = read_case(path, CASE_KEYS, OPTIONAL_KEYS)
    case.setdefault("memory_format", "channels_last")
    case.setdefault("grad_clip", "none")
    case.setdefault("zero_grad", "set_to_none")
    case.setdefault("activation_checkpointing", "none")
    expect_identity(case, path, CASE_CLASS, QUANTITY)
    expect_texts(case, path, TEXT_KEYS)
    if isinstance(case["workload"], str) and case["workload"].endswith(".json"):
        load_workload_file(case, path)
    else:
        expect_one_of(case, "workload", WORKLOADS, path)
    if case.get("workload_path"):
        expect(case["seq_len"] is None, f"{path}: seq_len",
               "expected null (a workload file fixes its own sequence lengths)")
    elif WORKLOADS[case["workload"]]:
        expect(case["seq_len"] is None or (is_int(case["seq_len"]) and case["seq_len"] > 0), f"{path}: seq_len",
               "expected a positive integer or null (the workload's default)")
    else:
        expect(case["seq_len"] is None, f"{path}: seq_len",
               f"expected null ({case['workload']} takes no sequence length)")
    expect(is_int(case["batch_per_gpu"]) and case["batch_per_gpu"] > 0, f"{path}: batch_per_gpu",
           "expected a positive integer")
    for key, names in (("precision", PRECISIONS), ("fusion", FUSIONS), ("memory_format", MEMORY_FORMATS),
                       ("optimizer", OPTIMIZERS), ("grad_clip", GRAD_CLIPS), ("zero_grad", ZERO_GRADS),
                       ("activation_checkpointing", ACTIVATION_CHECKPOINTING)):
        expect_one_of(case, key, names, path)
    expect(is_number(case["published"]) and case["published"] > 0, f"{path}: published",
           "expected a positive number")
    expect(isinstance(case["calibration"], str) and case["calibration"], f"{path}: calibration",
           "expected the path of a calibration file, relative to the case file")
    calibration = os.path.normpath(os.path.join(os.path.dirname(path), case["calibration"]))
    expect(os.path.isfile(calibration), f"{path}: calibration", f"no such file {calibration}")
    case["calibration_path"] = calibration
    case["file"] = path
    return case


def load_cases(directory):
    cases = [load_case(path) for path in case_paths(directory)]
    return cases  # ids are unique: each is its file's name


def command_for(dasim, case):
    command = [dasim, "workload", "show", case.get("workload_path") or case["workload"], "--batch", str(case["batch_per_gpu"]),
               "--precision", case["precision"], "--calibration", case["calibration_path"],
               "--fusion", case["fusion"], "--memory-format", case["memory_format"], "--optimizer", case["optimizer"]]
    if case["grad_clip"] != "none":
        command += ["--grad-clip", case["grad_clip"]]
    if case["zero_grad"] != "set_to_none":
        command += ["--zero-grad", case["zero_grad"]]
    if case["activation_checkpointing"] != "none":
        command += ["--activation-checkpointing", case["activation_checkpointing"]]
    if case["seq_len"] is not None:
        command += ["--seq-len", str(case["seq_len"])]
    return command + ["--format", "json"]


def predict(dasim, case):
    """The `step` object dasim prints for CASE (its keys STEP_KEYS, numbers)."""
    done = subprocess.run(command_for(dasim, case), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    what = f"{case['file']}: dasim workload show"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        fail(f"{what} failed (status {done.returncode}): {last}", EXIT_FAILURE)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        fail(f"{what} printed no JSON ({error.msg} at line {error.lineno})", EXIT_FAILURE)
    step = report.get("step") if isinstance(report, dict) else None
    if not isinstance(step, dict):
        fail(f"{what} printed no 'step' object (a dasim without --calibration?)", EXIT_FAILURE)
    missing = [k for k in STEP_KEYS if not is_number(step.get(k))]
    if missing:
        fail(f"{what}: step lacks numbers for {', '.join(missing)}", EXIT_FAILURE)
    if step["batch"] != case["batch_per_gpu"]:
        fail(f"{what}: step.batch is {step['batch']}, expected {case['batch_per_gpu']}", EXIT_FAILURE)
    if not step["samples_per_s"] > 0:
        fail(f"{what}: step.samples_per_s is {step['samples_per_s']}, expected > 0", EXIT_FAILURE)
    return step


def compare(case, step, disagreements):
    predicted = step["samples_per_s"]
    error = (predicted - case["published"]) / case["published"] * 100
    within = abs(error) <= CASE_TARGET_PCT
    return {"id": case["id"], "gpu": case["gpu"], "workload": case["workload"],
            "seq_len": "" if case["seq_len"] is None else case["seq_len"], "precision": case["precision"],
            "fusion": case["fusion"], "memory_format": case["memory_format"], "optimizer": case["optimizer"],
            "grad_clip": case["grad_clip"], "zero_grad": case["zero_grad"],
            "activation_checkpointing": case["activation_checkpointing"], "batch": case["batch_per_gpu"], "published": case["published"],
            "predicted": round(predicted, 3), "error_pct": round(error, 1), "target_pct": CASE_TARGET_PCT,
            "verdict": verdict(within, case["id"] in disagreements), "step_s": step["step_s"],
            **{k: step.get(k, "") for k in STEP_DETAIL_KEYS},
            "calibration": case["calibration"], "cause": disagreements.get(case["id"], ""),
            "source": case["source"]}


COLUMNS = ["id", "gpu", "workload", "seq_len", "precision", "fusion", "memory_format", "optimizer", "grad_clip", "zero_grad",
           "activation_checkpointing", "batch", "published", "predicted",
           "error_pct", "target_pct", "verdict", "step_s", *STEP_DETAIL_KEYS, "calibration", "cause", "source"]


def summary(rows):
    errors = [abs(r["error_pct"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["error_pct"]))
    median = statistics.median(errors)
    return {"cases": len(rows), "median_abs_error_pct": round(median, 1), "median_target_pct": MEDIAN_TARGET_PCT,
            "median_within_target": median <= MEDIAN_TARGET_PCT, "worst_id": worst["id"],
            "worst_error_pct": worst["error_pct"], "case_target_pct": CASE_TARGET_PCT,
            "within_case_target": sum(e <= CASE_TARGET_PCT for e in errors)}


def summary_text(s):
    met = "met" if s["median_within_target"] else "NOT met"
    return (f"median |error| {s['median_abs_error_pct']:g}% (target {s['median_target_pct']:g}%: {met}); "
            f"worst {s['worst_error_pct']:+.1f}% ({s['worst_id']}); "
            f"within {s['case_target_pct']:g}%: {s['within_case_target']} of {s['cases']}")


def table_text(rows):
    return aligned_table(rows, ["id", "precision", "batch", "published", "predicted", "error_pct", "verdict"])


def unit(workload):
    return "img/s" if workload in IMAGE_MODELS else "seq/s"


def within_text(case_verdict):
    return {"within target": "yes", "known disagreement": "no (known disagreement)",
            "stale: listed as a disagreement but within target": "yes (listed as a disagreement: stale)"}.get(
                case_verdict, "no: REGRESSION")


def markdown(rows, s):
    lines = ["| case | gpu | workload | precision | batch | published | predicted | error % | within target |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        workload = r["workload"] + (f" (s={r['seq_len']})" if r["seq_len"] != "" else "")
        lines.append(f"| [{r['id']}]({r['source']}) | {r['gpu']} | {workload} | {r['precision']} | {r['batch']} | "
                     f"{r['published']:g} {unit(r['workload'])} | {r['predicted']:.4g} {unit(r['workload'])} | "
                     f"{r['error_pct']:+.1f}% | {within_text(r['verdict'])} |")
    return "\n".join(lines) + "\n\n" + summary_text(s) + "\n"


def load(directory):
    """(cases, known disagreements) of DIRECTORY, every file checked before anything runs."""
    cases = load_cases(directory)
    return cases, load_disagreements(directory, cases)


def evaluate(dasim, case, disagreements, scratch=None):
    """CASE's row: one `dasim workload show --calibration` run."""
    return compare(case, predict(dasim, case), disagreements)


def suite_row(row):
    precision = row["precision"] + (f", s={row['seq_len']}" if row["seq_len"] != "" else "")
    return suite_entry(CASE_CLASS, row, f"samples/s ({row['workload']}, {precision}, batch {row['batch']})",
                       unit(row["workload"]), row["error_pct"], "%", row["target_pct"])


def main(argv, prog):
    args = parse_arguments(argv, prog, __doc__.split("\n\n")[0], "compute")
    cases, disagreements = load(args.cases)
    rows = [evaluate(args.dasim, case, disagreements) for case in cases]
    totals = summary(rows)
    print(table_text(rows))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_text(os.path.join(args.out, "compute.csv"), csv_text(rows, COLUMNS, format_cell))
        write_text(os.path.join(args.out, "compute.md"), markdown(rows, totals))
        write_json(os.path.join(args.out, "compute.json"), {"summary": totals, "cases": rows})
    print(f"\n{summary_text(totals)}")
    finish(rows)
