"""Loading and validating a dasim results.csv, the input of every figure and comparison.

Every command reads a dasim results.csv (simulated or measured rows, the schema of
base/results/result_row.hpp). A wrong file must stop the command before it draws anything, with
one line naming the file and the problem and exit status 2 (the project's bad-input convention),
so the validation is done here once for all of them.
"""

import math
import re

import pandas as pd

from .errors import fail

# Time to a target loss (docs/time-to-accuracy.md): numbers where the scenario names a convergence
# file (dasim-train: the steps its run took), empty cells where it does not or the target was not
# reached; files written before them lack them. Read as numbers, an empty cell as NaN.
CONVERGENCE_COLUMNS = ["steps_to_target", "time_to_target_s"]
# The C++ kResultColumns (base/results/result_row.hpp), in its order; extra sweep columns may
# follow. tests/cli/results_schema.sh checks that a `dasim run` header is exactly this list.
RESULT_COLUMNS = [
    "scenario", "platform", "workload", "precision", "compute_precision", "fusion", "schedule", "tau",
    "delay", "schedule_detail", "bucket_cap_bytes", "collective", "algorithms_used", "progress",
    "granularity", "nodes", "gpus", "simulated_nodes", "not_folded_because",
    "batch_per_gpu", "iterations", "warmup",
    "iter_time_s", "samples_per_s", "baseline_gpus", "baseline_samples_per_s", "speedup",
    "efficiency", "compute_s", "compute_slowdown_s", "comm_s", "exposed_comm_s", "comm_max_s",
    "exposed_comm_max_s", "input_wait_s", "source", "calibration", "calibration_sha256",
] + CONVERGENCE_COLUMNS
# The throughput column's name before it was samples_per_s (it read as a time next to the _s
# columns); files written then are read under the new name.
OLD_NAMES = {"throughput_samples_s": "samples_per_s"}
# Columns a file written before them lacks, with what they hold then: schedule_detail is derived;
# compute_slowdown_s is not known (empty, as in measured rows); every baseline was 1 GPU; the rest
# were not recorded (empty): simulated_nodes among them (every node was simulated then), and
# input_wait_s (a loader's wait was then part of compute_s).
OPTIONAL_COLUMNS = {
    "schedule_detail": None, "compute_slowdown_s": "", "precision": "", "compute_precision": "",
    "fusion": "", "bucket_cap_bytes": "", "progress": "", "granularity": "", "iterations": "",
    "warmup": "", "baseline_gpus": "1", "baseline_samples_per_s": "", "calibration_sha256": "",
    "steps_to_target": "", "time_to_target_s": "", "simulated_nodes": "", "not_folded_because": "",
    "input_wait_s": "",
}
# What a results file must have.
REQUIRED_COLUMNS = [c for c in RESULT_COLUMNS if c not in OPTIONAL_COLUMNS]
INTEGER_COLUMNS = ["tau", "delay", "nodes", "gpus", "batch_per_gpu", "baseline_gpus"]
FLOAT_COLUMNS = [
    "iter_time_s", "samples_per_s", "baseline_samples_per_s", "speedup", "efficiency", "compute_s",
    "compute_slowdown_s", "comm_s", "exposed_comm_s", "comm_max_s", "exposed_comm_max_s", "input_wait_s",
]
# Configuration numbers that may be empty (not recorded, or no gradient buckets): kept as text so
# an empty cell is a value of its own when rows are grouped into curves (NaN would drop the rows).
OPTIONAL_NUMBER_COLUMNS = ["bucket_cap_bytes", "iterations", "warmup"]
# Empty when not known: the executor's speedup and efficiency without a 1-rank baseline, its
# compute slowdown (a measurement cannot tell it apart from the compute) and its input wait (the
# executor times its steps with the loading in them).
UNKNOWABLE_COLUMNS = ["baseline_samples_per_s", "speedup", "efficiency", "compute_slowdown_s", "input_wait_s"]
SCHEDULES = ["sgd", "local_sgd", "dasgd", "diloco", "streaming_diloco"]
# Columns that are results rather than configuration: they never distinguish one curve from another.
# algorithms_used too: with algorithm auto it changes along a curve (tree on few GPUs, ring on many);
# compute_precision follows precision and the calibration, and calibration_sha256 the calibration;
# simulated_nodes and not_folded_because are how the run was simulated (2 for every folded node
# count; why not), not what it models.
METRIC_COLUMNS = (set(FLOAT_COLUMNS) | set(CONVERGENCE_COLUMNS) |
                  {"algorithms_used", "compute_precision", "calibration_sha256", "simulated_nodes",
                   "not_folded_because"})


def _missing_columns_message(path, missing):
    return f"{path}: missing column(s) {', '.join(missing)} (is this a dasim results.csv?)"


# Gradient accumulation: schedule_detail names a step's micro-batches (`sgd(accumulate=4)`,
# `local_sgd(tau=4,accumulate=2)`). load_results splits them out as accumulation_steps (1 without)
# and samples_per_step (GPUs x batch x steps) and leaves schedule_detail naming the schedule alone:
# under a scenario's global_batch (strong scaling) one schedule accumulates differently at every
# GPU count and is still one curve (curves.py).
DERIVED_COLUMNS = ["accumulation_steps", "samples_per_step"]
_ACCUMULATE = re.compile(r",?accumulate=(\d+)")


