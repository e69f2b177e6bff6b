"""Predicted vs measured on this machine: close the loop between dasim and dasim-train.

First asks dasim-train for its plan of each schedule's run (--print-plan: the message sizes and
the timed window, as the executor will use them). Then runs, in order (every step's command and
output lands in OUT):
  1. `dasim calibrate --device cpu [--quick]`            -> OUT/calibration.json
  2. for each MPI call the executor makes (EXECUTOR_CALLS), an OSU-style sweep with
     `dasim-mpi-allreduce-bench` under the same mpirun arguments as the executor, up to the
     largest message and at the messages themselves  -> OUT/allreduce_npN_CALL.log
  3. --repeats times, interleaved so load drifts hit inputs and measurements alike:
     a. `dasim-train --profile` of the model at each rank count (all ranks training;
        --profile-at 1 profiles one rank alone)          -> OUT/runs/workload_npN_rR.json
     b. each call timed again at the message sizes, the DaSGD one polled as the executor polls it
        (a poll after each of a.'s layers, run as their own GEMMs, its update before the wait,
        tau - d local steps between averages, ranks free-running; launched POLLED_LAUNCHES times)
                                                          -> OUT/runs/allreduce_npN_CALL_rR.log
     c. the executor for every rank count and schedule  -> OUT/runs/SCHEDULE_npN_rR.json
  4. per call, `dasim fit-links` on the per-size medians of 2. and 3b., around the messages only
                                                          -> OUT/links_npN_CALL.json
     and one platform file per rank count and call: 1 node, N "GPUs" = CPU ranks, every rank on
     a switch port whose figures reproduce the fitted time -> OUT/localhost-shm-N-CALL.json
  5. the prediction's compute: per layer, the median of the profiles -> OUT/workload_npN.json;
     from the profile runs' per-rank steps, how much slower each rank runs than the fastest for a
     whole run (rank_speeds: the scenario's stragglers, from the run with the median spread) and
     how far the ranks drift apart beyond that between two synchronisations of the schedule
     (rank_jitter: the scenario's jitter.stddev)
  6. `dasim run` of a generated scenario per rank count and schedule with the identical
     configuration (dasim-train's steps and timed window), the platform of the schedule's MPI call
     and collective.progress = --progress (default polled_rounds)
                                                          -> OUT/scenario_npN_SCHEDULE.json,
                                                             OUT/sim_npN_SCHEDULE/,
                                                             OUT/predicted.csv (all rows)
  7. the medians over the repeats of each measured configuration -> OUT/measured.csv;
     the compare command on the two                     -> OUT/compare.png, OUT/compare.csv
  8. OUT/fidelity.csv: schedule, ranks, measured_iter_s, predicted_iter_s, error_pct,
     measured_exposed_s (time inside MPI calls: waits, starts, progress polls),
     predicted_exposed_s, measured_wait_s (the MPI_Wait part) (+ tau, delay), and
     OUT/summary.json (load averages, links, rank spread, median |error|, worst row, the targets
     of issue 9 and whether they were met).

Usage (see docs/validation.md, "Predicted vs measured on this machine"; or
python3 -m dasim_analysis fidelity with the same arguments):
  analysis/fidelity.py --np 1,2 --schedules sgd,local_sgd,dasgd --out DIR [--quick]
  analysis/fidelity.py --np 2,4 --mpirun-args "--hostfile hosts --map-by node" --out DIR

Across machines: --mpirun-args is passed to every mpirun (link sweep, profile, training runs)
unchanged; the binaries must be at the same path on every host. The platform keeps 1 node with
N ranks because the executor's result rows name the number of distinct hosts as `nodes` and
compare joins on it: on a cluster, the link figures are those measured between the hosts.
"""

import argparse
import json
import os
import shlex
import sys
import time

from .compare import compare
from .errors import fail
from .fidelity_common import (DEFAULT_BIN_DIR, PROGRESS_MODELS, configurations, load_average,
                              progress, progress_model, run)
from .fidelity_links import EXECUTOR_CALLS, fit_link, sweep_link, write_platform
from .fidelity_predict import predict
from .fidelity_profiles import prediction_compute
from .fidelity_runs import measure, train_options, write_measured
from .files import write_csv, write_json, write_text
from .plan import ask_plan
from .results_io import SCHEDULES

