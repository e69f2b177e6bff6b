"""Sizing: efficiency vs a swept parameter, and the value that keeps 90% (or any other
efficiencies, --thresholds).

Reads a dasim results.csv from a sweep and draws efficiency vs the swept value, one line per
schedule setting (and per GPU count when several), with the 90% line, and prints for each line the
value at which efficiency reaches 0.9: one table per efficiency of --thresholds (default 0.9; the
figure marks the first). What the value is comes from the column's name (swept_quantity.py): for a
bandwidth (`..._bandwidth_Bps`, shown in Gb/s) or a host's input rate
(`host_input_samples_per_s`) the slowest that keeps 90%; for a latency (`..._latency_s`, shown in
us, or ms from 1 ms up) or an oversubscription the largest. `--bandwidth-column` names a bandwidth
column of any name, in bytes per second or a SimGrid-style string like "25GBps". Between two swept
points efficiency is taken as linear in log(value) (linear in the value for a host rate, which
efficiency is proportional to, and when a swept value is 0), the same straight segments the figure
draws.

Usage: python3 -m dasim_analysis plot-sizing RESULTS.csv -o FILE.png
                   [--column COL | --bandwidth-column COL] [--thresholds 0.9,0.95]
       (or analysis/plot_sizing.py with the same arguments, as `dasim run --plot` calls it)
"""

import argparse
import math
import sys

from . import swept_quantity
from .curves import (PANEL_COLUMNS, check_panels, constant_note, curve_columns, curve_label,
                     curve_styles, panels, sorted_curves)
from .errors import fail
from .figures import pyplot, save_figure, subplot_grid
from .results_io import load_results

THRESHOLD = 0.9
DEFAULT_COLUMN = "inter_node_bandwidth_Bps"


def parse_thresholds(text):
    """--thresholds: efficiencies in (0, 1], comma-separated, each once."""
    try:
        values = [float(item) for item in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not 0 < v <= 1 for v in values) or len(set(values)) != len(values):
        fail(f"--thresholds: expected efficiencies in (0, 1] separated by commas, each once, got '{text}'")
    return values


def in_log(frame, column, quantity):
    """Whether to interpolate and draw in log(value): the quantity's way, unless a value is 0."""
    return quantity.log and bool((frame[column] > 0).all())


def threshold_value(values, efficiencies, threshold=THRESHOLD, more_is_better=True, log=True):
    """The worst swept value with efficiency >= threshold, or None if no swept point reaches it.

    Worst is the least value when more is better (a bandwidth), the largest otherwise (a latency).
    Scans from the worst point towards the best: the first point at or above the threshold,
    interpolated against the point before it, linearly in log(value) when `log`. Returns
    (value, at_worst), where at_worst means the worst swept point already reaches it (the true
    answer lies beyond the swept range).
    """
    points = sorted(zip(values, efficiencies), reverse=not more_is_better)
    scale = math.log if log else (lambda v: v)
    for index, (value, efficiency) in enumerate(points):
        if efficiency >= threshold:
            if index == 0:
                return value, True
            worse_value, worse_efficiency = points[index - 1]
            fraction = (threshold - worse_efficiency) / (efficiency - worse_efficiency)
            scaled = scale(worse_value) + fraction * (scale(value) - scale(worse_value))
            return (math.exp(scaled) if log else scaled), False
    return None, False


def summary_rows(frame, column, quantity, threshold=THRESHOLD):
    """One row per (panel, curve): the curve's description and its threshold value (in the
    quantity's unit)."""
    log = in_log(frame, column, quantity)
    rows = []
    for (workload, platform), panel in panels(frame):
        columns = curve_columns(panel, exclude=PANEL_COLUMNS + [column])
        if "gpus" not in columns:
            columns.append("gpus")  # the table always says the cluster size
        for key, curve in sorted_curves(panel, columns):
            value, at_worst = threshold_value(quantity.shown(curve[column]).tolist(),
                                              curve["efficiency"].tolist(), threshold,
                                              quantity.more_is_better, log)
            best = curve.loc[curve["efficiency"].idxmax()]
            rows.append({
                "workload": workload, "platform": platform,
                "curve": dict(zip(columns, key)), "value": value,
                "at_worst": at_worst, "best_efficiency": float(best["efficiency"]),
                "best_value": quantity.shown(float(best[column])),
            })
    return rows


