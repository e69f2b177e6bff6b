"""The simulated half of the fidelity command (its step 6): a scenario per rank count and schedule
with the executor's configuration, the fitted platform and the profiled workload, `dasim run` on
each, and their rows in one predicted table."""

import csv
import os

from .errors import fail
from .fidelity_common import configurations, profile_ranks, progress, run
from .files import write_csv, write_json
from .plan import timed_step_count


def schedule_spec(args, schedule):
    if schedule == "sgd":
        return {"type": "sgd", "bucket_cap": args.bucket_cap, "overlap": True,
                # dasim-train allreduces the gradients in place: no DDP bucket copies
                "bucket_view": True}
    if schedule == "local_sgd":
        return {"type": "local_sgd", "tau": args.tau}
    return {"type": "dasgd", "tau": args.tau, "delay": args.delay}


def scenario(args, plan, platform, workload, stragglers, jitter):
    """The scenario of one (ranks, schedule): PLAN is dasim-train's for the schedule, STRAGGLERS
    ({rank: slowdown}) and JITTER (stddev) None where the ranks were not profiled together."""
    spec = {
        "name": "fidelity",
        "description": "The executor's configuration on this machine (analysis/fidelity.py).",
        "platforms": [{"file": os.path.basename(platform), "nodes": [1]}],
        "workloads": [{"file": os.path.basename(workload)}],
        "batch_per_gpu": args.batch,
        "precision": "fp32",
        "schedules": [schedule_spec(args, plan["schedule"])],
        # Open MPI's shared-memory allreduce advances only inside MPI calls, on the ranks' own
        # cores: dasim-train polls it between layers from its start, each round waiting for
        # both ranks' calls (polled_rounds), and its copies cost the rank, unlike a
        # collective that overlaps compute.
        "collective": {"algorithm": "ring", "progress": args.progress},
        # dasim-train's run: its steps, timed over the same whole periods after its warm-up
        # (a rank that is persistently faster gains on the other step by step, so how long the
        # run is decides how much of it the ranks spend in step and how much waiting).
        "iterations": timed_step_count(plan),
        "warmup": plan["warmup_steps"],
    }
    # How far the ranks drift apart between synchronisations: what they wait for each other.
    if jitter is not None:
        spec["jitter"] = {"stddev": round(jitter, 6), "seed": 1}
    if stragglers:
        spec["stragglers"] = [{"rank": rank, "slowdown": round(slowdown, 6)}
                              for rank, slowdown in sorted(stragglers.items())]
    return spec


def predict(args, out, plans, platforms, workloads, stragglers, jitters):
    """Writes and simulates every configuration's scenario -> OUT/scenario_npN_SCHEDULE.json,
    OUT/sim_npN_SCHEDULE/, and all their result rows in OUT/predicted.csv (its path returned)."""
    header, rows = None, []
    for ranks, schedule in configurations(args):
        path = os.path.join(out, f"scenario_np{ranks}_{schedule}.json")
        write_json(path, scenario(args, plans[schedule], platforms[(ranks, schedule)],
                                  workloads[profile_ranks(args, ranks)][0], stragglers.get(ranks),
                                  jitters.get((ranks, schedule))))
        progress(f"simulating {schedule} at {ranks} rank(s) (dasim run)")
        sim_dir = os.path.join(out, f"sim_np{ranks}_{schedule}")
        run([os.path.join(args.bin_dir, "dasim"), "run", path, "--out", sim_dir, "--quiet",
             "--jobs", "1"], os.path.join(out, "commands.log"))
        results = os.path.join(sim_dir, "results.csv")
        with open(results, newline="") as f:
            table = list(csv.reader(f))
        if header is not None and table[0] != header:
            fail(f"{results}: columns differ from the other simulations' ({','.join(header)})")
        header = table[0]
        rows += table[1:]
    predicted = os.path.join(out, "predicted.csv")
    write_csv(predicted, header, rows)
    return predicted