FIDELITY_COLUMNS = ["schedule", "tau", "delay", "ranks", "measured_iter_s", "predicted_iter_s",
                    "error_pct", "measured_exposed_s", "predicted_exposed_s", "measured_wait_s"]

# Issue 9's targets.
TARGET_MEDIAN_ABS_ERROR_PCT = 5.0
TARGET_WORST_ABS_ERROR_PCT = 15.0
TARGET_EXPOSED_ERROR_PCT = 10.0

# The full benchmark's model: 4.74 M parameters (19 MB of fp32 gradients), about 80 ms of
# forward + backward per step at batch 64 on one core here, and a 19 MB allreduce that takes
# 10-20 ms over shared memory: both halves of the model are exercised. The quick model runs
# in a fraction of a second per configuration (pipeline check only).
FULL = {"features": 256, "hidden": "2048,2048", "batch": 64, "steps": 60, "warmup": 5,
        "repeats": 3}
QUICK = {"features": 64, "hidden": "256,256", "batch": 32, "steps": 24, "warmup": 4,
         "repeats": 1}


def argument_parser(prog):
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--np", default="1,2", help="rank counts, comma-separated (default 1,2)")
    parser.add_argument("--schedules", default="sgd,local_sgd,dasgd")
    parser.add_argument("--tau", type=int, default=4)
    parser.add_argument("--delay", type=int, default=1)
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--quick", action="store_true", help="tiny model and quick calibration")
    parser.add_argument("--bin-dir", default=DEFAULT_BIN_DIR,
                        help="folder with dasim, dasim-train, dasim-mpi-allreduce-bench")
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--mpirun-args", default="--allow-run-as-root --oversubscribe",
                        help="passed to every mpirun (e.g. add --hostfile hosts --map-by node)")
    parser.add_argument("--calibration", help="reuse this calibration file instead of calibrating")
    parser.add_argument("--progress", type=progress_model, choices=PROGRESS_MODELS,
                        default="polled_rounds",
                        help="how the simulator lets the executor's MPI allreduce progress: "
                             "polled_rounds (default: ring rounds that advance only inside the ranks' "
                             "calls, its start, the MPI_Test polls between layers and MPI_Wait, each "
                             "rank copying its incoming chunks; polled-rounds is accepted too), polled "
                             "(from its start, its cost paid on the ranks' cores, not held back by late "
                             "polls), host (only inside the wait) or async (overlapping compute, as "
                             "NCCL on GPUs)")
    parser.add_argument("--profile-at", choices=["each", "1"], default="each",
                        help="profile the model at every rank count (default) or once on one rank")
    parser.add_argument("--resume", action="store_true",
                        help="keep the calibration, sweep, profile and executor runs already in --out")
    parser.add_argument("--features", type=int)
    parser.add_argument("--hidden")
    parser.add_argument("--batch", type=int)
    parser.add_argument("--steps", type=int)
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--bucket-cap", "--bucket", dest="bucket_cap", default="25MiB",
                        help="sgd bucket cap, executor and simulator alike (default PyTorch DDP's; "
                             "--bucket is the older name)")
    return parser


def parse_args(argv, prog):
    """The options, checked, with the model's defaults (--quick or the full one) filled in."""
    args = argument_parser(prog).parse_args(argv)
    try:
        args.ranks = [int(x) for x in args.np.split(",")]
    except ValueError:
        fail(f"--np: expected comma-separated rank counts, got '{args.np}'")
    if not args.ranks or min(args.ranks) < 1:
        fail(f"--np: expected rank counts >= 1, got '{args.np}'")
    args.schedule_list = args.schedules.split(",")
    for s in args.schedule_list:
        if s not in SCHEDULES:
            fail(f"--schedules: '{s}' is not one of {', '.join(SCHEDULES)}")
    if args.calibration and not os.path.isfile(args.calibration):
        fail(f"--calibration: file '{args.calibration}' does not exist")
    if not 0 <= args.delay <= args.tau:
        fail("--delay: expected 0 <= delay <= tau")
    base = QUICK if args.quick else FULL
    for key in ("features", "hidden", "batch", "steps", "repeats"):
        if getattr(args, key) is None:
            setattr(args, key, base[key])
    args.warmup = base["warmup"]
    if args.repeats < 1:
        fail(f"--repeats: expected at least 1, got {args.repeats}")
    args.bin_dir = os.path.abspath(args.bin_dir)
    return args


