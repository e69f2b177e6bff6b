"""The communication half of the fidelity command's prediction: each MPI call the executor makes,
timed with dasim-mpi-allreduce-bench the way the executor makes it, fitted by dasim fit-links
around the messages sent, and written as a platform file whose simulated ring allreduce takes the
fitted time."""

import json
import math
import os
import statistics

from .errors import fail
from .fidelity_common import mpirun, profile_path, profile_ranks, progress, run
from .files import write_json, write_text


# The sizes around each message the link is measured and fitted at (see fit_link).
MESSAGE_NEIGHBOURHOOD = (0.8, 1.0, 1.25)

# The polled bench's result moves by 10-15% from one mpirun to the next (3.3-4.8 ms at 19 MB
# within minutes here: where the ranks' pages and cores land, and whether one rank falls behind),
# more than between repetitions within one: each repeat launches it this many times (once with
# --quick) and the fit takes the median over all.
POLLED_LAUNCHES = 3


# The MPI call each schedule makes in dasim-train (executor/trainer.cpp), as the arguments that
# make dasim-mpi-allreduce-bench time the same call the same way: (name, bench arguments, polled).
# Open MPI implements them separately (blocking collectives in coll/tuned, non-blocking ones in
# libnbc), in place and out of place differently, and a host-progressed collective costs a rank
# what it does inside MPI calls: a DaSGD snapshot average, started and then polled between layers
# for d steps, costs each rank its own copies and reductions (about 4 ms at 19 MB here), not the
# 7 ms the same call takes end to end when both ranks wait in MPI_Wait. So each schedule gets the
# link of its own call, and dasgd's is timed with the executor's polls (poll_pattern).
EXECUTOR_CALLS = {
    "sgd": ("iallreduce-in-place", ("--nonblocking", "--in-place"), False),  # gradient buckets
    "local_sgd": ("allreduce-in-place", ("--in-place",), False),             # weights, blocking
    "dasgd": ("iallreduce-polled", ("--nonblocking",), True),                # snapshot -> sum
}


