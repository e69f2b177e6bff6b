"""The compute half of the fidelity command's prediction (its step 5): the per-repeat profiles
merged into the workload the simulator gets, each rank's persistent speed (the stragglers), and how
far the ranks drift apart between synchronisations (the jitter)."""

import json
import math
import os
import statistics

from .fidelity_common import configurations, profile_path, profile_ranks, progress
from .files import write_json
from .plan import sync_period

MAX_JITTER = 1.0  # the largest jitter.stddev a scenario accepts


def prediction_compute(args, out, plans):
    """The compute side of the prediction: the executor's own per-layer times, from profile runs
    separate from the measured ones. With --profile-at each (default) the model is profiled at
    every rank count, all ranks training together, so the layer times include what N ranks
    sharing the node's cores and memory bandwidth cost each other; with --profile-at 1 one rank
    profiles alone (the usual setup on a dedicated cluster, one rank per GPU / node). Returns
    (workloads {profiled ranks: (file, name)}, stragglers {ranks: {rank: slowdown}},
    jitters {(ranks, schedule): stddev}); no stragglers or jitter without a profile per rank count."""
    each = args.profile_at == "each"
    speeds = {r: rank_speeds(args, out, r) if each else ({}, 1.0) for r in args.ranks}
    workloads = {r: merge_profiles(args, out, r, speeds.get(r, ({}, 1.0))[1])
                 for r in sorted({profile_ranks(args, r) for r in args.ranks})}
    stragglers = {r: speeds[r][0] for r in args.ranks if r > 1 and each}
    jitters = {(r, s): scenario_jitter(args, out, r, plans[s])
               for r, s in configurations(args) if r > 1 and each}
    return workloads, stragglers, jitters


def scenario_jitter(args, out, ranks, plan):
    """rank_jitter over the synchronisation period of the schedule dasim-train planned (PLAN),
    capped at what a scenario accepts."""
    schedule = plan["schedule"]
    jitter = rank_jitter(args, out, ranks, sync_period(schedule, plan["tau"]))
    if jitter > MAX_JITTER:
        # Ranks time-sliced on shared cores drift by whole time slices, far beyond what Gaussian
        # step noise describes; the scenario format stops at a 100% stddev.
        progress(f"warning: ranks drift {100 * jitter:.0f}% per step apart ({schedule}, {ranks} "
                 f"ranks): the runs were time-sliced; jitter capped at {100 * MAX_JITTER:.0f}%")
        jitter = MAX_JITTER
    return jitter


def profile_rank_steps(out, ranks, repeat):
    """Each rank's step compute times in one profile run, over the window the run itself timed
    (config.timed_steps, 1-based inclusive: the steps after its warm-up)."""
    with open(os.path.join(out, "runs", f"profile_np{ranks}_r{repeat}.json")) as f:
        run = json.load(f)
    first, last = run["config"]["timed_steps"]
    return [r["compute_s"][first - 1:last] for r in run["per_rank_steps"]]


def rank_speeds(args, out, ranks):
    """How much slower each rank computes than the fastest for a whole run, from the profile run
    whose spread (slowest rank's mean step over the fastest's) is the median of the repeats'.
    Returns (the scenario's stragglers {rank: slowdown >= 1}, the factor that turns the workload
    into the fastest rank's: the workload holds rank 0's layer times, and rank 0 is the slower rank
    in about half the launches). On this VM the ranks of one launch keep different speeds for the
    whole run (0-5.6% apart, fid63-fid75): a faster rank gains on the slower one at every step,
    which i.i.d. step noise does not, and a DaSGD run whose faster rank gains too much waits at
    every merge (docs/validation.md). The median run's spread gives the median run's waits (they
    grow with the spread). ({}, 1) for one rank."""
    if ranks < 2:
        return {}, 1.0
    runs = []
    for repeat in range(args.repeats):
        means = [statistics.mean(steps) for steps in profile_rank_steps(out, ranks, repeat)]
        runs.append((max(means) / min(means), means))
    _, means = sorted(runs)[(len(runs) - 1) // 2]
    fastest = min(means)
    return {rank: m / fastest for rank, m in enumerate(means) if m > fastest}, fastest / means[0]


def rank_jitter(args, out, ranks, period):
    """How far apart the ranks drift between two synchronisations beyond their persistent speed
    difference (rank_speeds), from the profile runs' per-rank step records (post warm-up), as the
    scenario's jitter.stddev: the relative per-step spread s such that N ranks with i.i.d.
    N(0, s) step noise drift as far apart over PERIOD steps as the measured ranks did. Per run:
    the compute of each block of PERIOD steps per rank, minus the block's average over the ranks
    (a slowdown shared by all ranks makes nobody wait), minus that rank's mean of it over the run
    (its persistent speed, a straggler), RMS with B - 1 degrees of freedom per rank over its B
    blocks = s x mean step x sqrt(PERIOD (N-1)/N) (slow spells longer than a step count). Median
    over the runs; 0 for one rank."""
    if ranks < 2:
        return 0.0
    estimates = []
    for repeat in range(args.repeats):
        steps = profile_rank_steps(out, ranks, repeat)
        mean_step = statistics.mean(x for rank_steps in steps for x in rank_steps)
        deviations = [[] for _ in steps]  # per rank, per block: its block minus the block's average
        for first in range(0, len(steps[0]) - period + 1, period):
            blocks = [sum(rank_steps[first:first + period]) for rank_steps in steps]
            average = statistics.mean(blocks)
            for rank, block in enumerate(blocks):
                deviations[rank].append(block - average)
        squares = [(d - statistics.mean(rank_deviations)) ** 2
                   for rank_deviations in deviations for d in rank_deviations]
        blocks = len(deviations[0])  # each rank's own mean takes one of its B blocks' freedom
        rms = math.sqrt(statistics.mean(squares) * (blocks / (blocks - 1) if blocks > 1 else 1))
        estimates.append(rms / (mean_step * math.sqrt(period * (ranks - 1) / ranks)))
    return statistics.median(estimates)


def merge_profiles(args, out, ranks, scale=1.0):
    """The workload the simulator gets: per layer, the median over the repeats' profiles of the
    forward and backward times (each profile is itself the median over a run's steps of rank 0),
    times SCALE (rank_speeds: rank 0's times made the fastest rank's), and the update likewise."""
    profiles = []
    for repeat in range(args.repeats):
        with open(profile_path(out, ranks, repeat)) as f:
            profiles.append(json.load(f))
    merged = profiles[0]
    for i, layer in enumerate(merged["layers"]):
        for key in ("forward_time_s", "backward_time_s"):
            layer[key] = scale * statistics.median(p["layers"][i][key] for p in profiles)
    if all("update_time_s" in p for p in profiles):
        merged["update_time_s"] = scale * statistics.median(p["update_time_s"] for p in profiles)
    merged["source"] = (f"median of {len(profiles)} dasim-train --profile runs at {ranks} rank(s) "
                        f"({profiles[0]['source']})"
                        + (f", x {scale:.6g}: the fastest rank's times" if scale != 1.0 else ""))
    path = os.path.join(out, f"workload_np{ranks}.json")
    write_json(path, merged)
    return path, merged["name"]
