"""The measured half of the fidelity command (its step 3): dasim-train's profile and training
runs, with the link timings between them, and the measured table of their medians."""

import functools
import json
import os
import statistics

from .fidelity_common import (configurations, load_average, mpirun, profile_path, profile_ranks,
                              progress, run)
from .fidelity_links import link_repeat_path, time_call
from .files import write_csv
from .results_io import RESULT_COLUMNS

CLASSES = 10  # the synthetic task's classes: the model's last layer width

# The medians' per-repeat values and the MPI_Wait part of the exposed time follow the fixed columns.
MEDIAN_KEYS = ["iter_time_s", "compute_s", "comm_s", "exposed_comm_s", "exposed_wait_s"]
MEASURED_COLUMNS = RESULT_COLUMNS + ["exposed_wait_s", "iter_time_s_runs", "exposed_comm_s_runs",
                                     "exposed_wait_s_runs", "compute_s_runs", "comm_s_runs"]


def train_options(args, schedule):
    """dasim-train's options for SCHEDULE in this study: the runs' and --print-plan's alike, so
    the plan is the one the runs follow."""
    options = ["--schedule", schedule, "--features", str(args.features), "--classes", str(CLASSES),
               "--hidden", args.hidden, "--batch", str(args.batch), "--steps", str(args.steps),
               "--warmup-steps", str(args.warmup), "--bucket-cap", args.bucket_cap]
    if schedule != "sgd":
        options += ["--tau", str(args.tau)]
    if schedule == "dasgd":
        options += ["--delay", str(args.delay)]
    return options


def train_command(args, ranks, schedule, output, profile=None):
    command = (mpirun(args, ranks) + [os.path.join(args.bin_dir, "dasim-train")] +
               train_options(args, schedule) + ["--quiet", "-o", output])
    if profile:
        command += ["--profile", profile]
    return command


def measure(args, out, calls, messages):
    """Runs the profiles, the link measurements and the executor, interleaved: each repeat
    profiles the model at every rank count, times every MPI call at the message sizes, then trains
    every (ranks, schedule) once, so load drifts hit the inputs of the prediction and the measured
    runs alike. With --resume, a run whose output exists is not made again. Returns one row per
    (ranks, schedule): the median over the repeats."""
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    jobs = [job for repeat in range(args.repeats)  # outermost: load drifts hit every configuration
            for job in repeat_jobs(args, out, calls, messages, repeat)]
    for done, (path, what, make) in enumerate(jobs, start=1):
        if args.resume and os.path.exists(path):
            continue
        make()
        progress(f"run {done}/{len(jobs)}: {what}, load {load_average()[0]:.2f}")
    return [median_row(args, out, ranks, schedule) for ranks, schedule in configurations(args)]


def repeat_jobs(args, out, calls, messages, repeat):
    """One repeat's runs in order, as (output file, description, function that makes it): the
    profiles first (the polled call replays this repeat's profile), then each MPI call, then every
    (ranks, schedule) trained once."""
    log = os.path.join(out, "commands.log")
    jobs = []
    for ranks in sorted({profile_ranks(args, r) for r in args.ranks}):
        output = os.path.join(out, "runs", f"profile_np{ranks}_r{repeat}.json")
        command = train_command(args, ranks, "sgd", output, profile=profile_path(out, ranks, repeat))
        jobs.append((profile_path(out, ranks, repeat), f"profile at {ranks} rank(s)",
                     functools.partial(run, command, log)))
    for ranks, call in calls:
        jobs.append((link_repeat_path(out, ranks, call, repeat), f"{call[0]} at {ranks} ranks",
                     functools.partial(time_call, args, out, ranks, call, messages, repeat)))
    for ranks, schedule in configurations(args):
        output = os.path.join(out, "runs", f"{schedule}_np{ranks}_r{repeat}.json")
        jobs.append((output, f"{schedule} at {ranks} rank(s)",
                     functools.partial(run, train_command(args, ranks, schedule, output), log)))
    return jobs


def median_row(args, out, ranks, schedule):
    """The result row of (ranks, schedule) with the times replaced by their medians over the
    repeats, each time's per-repeat values beside it, and the throughput of the median time."""
    results = []
    for repeat in range(args.repeats):
        with open(os.path.join(out, "runs", f"{schedule}_np{ranks}_r{repeat}.json")) as f:
            results.append(json.load(f)["results"][0])
    row = dict(results[0])
    for key in MEDIAN_KEYS:
        row[key] = statistics.median(float(r[key]) for r in results)
        row[key + "_runs"] = ";".join(f"{float(r[key]):.6g}" for r in results)
    row["samples_per_s"] = row["gpus"] * row["batch_per_gpu"] / row["iter_time_s"]
    return row


def write_measured(path, rows):
    # None (JSON null: a speedup without a 1-rank baseline) is an empty cell, as dasim-train writes it.
    write_csv(path, MEASURED_COLUMNS, (["" if row.get(c) is None else row.get(c) for c in MEASURED_COLUMNS]
                                       for row in rows))