def eviction_bytes():
    """Scratch the link bench writes before each repetition: 4x the last-level cache (at least
    64 MiB), so the message starts outside the caches, as gradients do after a step's compute."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index3/size") as f:
            text = f.read().strip()
        l3 = int(text[:-1]) * 1024 if text.endswith("K") else int(text)
    except (OSError, ValueError):
        l3 = 0
    return max(64 * 1024 ** 2, 4 * l3)


def sizes_around(messages):
    return sorted({max(4, int(m * f) // 4 * 4) for m in messages for f in MESSAGE_NEIGHBOURHOOD})


def bench_command(args, ranks, call, max_bytes, sizes, reps, large_reps, polls=None):
    """The bench timing CALL as the executor makes it. --mean: dasim-train's rows are means over
    steps, its slow steps included, so the link is fitted to means over repetitions (the polled
    call's mean is 1-12% above its median per launch here); the launches and repeats are then
    combined by their median, robust to a launch that runs differently throughout."""
    command = mpirun(args, ranks) + [
        os.path.join(args.bin_dir, "dasim-mpi-allreduce-bench"), "--max-bytes", str(max_bytes),
        "--sizes", ",".join(str(b) for b in sizes), "--reps", str(reps), "--large-reps", str(large_reps),
        "--warmup", "3", "--evict", str(eviction_bytes()), "--mean"] + list(call[1])
    if polls:
        work, wait_after, free_steps, step_items = polls
        command += ["--poll-intervals", ",".join(work), "--wait-after", f"{wait_after:.6g}",
                    "--free-steps", str(free_steps), "--step-items", str(step_items)]
    return command


def layer_work(layer, batch, backward):
    """The bench's stand-in for one layer: its own sgemm calls (bench syntax MxNxK, '+'-joined)
    when the profile gives its GEMM, else its profiled time as CPU-bound spin. A linear layer's
    forward is [batch x n] = [batch x k][k x n]; its backward the weight gradient [n x k] =
    [n x batch][batch x k] and, unless it is the first layer (backward FLOPs = forward FLOPs), the
    input gradient [batch x k] = [batch x n][n x k]. The GEMMs bring the layers' cache and memory
    traffic, which slows the peer's copies: a spin of the same length measured 0.2-0.5 ms less per
    average at 19 MB here (docs/validation.md)."""
    gemm = layer.get("gemm")
    if not gemm:
        return f"{layer['backward_time_s' if backward else 'forward_time_s']:.6g}"
    m, n, k = batch * gemm.get("rows_per_sample", 1), gemm["n"], gemm["k"]
    if not backward:
        return f"{m}x{n}x{k}"
    shapes = [f"{n}x{k}x{m}"]
    if layer["backward_flops"] > 1.5 * layer["forward_flops"]:
        shapes.append(f"{m}x{k}x{n}")
    return "+".join(shapes)


def poll_pattern(args, out, ranks, repeat):
    """How dasim-train drives a DaSGD snapshot average: an MPI_Test after every forward layer but
    the last, after the loss (with the last layer) and after every backward layer, so 2L polls per
    step for L layers, for d steps, with the update (and the next batch copy) between steps, then
    the update and MPI_Wait at k0 + d, then tau - d local steps before the next average, the
    ranks free-running throughout (they drift apart and meet only inside the collectives). Returns
    (the work before each poll in the bench's syntax: the layers' GEMMs forward 1..L, backward
    L..1; the work between the last poll and MPI_Wait in seconds: the profiled update_time_s; the
    local steps between averages; the work items of one step, 2L) from this repeat's profile."""
    profiled = profile_ranks(args, ranks)
    if not os.path.exists(profile_path(out, profiled, repeat)):  # --np 1: only 1 rank profiled
        profiled = min(profile_ranks(args, r) for r in args.ranks)
    with open(profile_path(out, profiled, repeat)) as f:
        profile = json.load(f)
    layers, batch = profile["layers"], profile["measured_batch"]
    update = profile.get("update_time_s", 0.0)
    work = []
    for step in range(max(args.delay, 1)):
        step_work = ([layer_work(l, batch, False) for l in layers] +
                     [layer_work(l, batch, True) for l in reversed(layers)])
        if step > 0:  # the previous step's update comes before this step's first poll
            step_work[0] = f"{update:.6g}+{step_work[0]}"
        work += step_work
    return work, update, max(args.tau - max(args.delay, 1), 0), 2 * len(layers)


def table_rows(text):
    """The bench's table lines: the header comments and one row per size."""
    return [line for line in text.splitlines() if line.startswith("#") or line[:1].isdigit()]


def sweep_link(args, out, ranks, messages, call):
    """The full picture, once: MPI's CALL at RANKS ranks over the powers of two up to the largest
    message plus each message and its neighbours x0.8 and x1.25 -> OUT/allreduce_npN_CALL.log."""
    log = os.path.join(out, f"allreduce_np{ranks}_{call[0]}.log")
    if call[2] or (args.resume and os.path.exists(log)):  # polled: timed per repeat, with its profile
        return
    sweep_top = 2 ** int(math.ceil(math.log2(max(messages))))
    progress(f"{call[0]} sweep at {ranks} ranks up to {sweep_top} bytes and at "
             f"{', '.join(str(b) for b in sizes_around(messages))} bytes")
    text = run(bench_command(args, ranks, call, sweep_top, sizes_around(messages),
                             5 if args.quick else 20, 3 if args.quick else 15),
               os.path.join(out, "commands.log"))
    write_text(log, "".join(line + "\n" for line in table_rows(text)))


def link_repeat_path(out, ranks, call, repeat):
    return os.path.join(out, "runs", f"allreduce_np{ranks}_{call[0]}_r{repeat}.log")


def time_call(args, out, ranks, call, messages, repeat):
    """Step 3b: CALL at RANKS ranks timed again at the message sizes in this repeat, between the
    training runs; the polled call as the executor polls it, from this repeat's profile (so the
    profiles run first) -> OUT/runs/allreduce_npN_CALL_rR.log."""
    polls = poll_pattern(args, out, ranks, repeat) if call[2] else None
    tables = []
    for _ in range(POLLED_LAUNCHES if call[2] and not args.quick else 1):
        text = run(bench_command(args, ranks, call, 8, sizes_around(messages),
                                 5 if args.quick else 20, 3 if args.quick else 15, polls),
                   os.path.join(out, "commands.log"))
        tables += table_rows(text)
    write_text(link_repeat_path(out, ranks, call, repeat), "".join(line + "\n" for line in tables))


def measured_latencies(args, out, ranks, call, sizes):
    """Per size in SIZES, every latency (us) measured for CALL at RANKS ranks: in the sweep (none for
    the polled call) and in each repeat's launches. Returns (the logs read, {size: [latency]})."""
    logs = [] if call[2] else [os.path.join(out, f"allreduce_np{ranks}_{call[0]}.log")]
    logs += [link_repeat_path(out, ranks, call, r) for r in range(args.repeats)]
    latencies = {}
    for path in logs:
        with open(path) as f:
            for line in f:
                fields = line.split()
                # Only the sizes measured around the messages: a power of two of the sweep that
                # falls among them (16 MiB between 15.2 and 23.7 MB) is measured once, not per
                # repeat, and Open MPI is up to 19% faster there than the line through its
                # neighbours; it pulled the fit 6-8% below the time at the message itself.
                if line[:1].isdigit() and int(fields[0]) in sizes:
                    latencies.setdefault(int(fields[0]), []).append(float(fields[1]))
    return logs, latencies


def fit_link(args, out, ranks, messages, call):
    """Fits time = alpha + bytes / beta to the sizes measured around the messages only (each
    message, x0.8 and x1.25): for each, the median over the sweep and the repeats' measurements
    (taken between the training runs, so the same load drifts hit them)
    -> OUT/allreduce_npN_CALL_fitted.log (the medians), OUT/links_npN_CALL.json (the fit).
    Shared-memory MPI changes protocol and falls out of the caches with the size (here the time
    per byte grows about 10x between 4 and 32 MiB), so a fit over all sizes, or even over the
    powers of two that bracket a message, misdescribes it."""
    sizes = sizes_around(messages)
    logs, latencies = measured_latencies(args, out, ranks, call, sizes)
    medians = {size: statistics.median(latencies[size]) for size in sorted(latencies)}
    merged = os.path.join(out, f"allreduce_np{ranks}_{call[0]}_fitted.log")
    write_text(merged, f"# {call[0]} at {ranks} ranks: per size, the median latency over the "
                       f"measurements in {len(logs)} logs (the sweep, if any, and each repeat's "
                       f"launches)\n# Size  Median Latency(us)\n" +
               "".join(f"{size} {median:.3f}\n" for size, median in medians.items()))
    links = os.path.join(out, f"links_np{ranks}_{call[0]}.json")
    status, text = run([os.path.join(args.bin_dir, "dasim"), "fit-links", merged, "--out", links,
                        "--min-bytes", str(sizes[0]), "--max-bytes", str(sizes[-1])],
                       os.path.join(out, "commands.log"), check=False)
    link = {"min_bytes": sizes[0], "max_bytes": sizes[-1], "call": call[0],
            "bench_arguments": list(call[1]), "polled": call[2], "measurements": len(logs),
            "log": os.path.basename(merged)}
    if status == 0:
        with open(links) as f:
            fit = json.load(f)["fits"]["all"]
        link.update({"alpha_s": max(0.0, float(fit["alpha_s"])), "beta_Bps": float(fit["beta_Bps"]),
                     "rms_relative_residual": fit.get("rms_relative_residual"),
                     "fit": os.path.basename(links)})
    elif "do not grow with message size" in text:
        beta = beta_through_origin(medians)
        progress(f"warning: {call[0]} at {ranks} ranks: times around the message do not grow with "
                 f"its size (noise); beta from time through the origin: {beta / 1e9:.3g} GB/s")
        link.update({"alpha_s": 0.0, "beta_Bps": beta, "fit": None,
                     "fallback": "times did not grow with size around the message: "
                                 "beta from time = bytes / beta through the origin"})
    else:
        last = (text.strip().splitlines() or ["no output"])[-1]
        fail(f"dasim fit-links failed on {merged} (status {status}; its output is in "
             f"{os.path.join(out, 'commands.log')}): {last}")
    return link


def beta_through_origin(medians):
    """Over +-25% of a small message the noise can hide the size dependence (seen with 340 KB
    messages while other jobs shared the cores); what the prediction needs is the time at the
    message, so take time = bytes / beta through the origin, least squares on relative residuals:
    1 / beta = sum(x / t) / sum(x^2 / t^2). MEDIANS: {bytes: latency in us}."""
    points = [(size, latency * 1e-6) for size, latency in medians.items()]
    return sum((x / t) ** 2 for x, t in points) / sum(x / t for x, t in points)


def write_platform(out, ranks, link, calibration, gflops):
    """1 node, RANKS single-core "GPUs". Each rank sits on a non-blocking switch port; the ring
    allreduce the simulator runs over it takes 2(n-1) steps of 2 port latencies and moves
    2(n-1)/n x bytes through each port, so port bandwidth = beta x 2(n-1)/n and port latency =
    alpha / (4(n-1)) reproduce the fitted time = alpha + bytes / beta."""
    n = max(ranks, 2)
    bandwidth = link["beta_Bps"] * 2 * (n - 1) / n
    latency = link["alpha_s"] / (4 * (n - 1))
    # "ideal": the fitted figures are what MPI achieved, no transport efficiency on top of them.
    figures = {"bandwidth": f"{bandwidth:.6g}Bps", "latency": f"{latency * 1e6:.6g}us", "transport": "ideal",
               "source": f"fitted MPI_Allreduce at {link['ranks']} ranks: alpha "
                         f"{link['alpha_s'] * 1e6:.3g} us, beta {link['beta_Bps'] / 1e9:.3g} GB/s "
                         f"over {link['min_bytes']}..{link['max_bytes']} bytes ({link['fit'] or link['log']}, "
                         f"{link['call']})"}
    node = {"gpus": ranks,
            "gpu": {"model": "cpu-rank", "speed": f"{gflops:.6g}Gf",
                    "calibration": os.path.relpath(calibration, out),
                    "source": "one MPI rank on one CPU core; speed = the calibration's fp32 sgemm rate"},
            "nics": [{"name": "mpi", "gpus": list(range(ranks)), "link": figures}]}
    if ranks > 1:
        node["nvswitch"] = {"port": figures}
    platform = {"name": "localhost-shm",
                "description": f"This machine as the executor uses it: {ranks} MPI rank(s), one per "
                               "core, exchanging through MPI (shared memory on one host).",
                "nodes": 1, "node": node,
                "fabric": {"topology": "star", "link": figures}}
    path = os.path.join(out, f"localhost-shm-{ranks}-{link['call']}.json")
    write_json(path, platform)
    return path