def ask_plans(args):
    """dasim-train's plan of each schedule's run: the message sizes and timed windows the runs
    will have. A configuration dasim-train refuses (too few --steps to time a whole period after
    the warm-up) stops here, before anything is written."""
    return {schedule: ask_plan(args.bin_dir, train_options(args, schedule))
            for schedule in args.schedule_list}


def message_sizes(plans):
    """What the runs send, from any schedule's plan (its buckets are sgd's whatever the schedule):
    each sgd gradient bucket, then the whole weights (local_sgd's and dasgd's averages)."""
    plan = next(iter(plans.values()))
    return [bucket["bytes"] for bucket in plan["buckets"]] + [plan["weights_bytes"]]


def calibrate(args, out):
    """Step 1: OUT/calibration.json, a copy of --calibration or this machine's; returns (its path,
    its fp32 GFLOP/s). The copy keeps OUT whole, so a later --resume predicts from the
    calibration the runs were made with."""
    path = os.path.join(out, "calibration.json")
    if args.calibration:
        if os.path.abspath(args.calibration) != os.path.abspath(path):
            with open(args.calibration) as f:
                write_text(path, f.read())
    elif not (args.resume and os.path.exists(path)):
        command = [os.path.join(args.bin_dir, "dasim"), "calibrate", "--device", "cpu", "--out", path]
        if args.quick:
            command.append("--quick")
        progress("calibrating this machine (dasim calibrate --device cpu)")
        run(command, os.path.join(out, "commands.log"))
    with open(path) as f:
        return path, float(json.load(f)["fitted"]["flops"]["fp32"]) / 1e9


def executor_calls(args):
    """The MPI calls to measure, as (link ranks, call): each schedule's, at each rank count (1 rank
    sends nothing; its platform still needs a link, so it gets the 2-rank one)."""
    return sorted({(max(ranks, 2), EXECUTOR_CALLS[schedule]) for ranks, schedule in configurations(args)})


def fit_links(args, out, calls, messages, calibration, gflops):
    """Step 4: each call's link fitted around the messages, and a platform per rank count and
    schedule with the link of the schedule's call. Returns (links {(link ranks, call name): fit},
    platforms {(ranks, schedule): platform file})."""
    links = {(ranks, call[0]): dict(fit_link(args, out, ranks, messages, call), ranks=ranks)
             for ranks, call in calls}
    platforms = {(ranks, schedule): write_platform(out, ranks,
                                                   links[(max(ranks, 2), EXECUTOR_CALLS[schedule][0])],
                                                   calibration, gflops)
                 for ranks, schedule in configurations(args)}
    return links, platforms


def compare_runs(args, out, measured_rows, workloads, predicted_csv):
    """Step 7: OUT/measured.csv from the medians, and the compare command on it and the
    prediction -> OUT/compare.png, OUT/compare.csv; returns the compared table."""
    names = sorted({name for _, name in workloads.values()})
    for row in measured_rows:  # compare joins on workload: the names must agree
        if row["workload"] not in names:
            fail(f"executor workload '{row['workload']}' differs from the profiles' "
                 f"'{', '.join(names)}'")
    measured_csv = os.path.join(out, "measured.csv")
    write_measured(measured_csv, measured_rows)
    compare_csv = os.path.join(out, "compare.csv")
    table = compare(predicted_csv, measured_csv, os.path.join(out, "compare.png"), compare_csv)
    expected = len(configurations(args))
    if len(table) != expected:
        fail(f"{compare_csv}: {len(table)} matched configurations, expected {expected} "
             f"(predicted and measured rows must agree on workload, schedule, tau, delay, nodes, gpus, "
             f"batch_per_gpu)")
    return table


def fidelity_table(out, table, measured_rows):
    """Step 8: OUT/fidelity.csv, the compared table per (schedule, ranks) with the blocked part of
    the measured exposed time, for readers who compare with MPI profilers."""
    table = table.rename(columns={"gpus": "ranks"})
    wait = {(r["schedule"], int(r["gpus"])): r["exposed_wait_s"] for r in measured_rows}
    table["measured_wait_s"] = [wait[(r.schedule, int(r.ranks))] for r in table.itertuples(index=False)]
    table = table[FIDELITY_COLUMNS]
    write_csv(os.path.join(out, "fidelity.csv"), FIDELITY_COLUMNS,
              table.itertuples(index=False, name=None))
    return table


