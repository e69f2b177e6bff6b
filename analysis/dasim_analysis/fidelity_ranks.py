"""Rank by rank: where the executor's ranks spent each synchronisation period in the runs of a
fidelity output folder (docs/validation.md, "Where dasgd's exposed time goes").

For every multi-rank run OUT/runs/SCHEDULE_npN_rR.json (dasim-train -o), over its timed window
(config.timed_steps), per rank and per synchronisation period (tau steps; 1 for sgd): compute,
exposed (time inside MPI calls) and MPI_Wait, in ms, and the first step in which the rank waited
more than --wait-ms. The state column says "one waits" when a rank waited more than --wait-ms per
period on average, "in step" otherwise.

--simulate PROGRESS[,PROGRESS...]: also simulates each run's configuration (OUT's scenario for its
rank count and schedule) with that run's own rank speeds as the stragglers (each rank's mean step
compute over the window, over the fastest rank's) and each collective.progress listed, and prints
the simulated exposed time per period (mean over the ranks) beside the measured one: how well a
progress model reproduces a run once it knows how fast that run's ranks were.

Usage: python3 -m dasim_analysis fidelity-ranks OUT [--schedule dasgd] [--wait-ms 2]
           [--simulate polled,polled_rounds]
       (or analysis/fidelity_ranks.py with the same arguments; polled-rounds is accepted too)
"""

import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

from .errors import fail
from .fidelity_common import DEFAULT_BIN_DIR, progress_model
from .files import write_json
from .plan import sync_period


def simulate(args, run_path, compute_sums, period):
    """Per progress model of --simulate: the exposed time per period (mean over the ranks) `dasim run`
    gives for OUT's scenario of this run's rank count and schedule, with the run's own rank speeds
    (each rank's compute over the timed window, COMPUTE_SUMS) as stragglers."""
    scenario_path = os.path.join(args.out, f"scenario_np{len(compute_sums)}_{args.schedule}.json")
    try:
        with open(scenario_path) as f:
            scenario = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"--simulate needs {scenario_path}: {e}")
    fastest = min(compute_sums)
    scenario["stragglers"] = [{"rank": i, "slowdown": m / fastest}
                              for i, m in enumerate(compute_sums) if m > fastest]
    for entry in scenario["platforms"] + scenario["workloads"]:  # absolute: the copy lives elsewhere
        if isinstance(entry, dict) and "file" in entry:
            entry["file"] = os.path.join(os.path.abspath(args.out), entry["file"])
    exposed_ms = []
    for progress in args.progress_models:
        scenario.setdefault("collective", {})["progress"] = progress
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "scenario.json")
            write_json(path, scenario)
            command = [os.path.join(args.bin_dir, "dasim"), "run", path, "--out", os.path.join(work, "sim"),
                       "--quiet", "--jobs", "1"]
            try:
                done = subprocess.run(command, capture_output=True, text=True)
            except OSError as e:
                fail(f"--bin-dir: cannot run {command[0]}: {e}")
            if done.returncode != 0:
                first = (done.stderr.strip().splitlines() or ["no message"])[0]
                fail(f"dasim run for {os.path.basename(run_path)} failed: {first}")
            with open(os.path.join(work, "sim", "results.json")) as f:
                exposed_ms.append(1e3 * json.load(f)["rows"][0]["exposed_comm_s"] * period)
    return exposed_ms


def describe(args, path):
    """One line for the run at PATH; a file that is not a dasim-train run exits 2."""
    try:
        with open(path) as f:
            run = json.load(f)
        return describe_run(args, path, run)
    except (OSError, ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as e:
        fail(f"{path}: not a dasim-train run with config.timed_steps and per_rank_steps "
             f"(compute_s, exposed_s, wait_s): {type(e).__name__} {e}")


def describe_run(args, path, run):
    wait_ms = args.wait_ms
    config = run["config"]
    first, last = config["timed_steps"]  # 1-based, inclusive
    period = sync_period(config["schedule"], int(config["tau"]))
    periods = (last - first + 1) / period
    columns, waits, exposed, compute_sums = [], [], [], []
    for rank in run["per_rank_steps"]:
        window = slice(first - 1, last)
        compute_sums.append(sum(rank["compute_s"][window]))
        per_period = {key: 1e3 * sum(rank[key][window]) / periods
                      for key in ("compute_s", "exposed_s", "wait_s")}
        onset = next((k + 1 for k, w in enumerate(rank["wait_s"])
                      if first <= k + 1 <= last and w * 1e3 > wait_ms), None)
        waits.append(per_period["wait_s"])
        exposed.append(per_period["exposed_s"])
        columns.append(f"rank {rank['rank']}: compute {per_period['compute_s']:.2f} exposed "
                       f"{per_period['exposed_s']:.2f} wait {per_period['wait_s']:.2f} first wait "
                       f"{onset if onset else '-'}")
    state = "one waits" if max(waits) > wait_ms else "in step"
    line = f"{os.path.basename(path)}: {state}; " + "; ".join(columns)
    if args.progress_models:
        simulated_ms = simulate(args, path, compute_sums, period)
        simulated = [f"{progress} {ms:.2f}" for progress, ms in zip(args.progress_models, simulated_ms)]
        line += (f"; exposed (mean of ranks) measured {sum(exposed) / len(exposed):.2f}, simulated "
                 + ", ".join(simulated))
    return line


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the fidelity command's output folder")
    parser.add_argument("--schedule", default="dasgd", help="sgd, local_sgd or dasgd (default dasgd)")
    parser.add_argument("--wait-ms", type=float, default=2.0,
                        help="a rank that waits more than this per period is waiting (default 2)")
    parser.add_argument("--simulate", metavar="PROGRESS[,PROGRESS...]",
                        help="progress models to simulate each run with (async, host, polled, "
                             "polled_rounds)")
    parser.add_argument("--bin-dir", default=DEFAULT_BIN_DIR, help="folder with dasim")
    args = parser.parse_args(argv)
    args.progress_models = [progress_model(p) for p in (args.simulate or "").split(",") if p]
    pattern = os.path.join(args.out, "runs", f"{args.schedule}_np*_r*.json")
    paths = sorted(p for p in glob.glob(pattern) if re.search(r"_np([2-9]|\d\d+)_r\d+\.json$", p))
    if not paths:
        fail(f"no multi-rank {args.schedule} runs in {os.path.join(args.out, 'runs')}")
    lines = [describe(args, path) for path in paths]  # all or nothing: a bad run prints no table
    print("per synchronisation period, in ms, over each run's timed window")
    print("\n".join(lines))
