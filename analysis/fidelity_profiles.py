"""The compute half of analysis/fidelity.py's prediction: the per-repeat profiles merged into the
workload the simulator gets, and how far the ranks drift apart between synchronisations."""

import json
import math
import os
import statistics

from fidelity_common import profile_path


MAX_JITTER = 1.0  # the largest jitter.stddev a scenario accepts


def sync_period(args, schedule):
    """Steps between two points where every rank waits for all the others."""
    return 1 if schedule == "sgd" else args.tau


def profile_rank_steps(args, out, ranks, repeat):
    """Each rank's step compute times (post warm-up) in one profile run."""
    with open(os.path.join(out, "runs", f"profile_np{ranks}_r{repeat}.json")) as f:
        return [r["compute_s"][args.warmup:] for r in json.load(f)["per_rank_steps"]]


def rank_speeds(args, out, ranks):
    """How much slower each rank computes than the fastest for a whole run, as the scenario's
    stragglers ({rank: slowdown}), from the profile run whose spread (slowest rank's mean step
    over the fastest's) is the median of the repeats'. On this VM the ranks of one launch keep
    different speeds for the whole run (rank 0 0.3-4% faster or slower per launch, fid63-fid71):
    a faster rank gains on the slower one at every step, which i.i.d. step noise does not, and
    a DaSGD run whose faster rank gains more than the slack of its d steps waits at every merge
    (docs/validation.md). The median run's spread gives the median run's waits (they grow with
    the spread). {} for one rank."""
    if ranks < 2:
        return {}
    runs = []
    for repeat in range(args.repeats):
        means = [statistics.mean(steps) for steps in profile_rank_steps(args, out, ranks, repeat)]
        runs.append((max(means) / min(means), means))
    _, means = sorted(runs)[(len(runs) - 1) // 2]
    return {rank: m / min(means) for rank, m in enumerate(means) if m > min(means)}


def rank_jitter(args, out, ranks, period):
    """How far apart the ranks drift between two synchronisations beyond their persistent speed
    difference (rank_speeds), from the profile runs' per-rank step records (post warm-up), as the
    scenario's jitter.stddev: the relative per-step spread s such that N ranks with i.i.d.
    N(0, s) step noise drift as far apart over PERIOD steps as the measured ranks did. Per run:
    the compute of each block of PERIOD steps per rank, minus the block's average over the ranks
    (a slowdown shared by all ranks makes nobody wait), minus that rank's mean of it over the run
    (its persistent speed, a straggler), RMS = s x mean step x sqrt(PERIOD (N-1)/N) (slow spells
    longer than a step count). Median over the runs; 0 for one rank."""
    if ranks < 2:
        return 0.0
    estimates = []
    for repeat in range(args.repeats):
        steps = profile_rank_steps(args, out, ranks, repeat)
        mean_step = statistics.mean(x for rank_steps in steps for x in rank_steps)
        deviations = [[] for _ in steps]  # per rank, per block: its block minus the block's average
        for first in range(0, len(steps[0]) - period + 1, period):
            blocks = [sum(rank_steps[first:first + period]) for rank_steps in steps]
            average = statistics.mean(blocks)
            for rank, block in enumerate(blocks):
                deviations[rank].append(block - average)
        squares = [(d - statistics.mean(rank_deviations)) ** 2
                   for rank_deviations in deviations for d in rank_deviations]
        rms = math.sqrt(statistics.mean(squares))
        estimates.append(rms / (mean_step * math.sqrt(period * (ranks - 1) / ranks)))
    return statistics.median(estimates)


def merge_profiles(args, out, ranks):
    """The workload the simulator gets: per layer, the median over the repeats' profiles of the
    forward and backward times (each profile is itself the median over a run's steps of rank 0)."""
    profiles = []
    for repeat in range(args.repeats):
        with open(profile_path(out, ranks, repeat)) as f:
            profiles.append(json.load(f))
    merged = profiles[0]
    for i, layer in enumerate(merged["layers"]):
        for key in ("forward_time_s", "backward_time_s"):
            layer[key] = statistics.median(p["layers"][i][key] for p in profiles)
    if all("update_time_s" in p for p in profiles):
        merged["update_time_s"] = statistics.median(p["update_time_s"] for p in profiles)
    merged["source"] = (f"median of {len(profiles)} dasim-train --profile runs at {ranks} rank(s) "
                        f"({profiles[0]['source']})")
    path = os.path.join(out, f"workload_np{ranks}.json")
    with open(path, "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    return path, merged["name"]