def print_table(rows, column, quantity, log, threshold=THRESHOLD):
    interpolation = f"linear interpolation in {'log ' if log else ''}{quantity.noun}"
    print(f"{quantity.extreme} {quantity.noun} with efficiency >= {threshold:g} (column {column}; "
          f"{interpolation} between the bracketing points)")
    # schedule_detail only says more than schedule, tau and delay for the DiLoCo family.
    hidden = {"schedule", "tau", "delay", "gpus"}
    if not any(row["curve"]["schedule"] in ("diloco", "streaming_diloco") for row in rows):
        hidden.add("schedule_detail")
    extra = sorted({c for row in rows for c in row["curve"]} - hidden)
    header = ["workload", "platform", "schedule", "tau", "delay", "gpus"] + extra + [
        quantity.table_column, "note"]
    table = [header]
    for row in rows:
        curve = row["curve"]
        if row["value"] is None:
            value = "none"
            note = (f"never reached; best efficiency {row['best_efficiency']:.3f} "
                    f"at {quantity.format(row['best_value'])}")
        else:
            value = f"{row['value']:.2f}"
            note = f"reached at the {quantity.extreme} swept {quantity.noun}" if row["at_worst"] else ""
        table.append([row["workload"], row["platform"], curve["schedule"], str(curve["tau"]),
                      str(curve["delay"]), str(curve["gpus"])] +
                     [str(curve.get(c, "")) for c in extra] + [value, note])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


def _tick_labels(quantity, swept, limits, log):
    """A label at each swept value, except where it would print over the last labelled one (8000
    and 9000 on a log axis, or 0, 10 and 100 us before 5000 on a linear one): the gap must hold
    both halves of the two labels, about 1.45% of the axis per character, and 1% between them."""
    position = math.log10 if log else (lambda v: v)
    span = position(limits[1]) - position(limits[0])
    labels, last = [], None
    for value in swept:
        text = quantity.tick(value)
        if last is not None:
            gap = (position(value) - position(last[0])) / span
            if gap < 0.0145 * (len(text) + len(last[1])) / 2 + 0.01:
                labels.append("")
                continue
        last = (value, text)
        labels.append(text)
    return labels


