"""python3 -m dasim_analysis COMMAND [ARGS...]: runs one command's main(ARGS).

The command modules are imported only once chosen, so `--help` and a mistyped command answer
without loading pandas or matplotlib.
"""

import importlib
import sys

from .errors import fail

PROG = "python3 -m dasim_analysis"
# command -> (module, what it does), in the order --help lists them.
COMMANDS = {
    "plot-scaleup": ("plot_scaleup", "speedup and efficiency vs GPUs from a results.csv"),
    "plot-breakdown": ("plot_breakdown", "compute / exposed / hidden communication per iteration"),
    "plot-sizing": ("plot_sizing", "efficiency vs a swept bandwidth, latency or host rate, the value keeping 90%"),
    "compare": ("compare", "predicted vs measured iteration time of two results files"),
    "fidelity": ("fidelity", "predict and measure this machine's runs, and compare (dasim-train)"),
    "fidelity-ranks": ("fidelity_ranks", "rank by rank: where a fidelity folder's runs spent each period"),
    "validate-collectives": ("validate_collectives", "predict the published nccl-tests cases and compare"),
    "validate-compute": ("validate_compute", "predict the published single-GPU training throughputs and compare"),
    "validate-scaling": ("validate_scaling", "predict the published multi-node scaling efficiencies and compare"),
    "validate-local-sgd": ("validate_local_sgd", "predict the published local-SGD / DiLoCo-family measurements "
                                                 "and compare"),
    "validate-suite": ("validate_suite", "every class of validation/ at once: one table, a scatter plot, "
                                         "per-class statistics"),
    "calibrate-from-published": ("deepbench", "a measured calibration file from published kernel "
                                              "timings (DeepBench)"),
}


def usage():
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: {PROG} COMMAND [ARGS...]   ({PROG} COMMAND --help for its arguments)",
             "", "commands:"]
    lines += [f"  {name.ljust(width)}  {summary}" for name, (_, summary) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return
    if not argv:
        fail(f"{PROG}: expected a command ({', '.join(COMMANDS)}); --help lists them")
    if argv[0] not in COMMANDS:
        fail(f"{PROG}: unknown command '{argv[0]}' (expected one of {', '.join(COMMANDS)})")
    module = importlib.import_module(f".{COMMANDS[argv[0]][0]}", __package__)
    module.main(argv[1:], prog=f"{PROG} {argv[0]}")


if __name__ == "__main__":
    main()