def _split_accumulation(frame):
    details = [str(d) for d in frame["schedule_detail"]]
    frame["accumulation_steps"] = [int(m.group(1)) if (m := _ACCUMULATE.search(d)) else 1 for d in details]
    frame["schedule_detail"] = [_ACCUMULATE.sub("", d).replace("()", "") for d in details]
    frame["samples_per_step"] = frame["gpus"] * frame["batch_per_gpu"] * frame["accumulation_steps"]


def load_results(path, extra_numeric=()):
    """Loads and validates a results CSV; returns a DataFrame with numeric columns converted.

    extra_numeric: sweep columns the caller needs as numbers (e.g. a bandwidth column); they must
    be present too. Values may be plain numbers or SimGrid-style bandwidths ("25GBps", "100Gbps").
    """
    try:
        # Read everything as text first so a bad cell can be reported with its line number
        # instead of silently becoming NaN.
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        fail(f"{path}: cannot read: no such file")
    except pd.errors.EmptyDataError:
        fail(_missing_columns_message(path, REQUIRED_COLUMNS + list(extra_numeric)))
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        fail(f"{path}: cannot parse as CSV: {first_line} (is this a dasim results.csv?)")

    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.rename(columns={old: new for old, new in OLD_NAMES.items() if new not in frame.columns})
    if "schedule_detail" not in frame.columns and "schedule" in frame.columns:
        # Results written before the DiLoCo family had no schedule_detail: their schedules are
        # described by schedule, tau and delay alone.
        frame["schedule_detail"] = [_detail_of(row) for row in frame.to_dict("records")]
    for column, value in OPTIONAL_COLUMNS.items():
        if column not in frame.columns and value is not None:
            frame[column] = value
    required = REQUIRED_COLUMNS + [c for c in extra_numeric if c not in RESULT_COLUMNS]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        fail(_missing_columns_message(path, missing))
    if frame.empty:
        fail(f"{path}: no result rows after the header (is this a dasim results.csv?)")

    for column in INTEGER_COLUMNS + FLOAT_COLUMNS:
        frame[column] = _numeric_column(path, frame, column, parse_number,
                                        allow_empty=column in UNKNOWABLE_COLUMNS)
    for column in OPTIONAL_NUMBER_COLUMNS:
        _numeric_column(path, frame, column, parse_number, allow_empty=True)  # checked, kept as text
    for column in extra_numeric:
        frame[column] = _numeric_column(path, frame, column, parse_bandwidth_Bps)
    for column in CONVERGENCE_COLUMNS:
        frame[column] = _numeric_column(path, frame, column, parse_number, allow_empty=True)
        _check(path, frame, column, lambda v: math.isnan(v) or v >= 0, "a non-negative number or empty")
    for column in frame.columns:
        if column not in RESULT_COLUMNS and column not in extra_numeric:
            # Extra sweep columns that are all numbers become numbers, so curves sort 10 < 100.
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().all():
                frame[column] = converted
    for column in INTEGER_COLUMNS:
        _check(path, frame, column, lambda v: float(v).is_integer(), "a whole number")
        frame[column] = frame[column].astype(int)
    _check(path, frame, "gpus", lambda v: v >= 1, "at least 1")
    _check(path, frame, "iter_time_s", lambda v: v > 0, "a positive time")
    for column in ["compute_s", "compute_slowdown_s", "comm_s", "exposed_comm_s", "comm_max_s",
                   "exposed_comm_max_s", "input_wait_s"]:
        _check(path, frame, column, lambda v: math.isnan(v) or v >= 0, "a non-negative time")
    for line, value in _lines(frame, "schedule"):
        if value not in SCHEDULES:
            fail(f"{path}: line {line}: column schedule: expected one of {', '.join(SCHEDULES)}, "
                 f"got '{value}'")
    _split_accumulation(frame)
    return frame


def _detail_of(row):
    schedule, tau, delay = row.get("schedule"), row.get("tau", ""), row.get("delay", "")
    if schedule == "local_sgd":
        return f"local_sgd(tau={tau})"
    if schedule == "dasgd":
        return f"dasgd(tau={tau},d={delay})"
    return schedule


def _lines(frame, column):
    # Line 1 is the header, so data row i is on line i + 2.
    return ((index + 2, value) for index, value in enumerate(frame[column].tolist()))


def _numeric_column(path, frame, column, parser, allow_empty=False):
    values = []
    for line, text in _lines(frame, column):
        if allow_empty and text.strip() == "":
            values.append(math.nan)  # not known (a measured run without a baseline)
            continue
        try:
            value = parser(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            fail(f"{path}: line {line}: column {column}: expected a number, got '{text}'")
        values.append(value)
    return pd.Series(values, index=frame.index, dtype=float)


def _check(path, frame, column, predicate, expected):
    for line, value in _lines(frame, column):
        if not predicate(value):
            fail(f"{path}: line {line}: column {column}: expected {expected}, got {value:g}")


def parse_number(text):
    return float(text.strip())


_BANDWIDTH = re.compile(r"^\s*([0-9.eE+-]+)\s*([kKMGTP]?i?)(Bps|bps)?\s*$")
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
           "ki": 2.0**10, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}


def parse_bandwidth_Bps(text):
    """Bytes per second from a plain number or a SimGrid-style string ("25GBps"; "bps" is bits)."""
    match = _BANDWIDTH.match(text)
    if not match or match.group(2) not in _PREFIX or (match.group(2) and not match.group(3)):
        raise ValueError(text)
    value = float(match.group(1)) * _PREFIX[match.group(2)]
    return value / 8.0 if match.group(3) == "bps" else value