def draw(plt, frame, column, quantity, summary, threshold=THRESHOLD):
    log = in_log(frame, column, quantity)
    groups = panels(frame)
    figure, axes = subplot_grid(plt, len(groups), panel_width=11.5, panel_height=5.0,
                                           max_columns=1)
    summary_by_panel = {}
    for row in summary:
        summary_by_panel.setdefault((row["workload"], row["platform"]), []).append(row)
    for axis, ((workload, platform), rows) in zip(axes, groups):
        columns = curve_columns(rows, exclude=PANEL_COLUMNS + [column])
        curves = sorted_curves(rows, columns)
        axis.axhline(threshold, color="black", linestyle="--", linewidth=1.2,
                     label=f"{threshold:.0%} efficiency threshold")
        thresholds = {tuple(r["curve"][c] for c in columns): r
                      for r in summary_by_panel[(workload, platform)]}
        for (key, curve), style in zip(curves, curve_styles(curves, columns)):
            curve = curve.sort_values(column)
            label = curve_label(columns, key)
            found = thresholds[tuple(key)]
            crossing = found["value"]
            if crossing is None:
                label += f" (never ≥{threshold:.0%})"
            elif found["at_worst"]:
                word = "already" if quantity.more_is_better else "still"
                label += f" (≥{threshold:.0%} {word} at {quantity.format_short(crossing)})"
            elif quantity.more_is_better:
                label += f" (≥{threshold:.0%} from {quantity.format_short(crossing)})"
            else:
                label += f" (≥{threshold:.0%} up to {quantity.format_short(crossing)})"
            axis.plot(quantity.shown(curve[column]), curve["efficiency"], label=label, linewidth=2,
                      markersize=6, **style)
            if crossing is not None:
                axis.plot([crossing, crossing], [0, threshold], color=style["color"],
                          linestyle=":", linewidth=1.5)
                axis.plot([crossing], [threshold], marker="D", color=style["color"],
                          markeredgecolor="black", markersize=7, zorder=4)
        swept = sorted(quantity.shown(rows[column]).unique())
        if log:
            axis.set_xscale("log")
            limits = (swept[0] / 1.2, swept[-1] * 1.2)
        else:  # a host rate, or a swept 0 (a latency): linear, a twentieth of the range each side
            margin = (swept[-1] - swept[0]) / 20 or 1
            limits = (swept[0] - margin, swept[-1] + margin)
        axis.set_xlim(*limits)
        if len(swept) <= 12:
            axis.set_xticks(swept)
            axis.set_xticklabels(_tick_labels(quantity, swept, limits, log))
            axis.minorticks_off()
        axis.set_ylim(0, max(1.05, float(rows["efficiency"].max()) * 1.05))
        axis.set_xlabel(f"{quantity.axis_name} ({quantity.axis_unit()}{', log scale' if log else ''})")
        axis.set_ylabel("efficiency = speedup / GPUs")
        note = constant_note(rows, ["gpus", "collective", "batch_per_gpu", "source"])
        axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
        handles, labels = axis.get_legend_handles_labels()
        handles.append(plt.Line2D([], [], marker="D", color="grey", markeredgecolor="black",
                                  linestyle="none", markersize=7))
        reaching = "reaching" if quantity.more_is_better else "keeping"
        labels.append(f"{quantity.extreme} {quantity.noun} {reaching} {threshold:.0%} (interpolated)")
        axis.legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5),
                    framealpha=0.9)
    figure.suptitle(quantity.title, fontsize=13)
    return figure


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description="Efficiency vs a swept parameter from a "
                                     "dasim sweep, with the slowest bandwidth (largest latency, ...) "
                                     "keeping 90%.")
    parser.add_argument("results", metavar="RESULTS.csv")
    parser.add_argument("--quiet", action="store_true", help="do not report the files written")
    parser.add_argument("-o", "--output", metavar="FILE.png", required=True)
    columns = parser.add_mutually_exclusive_group()
    columns.add_argument("--column", metavar="COL",
                         help="dasim sweep column, its quantity read from its name: <part>_bandwidth_Bps, "
                         "<part>_latency_s, oversubscription, host_input_samples_per_s (default "
                         f"{DEFAULT_COLUMN})")
    columns.add_argument("--bandwidth-column", metavar="COL",
                         help="a column of any name holding a bandwidth (bytes per second or a "
                         "SimGrid-style string)")
    parser.add_argument("--thresholds", metavar="E[,E...]", default=f"{THRESHOLD:g}",
                        help="efficiencies in (0, 1] to find the swept value for, one table "
                        f"each; the figure marks the first (default {THRESHOLD:g})")
    args = parser.parse_args(argv)
    thresholds = parse_thresholds(args.thresholds)

    if args.bandwidth_column:  # named after its part where dasim named it (wan_bandwidth_Bps)
        column = args.bandwidth_column
        quantity = (swept_quantity.of_column(column) if column.endswith("_bandwidth_Bps")
                    else swept_quantity.bandwidth())
    else:
        column = args.column or DEFAULT_COLUMN
        quantity = swept_quantity.of_column(column)
    frame = load_results(args.results, extra_numeric=[column])
    check_panels(args.results, frame, column)
    for line, value in enumerate(frame[column].tolist(), start=2):
        if value < 0 or (value == 0 and quantity.noun != "latency"):
            fail(f"{args.results}: line {line}: column {column}: expected a "
                 f"{'non-negative' if quantity.noun == 'latency' else 'positive'} {quantity.noun}, "
                 f"got {value:g}")
    for line, value in enumerate(frame["efficiency"].tolist(), start=2):
        if math.isnan(value):  # a measured row without a baseline has none (results_io)
            fail(f"{args.results}: line {line}: column efficiency: expected a number: plot-sizing "
                 "needs every row's efficiency")
    quantity = swept_quantity.for_values(quantity, float(frame[column].max()))
    log = in_log(frame, column, quantity)
    summaries = [summary_rows(frame, column, quantity, threshold) for threshold in thresholds]
    for index, (threshold, summary) in enumerate(zip(thresholds, summaries)):
        if index:
            print()
        print_table(summary, column, quantity, log, threshold)
    plt = pyplot()
    save_figure(draw(plt, frame, column, quantity, summaries[0], thresholds[0]), args.output)
    if not args.quiet:
        print(f"wrote {args.output}", file=sys.stderr)
