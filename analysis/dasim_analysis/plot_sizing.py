"""Interconnect sizing: efficiency vs inter-node bandwidth, and the slowest fabric that keeps 90%
(or any other efficiencies, --thresholds).

Reads a dasim results.csv from a bandwidth sweep (a sweep column such as inter_node_bandwidth_Bps,
in bytes per second or a SimGrid-style string like "25GBps"), draws efficiency vs bandwidth in Gb/s
on a log axis, one line per schedule setting (and per GPU count when several), with the 90% line,
and prints for each line the slowest bandwidth at which efficiency reaches 0.9: one table per
efficiency of --thresholds (default 0.9; the figure marks the first). Between two swept points
efficiency is taken as linear in log(bandwidth), the same straight segments the figure draws.

Usage: python3 -m dasim_analysis plot-sizing RESULTS.csv -o FILE.png [--bandwidth-column COL]
                                             [--thresholds 0.9,0.95]
       (or analysis/plot_sizing.py with the same arguments, as `dasim run --plot` calls it)
"""

import argparse
import math
import sys

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


def to_Gbps(Bps):
    return Bps * 8.0 / 1e9


def threshold_bandwidth(bandwidths_Gbps, efficiencies, threshold=THRESHOLD):
    """Slowest bandwidth with efficiency >= threshold, or None if no swept point reaches it.

    Scans from the slowest point up: the first point at or above the threshold, interpolated
    linearly in log(bandwidth) against the point before it. Returns (bandwidth, at_lowest), where
    at_lowest means the slowest swept point already reaches it (the true answer may be lower).
    """
    points = sorted(zip(bandwidths_Gbps, efficiencies))
    for index, (bandwidth, efficiency) in enumerate(points):
        if efficiency >= threshold:
            if index == 0:
                return bandwidth, True
            low_bandwidth, low_efficiency = points[index - 1]
            fraction = (threshold - low_efficiency) / (efficiency - low_efficiency)
            log_bandwidth = math.log(low_bandwidth) + fraction * (
                math.log(bandwidth) - math.log(low_bandwidth))
            return math.exp(log_bandwidth), False
    return None, False


def summary_rows(frame, column, threshold=THRESHOLD):
    """One row per (panel, curve): the curve's description and its threshold bandwidth."""
    rows = []
    for (workload, platform), panel in panels(frame):
        columns = curve_columns(panel, exclude=PANEL_COLUMNS + [column])
        if "gpus" not in columns:
            columns.append("gpus")  # the table always says the cluster size
        for key, curve in sorted_curves(panel, columns):
            bandwidth, at_lowest = threshold_bandwidth(to_Gbps(curve[column]).tolist(),
                                                       curve["efficiency"].tolist(), threshold)
            best = curve.loc[curve["efficiency"].idxmax()]
            rows.append({
                "workload": workload, "platform": platform,
                "curve": dict(zip(columns, key)), "bandwidth_Gbps": bandwidth,
                "at_lowest": at_lowest, "best_efficiency": float(best["efficiency"]),
                "best_Gbps": to_Gbps(float(best[column])),
            })
    return rows


def print_table(rows, column, threshold=THRESHOLD):
    print(f"slowest bandwidth with efficiency >= {threshold:g} (column {column}; "
          "linear interpolation in log bandwidth between the bracketing points)")
    # schedule_detail only says more than schedule, tau and delay for the DiLoCo family.
    hidden = {"schedule", "tau", "delay", "gpus"}
    if not any(row["curve"]["schedule"] in ("diloco", "streaming_diloco") for row in rows):
        hidden.add("schedule_detail")
    extra = sorted({c for row in rows for c in row["curve"]} - hidden)
    header = ["workload", "platform", "schedule", "tau", "delay", "gpus"] + extra + [
        "bandwidth_Gbps", "note"]
    table = [header]
    for row in rows:
        curve = row["curve"]
        if row["bandwidth_Gbps"] is None:
            value = "none"
            note = (f"never reached; best efficiency {row['best_efficiency']:.3f} "
                    f"at {row['best_Gbps']:g} Gb/s")
        else:
            value = f"{row['bandwidth_Gbps']:.2f}"
            note = "reached at the slowest swept bandwidth" if row["at_lowest"] else ""
        table.append([row["workload"], row["platform"], curve["schedule"], str(curve["tau"]),
                      str(curve["delay"]), str(curve["gpus"])] +
                     [str(curve.get(c, "")) for c in extra] + [value, note])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


