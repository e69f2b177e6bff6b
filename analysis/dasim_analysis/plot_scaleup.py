"""Scale-up figures from a dasim results.csv: speedup vs GPUs and efficiency vs GPUs.

One panel per (workload, platform), one line per schedule setting (sync SGD, local SGD with its tau,
DaSGD with its tau and delay d), and the ideal linear line, so a reader sees at a glance which
schedule keeps scaling on which fabric. Speedup is the result file's own column (relative to the
1-GPU run of the same schedule); this command plots, it does not recompute.

Usage: python3 -m dasim_analysis plot-scaleup RESULTS.csv -o FILE.png [--efficiency-out FILE2.png]
       (or analysis/plot_scaleup.py with the same arguments, as `dasim run --plot` calls it)
"""

import argparse
import os
import sys

from .curves import (PANEL_COLUMNS, check_panels, constant_note, curve_columns, curve_label,
                     curve_styles, panels, sorted_curves)
from .figures import log2_gpu_axis, pyplot, save_figure, subplot_grid
from .results_io import load_results


def efficiency_path(speedup_path):
    stem, extension = os.path.splitext(speedup_path)
    return f"{stem}_efficiency{extension or '.png'}"


def draw(plt, frame, metric):
    """One figure of `metric` (speedup or efficiency) vs GPUs, one panel per (workload, platform)."""
    groups = panels(frame)
    figure, axes = subplot_grid(plt, len(groups))
    for axis, ((workload, platform), rows) in zip(axes, groups):
        gpu_counts = sorted(rows["gpus"].unique())
        columns = curve_columns(rows, exclude=PANEL_COLUMNS + ["gpus"])
        curves = sorted_curves(rows, columns)
        span = [min(gpu_counts), max(gpu_counts)]
        if metric == "speedup":
            axis.plot(span, span, color="black", linestyle=":", linewidth=1.5, label="ideal (linear)")
        else:
            axis.axhline(1.0, color="black", linestyle=":", linewidth=1.5, label="ideal (1.0)")
            axis.axhline(0.9, color="grey", linestyle="--", linewidth=1, label="90% efficiency")
        for (key, curve), style in zip(curves, curve_styles(curves)):
            curve = curve.sort_values("gpus")
            axis.plot(curve["gpus"], curve[metric], label=curve_label(columns, key),
                      linewidth=2, markersize=6, **style)
        log2_gpu_axis(axis, gpu_counts)
        axis.set_xlabel("GPUs (log2 scale)")
        if metric == "speedup":
            axis.set_yscale("log", base=2)
            ticks = axis.get_xticks()
            axis.set_yticks(ticks)
            axis.set_yticklabels([f"{t:g}" for t in ticks])
            axis.minorticks_off()
            axis.set_ylim(axis.get_xlim())
            axis.set_ylabel("speedup over 1 GPU (log2 scale)")
        else:
            top = max(1.05, float(rows["efficiency"].max()) * 1.05)
            axis.set_ylim(0, top)
            axis.set_ylabel("efficiency = speedup / GPUs")
        note = constant_note(rows, ["collective", "batch_per_gpu", "source"])
        axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
        axis.legend(loc="upper left" if metric == "speedup" else "lower left", framealpha=0.9)
    title = "Scale-up: speedup vs GPUs" if metric == "speedup" else "Scale-up: efficiency vs GPUs"
    figure.suptitle(f"{title} (weak scaling, fixed batch per GPU)", fontsize=13)
    figure.tight_layout()
    return figure


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description="Speedup and efficiency vs GPUs from a dasim "
                                     "results.csv, one panel per (workload, platform).")
    parser.add_argument("results", metavar="RESULTS.csv")
    parser.add_argument("--quiet", action="store_true", help="do not report the files written")
    parser.add_argument("-o", "--output", metavar="FILE.png", required=True,
                        help="speedup figure")
    parser.add_argument("--efficiency-out", metavar="FILE2.png",
                        help="efficiency figure (default: FILE_efficiency.png)")
    args = parser.parse_args(argv)

    frame = load_results(args.results)
    check_panels(args.results, frame, "gpus")
    plt = pyplot()
    save_figure(draw(plt, frame, "speedup"), args.output)
    efficiency_out = args.efficiency_out or efficiency_path(args.output)
    save_figure(draw(plt, frame, "efficiency"), efficiency_out)
    if not args.quiet:
        print(f"wrote {args.output} and {efficiency_out}", file=sys.stderr)
