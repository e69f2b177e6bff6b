"""Scale-up figures from a dasim results.csv: speedup vs GPUs and efficiency vs GPUs.

One panel per (workload, platform), one line per schedule setting (sync SGD, local SGD with its tau,
DaSGD with its tau and delay d), and the ideal linear line, so a reader sees at a glance which
schedule keeps scaling on which fabric. Speedup is the result file's own column (relative to the
1-GPU run of the same schedule); this command plots, it does not recompute.

When the file has a time_to_target_s column with at least one value (a scenario that names a
convergence file), a third figure, time to target vs GPUs (plot_time_to_target.py), is written
too: time_to_target.png beside FILE.png, or --time-to-target-out. Without values, nothing is
written and nothing said.

Usage: python3 -m dasim_analysis plot-scaleup RESULTS.csv -o FILE.png [--efficiency-out FILE2.png]
                                              [--time-to-target-out FILE3.png]
       (or analysis/plot_scaleup.py with the same arguments, as `dasim run --plot` calls it)
"""

import argparse
import math
import os
import sys

from .curves import (PANEL_COLUMNS, accumulation_note_columns, check_panels, constant_note, curve_columns,
                     curve_label, curve_styles, factored_legend, panels, scaling_kind, sorted_curves)
from .figures import log2_gpu_axis, place_legend, pyplot, save_figure, subplot_grid
from .results_io import load_results
from . import plot_time_to_target


def efficiency_path(speedup_path):
    stem, extension = os.path.splitext(speedup_path)
    return f"{stem}_efficiency{extension or '.png'}"


def time_to_target_path(speedup_path):
    return os.path.join(os.path.dirname(speedup_path), "time_to_target.png")


def draw(plt, frame, metric):
    """One figure of `metric` (speedup or efficiency) vs GPUs, one panel per (workload, platform)."""
    groups = panels(frame)
    # A few curves keep their legend inside the axes; more would cover the lines: beside them.
    outside = max(len(sorted_curves(rows, curve_columns(rows, exclude=PANEL_COLUMNS + ["gpus"])))
                  for _, rows in groups) > 4
    figure, axes = subplot_grid(plt, len(groups), panel_width=10.0 if outside else 6.4)
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
        styles = curve_styles(curves, columns)
        # Many curves (schedules x a swept bandwidth): each colour and each line style said once.
        factored = factored_legend(curves, columns, styles) if len(curves) > 8 else None
        for (key, curve), style in zip(curves, styles):
            curve = curve.sort_values("gpus")
            label = None if factored else curve_label(columns, key)
            axis.plot(curve["gpus"], curve[metric], label=label, linewidth=2, markersize=6, **style)
        log2_gpu_axis(axis, gpu_counts)
        axis.set_xlabel("GPUs (log2 scale)")
        if metric == "speedup":
            axis.set_yscale("log", base=2)
            # The GPU axis's range, reaching down to the lowest speedup (a curve far below
            # linear must not leave the panel).
            low, high = axis.get_xlim()
            lowest = float(rows["speedup"].min())
            if lowest > 0:
                low = min(low, lowest / 1.25)
            ticks = [2**e for e in range(math.ceil(math.log2(low)), math.floor(math.log2(high)) + 1)]
            axis.set_yticks(ticks)
            axis.set_yticklabels([f"{t:g}" for t in ticks])
            axis.minorticks_off()
            axis.set_ylim(low, high)
            baselines = sorted(int(g) for g in rows["baseline_gpus"].unique())
            over = f"{baselines[0]} GPU" + ("s" if baselines[0] > 1 else "") if len(baselines) == 1 else "baseline"
            axis.set_ylabel(f"speedup over {over} (log2 scale)")
        else:
            top = max(1.05, float(rows["efficiency"].max()) * 1.05)
            axis.set_ylim(0, top)
            axis.set_ylabel("efficiency = speedup / GPUs")
        note = constant_note(rows, ["collective", "batch_per_gpu", "source"] + accumulation_note_columns(rows))
        axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
        place_legend(axis, factored, outside, "upper left" if metric == "speedup" else "lower left")
    title = "Scale-up: speedup vs GPUs" if metric == "speedup" else "Scale-up: efficiency vs GPUs"
    figure.suptitle(f"{title} ({scaling_kind(frame)})", fontsize=13)
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
    parser.add_argument("--time-to-target-out", metavar="FILE3.png",
                        help="time to target figure, written only when the results have "
                        "time_to_target_s values (default: time_to_target.png beside FILE.png)")
    args = parser.parse_args(argv)

    frame = load_results(args.results)
    check_panels(args.results, frame, "gpus")
    plt = pyplot()
    save_figure(draw(plt, frame, "speedup"), args.output)
    efficiency_out = args.efficiency_out or efficiency_path(args.output)
    save_figure(draw(plt, frame, "efficiency"), efficiency_out)
    written = [args.output, efficiency_out]
    if plot_time_to_target.has_values(frame):
        written.append(args.time_to_target_out or time_to_target_path(args.output))
        save_figure(plot_time_to_target.draw(plt, frame), written[-1])
    if not args.quiet:
        print(f"wrote {', '.join(written[:-1])} and {written[-1]}", file=sys.stderr)
