"""What dasim-train will do for a configuration, asked from it rather than re-derived here.

`dasim-train --print-plan [the run's options]` prints, without training, the model's layer widths
and parameter count, the sgd gradient buckets (planned whatever the schedule, so every message
size is known), the weights' bytes (what local_sgd and dasgd average) and the timed window: the
steps after the warm-up rounded up to whole synchronisation periods. Asking the binary keeps the
analysis from drifting away from the executor when either changes.
"""

import json
import os
import subprocess

from .errors import fail


def ask_plan(bin_dir, options):
    """The plan of a dasim-train run with OPTIONS. A configuration dasim-train refuses (e.g. too
    few steps to time a whole period after the warm-up) fails here with dasim-train's message."""
    command = [os.path.join(bin_dir, "dasim-train"), "--print-plan"] + options
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        fail(f"--bin-dir: cannot run {command[0]}: {error.strerror or error}")
    if done.returncode != 0:
        fail((done.stderr.strip().splitlines() or [f"{command[0]} --print-plan failed "
                                                   f"(status {done.returncode})"])[0])
    return json.loads(done.stdout)


def timed_step_count(plan):
    first, last = plan["timed_steps"]  # 1-based, inclusive
    return last - first + 1


def sync_period(schedule, tau):
    """Steps between two points where every rank waits for all the others."""
    return 1 if schedule == "sgd" else tau
