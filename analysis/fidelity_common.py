"""Shared by analysis/fidelity*.py: running commands with a log, mpirun, progress and errors, and
where the per-repeat profiles live."""

import os
import shlex
import subprocess
import sys


def fail(message):
    print(f"fidelity.py: {message}", file=sys.stderr)
    sys.exit(2)


def progress(message):
    print(f"[fidelity] {message}", file=sys.stderr, flush=True)


def run(command, log, check=True, **kwargs):
    """Runs COMMAND (a list), appends it and its output to LOG; fails on a non-zero status, or with
    check=False returns (status, output)."""
    with open(log, "a") as stream:
        stream.write("$ " + " ".join(shlex.quote(c) for c in command) + "\n")
        stream.flush()
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              **kwargs)
        stream.write(done.stdout)
    if not check:
        return done.returncode, done.stdout
    if done.returncode != 0:
        tail = "\n".join(done.stdout.strip().splitlines()[-5:])
        fail(f"command failed (status {done.returncode}, log {log}): {' '.join(command)}\n{tail}")
    return done.stdout


def load_average():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def mpirun(args, ranks):
    return [args.mpirun] + shlex.split(args.mpirun_args) + ["-np", str(ranks)]


CLASSES = 10


def layer_widths(args):
    return [args.features] + [int(h) for h in args.hidden.split(",")] + [CLASSES]


def profile_ranks(args, ranks):
    return ranks if args.profile_at == "each" else 1


def profile_path(out, ranks, repeat):
    return os.path.join(out, "runs", f"workload_np{ranks}_r{repeat}.json")