def exposed_errors(table):
    """The exposed-time error of every configuration that waits for a collective (sgd and dasgd
    with more than one rank; local_sgd's average is blocking, its exposed time is its time)."""
    errors = []
    for row in table.itertuples(index=False):
        if row.schedule in ("sgd", "dasgd") and row.ranks > 1:
            error = (100.0 * (row.predicted_exposed_s - row.measured_exposed_s) / row.measured_exposed_s
                     if row.measured_exposed_s > 0 else float("nan"))
            errors.append({"schedule": row.schedule, "ranks": int(row.ranks), "error_pct": error})
    return errors


def summary(args, table, plan, messages, facts):
    """Step 8: what OUT/summary.json says: the run (command, load, wall time), the model, the links
    and rank figures the prediction used (FACTS), the errors, issue 9's targets and whether they
    were met."""
    abs_errors = table["error_pct"].abs()
    exposed = exposed_errors(table)
    return {
        "command": shlex.join(sys.argv),
        "load_average_start": facts["load_before"], "load_average_end": load_average(),
        "wall_s": time.time() - facts["started"],
        "model": {"widths": plan["layer_widths"], "params": plan["params"], "batch": args.batch,
                  "steps": args.steps, "warmup_steps": args.warmup, "repeats": args.repeats,
                  "bucket": args.bucket_cap, "messages_bytes": messages},
        "links": {f"{k[0]} ranks, {k[1]}": v for k, v in facts["links"].items()},
        "calibration_fp32_gflops": facts["gflops"],
        "jitter_stddev": {f"{s} at {r} ranks": j for (r, s), j in facts["jitters"].items()},
        "stragglers": {f"{r} ranks": {str(k): v for k, v in s.items()}
                       for r, s in facts["stragglers"].items()},
        "median_abs_error_pct": float(abs_errors.median()),
        "worst_abs_error_pct": float(abs_errors.max()),
        "exposed_error_pct": exposed,
        "targets": {"median_abs_error_pct": TARGET_MEDIAN_ABS_ERROR_PCT,
                    "worst_abs_error_pct": TARGET_WORST_ABS_ERROR_PCT,
                    "exposed_error_pct": TARGET_EXPOSED_ERROR_PCT},
        "met": {"median": bool(abs_errors.median() <= TARGET_MEDIAN_ABS_ERROR_PCT),
                "worst": bool(abs_errors.max() <= TARGET_WORST_ABS_ERROR_PCT),
                "exposed": bool(exposed) and all(abs(e["error_pct"]) <= TARGET_EXPOSED_ERROR_PCT
                                                 for e in exposed)},
    }


def main(argv=None, prog=None):
    args = parse_args(argv, prog)
    plans = ask_plans(args)
    messages = message_sizes(plans)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if not args.resume:
        write_text(os.path.join(out, "commands.log"), "")
    facts = {"started": time.time(), "load_before": load_average()}  # for the summary
    progress(f"load average at start: {facts['load_before']}")

    calibration, facts["gflops"] = calibrate(args, out)  # 1
    calls = executor_calls(args)
    for link_ranks, call in calls:  # 2
        sweep_link(args, out, link_ranks, messages, call)
    measured_rows = measure(args, out, calls, messages)  # 3
    facts["links"], platforms = fit_links(args, out, calls, messages, calibration, facts["gflops"])  # 4
    workloads, facts["stragglers"], facts["jitters"] = prediction_compute(args, out, plans)  # 5
    predicted_csv = predict(args, out, plans, platforms, workloads, facts["stragglers"],
                            facts["jitters"])  # 6
    compared = compare_runs(args, out, measured_rows, workloads, predicted_csv)  # 7
    table = fidelity_table(out, compared, measured_rows)  # 8
    result = summary(args, table, next(iter(plans.values())), messages, facts)
    write_json(os.path.join(out, "summary.json"), result)

    progress(f"load average at end: {result['load_average_end']}; "
             f"wrote {os.path.join(out, 'fidelity.csv')}")
    print(table.to_string(index=False))
    print(f"median |error| {result['median_abs_error_pct']:.1f}%, worst "
          f"{result['worst_abs_error_pct']:.1f}%; exposed: " +
          ", ".join(f"{e['schedule']}@{e['ranks']} {e['error_pct']:+.1f}%"
                    for e in result["exposed_error_pct"]))
