"""Shared by the fidelity* modules: where the binaries are, running commands with a log, mpirun,
progress, the configurations of a study, the progress models, and where the profiles live."""

import os
import shlex
import subprocess
import sys

from .errors import fail

# The source tree's build folder: analysis/dasim_analysis/ -> <source>/build/bin.
DEFAULT_BIN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                               "build", "bin")
# collective.progress values of a scenario (docs/file-formats.md), polled_rounds the default.
PROGRESS_MODELS = ["polled_rounds", "polled", "host", "async"]


def progress_model(text):
    """A progress model's canonical name: the C++ still accepts the older spelling polled-rounds,
    and so do the commands, but what they write into scenarios is polled_rounds."""
    return "polled_rounds" if text == "polled-rounds" else text


def progress(message):
    print(f"[fidelity] {message}", file=sys.stderr, flush=True)


def run(command, log, check=True, **kwargs):
    """Runs COMMAND (a list), appends it and its output to LOG; fails on a non-zero status, or with
    check=False returns (status, output). LOG is appended to as the commands run, not replaced,
    so a run that fails or is killed still shows every command it made."""
    with open(log, "a") as stream:
        stream.write("$ " + shlex.join(command) + "\n")
        stream.flush()
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              **kwargs)
        stream.write(done.stdout)
    if not check:
        return done.returncode, done.stdout
    if done.returncode != 0:
        last = (done.stdout.strip().splitlines() or ["no output"])[-1]
        fail(f"{os.path.basename(command[0])} failed (status {done.returncode}; the command and its "
             f"output are in {log}): {last}")
    return done.stdout


def load_average():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def mpirun(args, ranks):
    return [args.mpirun] + shlex.split(args.mpirun_args) + ["-np", str(ranks)]


def configurations(args):
    """Every (ranks, schedule) the study measures and predicts, in the order the tables list them."""
    return [(ranks, schedule) for ranks in args.ranks for schedule in args.schedule_list]


def profile_ranks(args, ranks):
    return ranks if args.profile_at == "each" else 1


def profile_path(out, ranks, repeat):
    return os.path.join(out, "runs", f"workload_np{ranks}_r{repeat}.json")