# What the swept bandwidth is, in the axis label and the title.
_SWEPT = {"wan_bandwidth_Bps": ("WAN bandwidth of each site", "WAN bandwidth between sites")}


def draw(plt, frame, column, summary, threshold=THRESHOLD):
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
            crossing = found["bandwidth_Gbps"]
            if crossing is None:
                label += f" (never ≥{threshold:.0%})"
            elif found["at_lowest"]:
                label += f" (≥{threshold:.0%} already at {crossing:.3g} Gb/s)"
            else:
                label += f" (≥{threshold:.0%} from {crossing:.3g} Gb/s)"
            axis.plot(to_Gbps(curve[column]), curve["efficiency"], label=label, linewidth=2,
                      markersize=6, **style)
            if crossing is not None:
                axis.plot([crossing, crossing], [0, threshold], color=style["color"],
                          linestyle=":", linewidth=1.5)
                axis.plot([crossing], [threshold], marker="D", color=style["color"],
                          markeredgecolor="black", markersize=7, zorder=4)
        swept = sorted(to_Gbps(rows[column]).unique())
        axis.set_xscale("log")
        if len(swept) <= 12:
            axis.set_xticks(swept)
            axis.set_xticklabels([f"{b:g}" for b in swept])
            axis.minorticks_off()
        axis.set_xlim(swept[0] / 1.2, swept[-1] * 1.2)
        axis.set_ylim(0, max(1.05, float(rows["efficiency"].max()) * 1.05))
        axis.set_xlabel(f"{_SWEPT.get(column, ('inter-node bandwidth per link',))[0]} (Gb/s, log scale)")
        axis.set_ylabel("efficiency = speedup / GPUs")
        note = constant_note(rows, ["gpus", "collective", "batch_per_gpu", "source"])
        axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
        handles, labels = axis.get_legend_handles_labels()
        handles.append(plt.Line2D([], [], marker="D", color="grey", markeredgecolor="black",
                                  linestyle="none", markersize=7))
        labels.append(f"slowest bandwidth reaching {threshold:.0%} (interpolated)")
        axis.legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5),
                    framealpha=0.9)
    swept = _SWEPT.get(column, (None, "inter-node bandwidth"))[1]
    figure.suptitle(f"Interconnect sizing: efficiency vs {swept}", fontsize=13)
    return figure


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description="Efficiency vs inter-node bandwidth from a dasim "
                                     "bandwidth sweep, with the slowest bandwidth keeping 90%.")
    parser.add_argument("results", metavar="RESULTS.csv")
    parser.add_argument("--quiet", action="store_true", help="do not report the files written")
    parser.add_argument("-o", "--output", metavar="FILE.png", required=True)
    parser.add_argument("--bandwidth-column", metavar="COL", default=DEFAULT_COLUMN,
                        help=f"sweep column with the bandwidth (default {DEFAULT_COLUMN})")
    parser.add_argument("--thresholds", metavar="E[,E...]", default=f"{THRESHOLD:g}",
                        help="efficiencies in (0, 1] to find the slowest bandwidth for, one table "
                        f"each; the figure marks the first (default {THRESHOLD:g})")
    args = parser.parse_args(argv)
    thresholds = parse_thresholds(args.thresholds)

    column = args.bandwidth_column
    frame = load_results(args.results, extra_numeric=[column])
    check_panels(args.results, frame, column)
    for line, value in enumerate(frame[column].tolist(), start=2):
        if value <= 0:
            fail(f"{args.results}: line {line}: column {column}: expected a positive "
                            f"bandwidth, got {value:g}")
    summaries = [summary_rows(frame, column, threshold) for threshold in thresholds]
    for index, (threshold, summary) in enumerate(zip(thresholds, summaries)):
        if index:
            print()
        print_table(summary, column, threshold)
    plt = pyplot()
    save_figure(draw(plt, frame, column, summaries[0], thresholds[0]), args.output)
    if not args.quiet:
        print(f"wrote {args.output}", file=sys.stderr)
