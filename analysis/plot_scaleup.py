#!/usr/bin/python3
"""Scale-up figures from a dasim results.csv: speedup vs GPUs and efficiency vs GPUs.

One panel per (workload, platform), one line per schedule setting (sync SGD, local SGD with its tau,
DaSGD with its tau and delay d), and the ideal linear line, so a reader sees at a glance which
schedule keeps scaling on which fabric. Speedup is the result file's own column (relative to the
1-GPU run of the same schedule); this script plots, it does not recompute.

Usage: plot_scaleup.py RESULTS.csv -o FILE.png [--efficiency-out FILE2.png]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_io  # noqa: E402

PANEL_COLUMNS = results_io.PANEL_COLUMNS


def efficiency_path(speedup_path):
    stem, extension = os.path.splitext(speedup_path)
    return f"{stem}_efficiency{extension or '.png'}"


def draw(plt, frame, metric):
    """One figure of `metric` (speedup or efficiency) vs GPUs, one panel per (workload, platform)."""
    groups = results_io.panels(frame)
    figure, axes = results_io.subplot_grid(plt, len(groups))
    for axis, ((workload, platform), rows) in zip(axes, groups):
        gpu_counts = sorted(rows["gpus"].unique())
        columns = results_io.curve_columns(rows, exclude=PANEL_COLUMNS + ["gpus"])
        curves = results_io.sorted_curves(rows, columns)
        span = [min(gpu_counts), max(gpu_counts)]
        if metric == "speedup":
            axis.plot(span, span, color="black", linestyle=":", linewidth=1.5, label="ideal (linear)")
        else:
            axis.axhline(1.0, color="black", linestyle=":", linewidth=1.5, label="ideal (1.0)")
            axis.axhline(0.9, color="grey", linestyle="--", linewidth=1, label="90% efficiency")
        for (key, curve), style in zip(curves, results_io.curve_styles(curves)):
            curve = curve.sort_values("gpus")
            axis.plot(curve["gpus"], curve[metric], label=results_io.curve_label(columns, key),
                      linewidth=2, markersize=6, **style)
        results_io.log2_gpu_axis(axis, gpu_counts)
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
        note = results_io.constant_note(rows, ["collective", "batch_per_gpu", "source"])
        axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
        axis.legend(loc="upper left" if metric == "speedup" else "lower left", framealpha=0.9)
    title = "Scale-up: speedup vs GPUs" if metric == "speedup" else "Scale-up: efficiency vs GPUs"
    figure.suptitle(f"{title} (weak scaling, fixed batch per GPU)", fontsize=13)
    figure.tight_layout()
    return figure


def main():
    parser = argparse.ArgumentParser(description="Speedup and efficiency vs GPUs from a dasim "
                                     "results.csv, one panel per (workload, platform).")
    parser.add_argument("results", metavar="RESULTS.csv")
    parser.add_argument("-o", "--output", metavar="FILE.png", required=True,
                        help="speedup figure")
    parser.add_argument("--efficiency-out", metavar="FILE2.png",
                        help="efficiency figure (default: FILE_efficiency.png)")
    args = parser.parse_args()

    frame = results_io.load_results(args.results)
    results_io.check_panels(args.results, frame, "gpus")
    plt = results_io.pyplot()
    results_io.save_figure(draw(plt, frame, "speedup"), args.output)
    efficiency_out = args.efficiency_out or efficiency_path(args.output)
    results_io.save_figure(draw(plt, frame, "efficiency"), efficiency_out)
    print(f"wrote {args.output} and {efficiency_out}", file=sys.stderr)


if __name__ == "__main__":
    main()
