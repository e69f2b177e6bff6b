"""Predicted vs measured: how far the simulator's iteration times are from real runs.

Joins a simulated results.csv (PREDICTED) and a measured one (MEASURED, from the executor) on the
training configuration: workload, schedule, tau, delay, nodes, gpus, batch_per_gpu. Platform name,
collective and calibration are deliberately not part of the key: the prediction models the
cluster the measurement ran on, under its own names. For each matching configuration it prints
predicted and measured iteration time, error_pct = 100 * (predicted - measured) / measured
(positive = the simulator is pessimistic), and predicted vs measured exposed communication; then
the median |error|. Rows without a partner are counted, not compared.

Usage: python3 -m dasim_analysis compare PREDICTED.csv MEASURED.csv [-o FILE.png] [--csv OUT.csv]
       (or analysis/compare.py with the same arguments)
"""

import argparse
import sys

from .curves import check_one_row_per_point, curve_styles, schedule_label, sorted_curves
from .errors import fail
from .figures import annotate_apart, legend_outside, pyplot, save_figure
from .files import write_csv
from .results_io import SCHEDULES, load_results

KEY = ["workload", "schedule", "tau", "delay", "nodes", "gpus", "batch_per_gpu"]
# Rows match on the micro-batches per step too (results_io: from schedule_detail), so a measured
# run with gradient accumulation is never compared with a prediction without it.
JOIN_KEY = KEY + ["accumulation_steps"]
TABLE_COLUMNS = KEY + ["predicted_iter_s", "measured_iter_s", "error_pct",
                       "predicted_exposed_s", "measured_exposed_s"]


def join(predicted, measured):
    """Matched configurations (one row each, sorted) and the counts of unmatched rows per side."""
    keep = JOIN_KEY + ["iter_time_s", "exposed_comm_s"]
    merged = predicted[keep].merge(measured[keep], on=JOIN_KEY, how="outer",
                                   suffixes=("_predicted", "_measured"), indicator=True)
    only_predicted = int((merged["_merge"] == "left_only").sum())
    only_measured = int((merged["_merge"] == "right_only").sum())
    both = merged[merged["_merge"] == "both"]
    table = both[KEY].copy()
    table["predicted_iter_s"] = both["iter_time_s_predicted"]
    table["measured_iter_s"] = both["iter_time_s_measured"]
    table["error_pct"] = 100.0 * (table["predicted_iter_s"] - table["measured_iter_s"]) / \
        table["measured_iter_s"]
    table["predicted_exposed_s"] = both["exposed_comm_s_predicted"]
    table["measured_exposed_s"] = both["exposed_comm_s_measured"]
    order = {name: i for i, name in enumerate(SCHEDULES)}
    table = table.assign(_order=table["schedule"].map(order))
    table = table.sort_values(["workload", "_order", "tau", "delay", "gpus", "nodes",
                               "batch_per_gpu"]).drop(columns="_order").reset_index(drop=True)
    return table, only_predicted, only_measured


def print_table(table, predicted_path, measured_path, only_predicted, only_measured):
    print(f"predicted: {predicted_path}  measured: {measured_path}  "
          f"({len(table)} matching configuration(s))")
    cells = [TABLE_COLUMNS]
    for row in table.itertuples(index=False):
        values = row._asdict()
        cells.append([str(values[c]) for c in KEY] + [
            f"{values['predicted_iter_s']:.6g}", f"{values['measured_iter_s']:.6g}",
            f"{values['error_pct']:.1f}", f"{values['predicted_exposed_s']:.6g}",
            f"{values['measured_exposed_s']:.6g}"])
    widths = [max(len(line[i]) for line in cells) for i in range(len(TABLE_COLUMNS))]
    for line in cells:
        print("  ".join(cell.rjust(width) if index >= len(KEY) - 3 else cell.ljust(width)
                        for index, (cell, width) in enumerate(zip(line, widths))).rstrip())
    median = table["error_pct"].abs().median()
    print(f"median |error|: {median:.1f}% over {len(table)} configuration(s)")
    if only_predicted or only_measured:
        print(f"not compared: {only_predicted} predicted-only and {only_measured} measured-only "
              f"row(s) without a matching configuration")


def draw(plt, table, predicted, measured):
    figure, axis = plt.subplots(figsize=(9.6, 6.8), layout="constrained")
    longest = float(max(table["predicted_iter_s"].max(), table["measured_iter_s"].max()))
    shortest = float(min(table["predicted_iter_s"].min(), table["measured_iter_s"].min()))
    scale, unit = (1e3, "ms") if longest < 2.0 else (1.0, "s")
    # The axes span the points (and the ±10% band around them), not 0 to the largest: points a
    # few percent apart would otherwise sit on top of each other in one corner.
    low, high = shortest * scale / 1.15, longest * scale * 1.15
    if high / low > 20:
        axis.set_xscale("log")
        axis.set_yscale("log")
    line = [low, high]
    axis.plot(line, line, color="black", linewidth=1.2, label="y = x (exact prediction)")
    axis.plot(line, [v * 1.1 for v in line], color="grey", linestyle="--", linewidth=1,
              label="±10%")
    axis.plot(line, [v * 0.9 for v in line], color="grey", linestyle="--", linewidth=1)
    columns = ["schedule", "tau", "delay"]
    curves = sorted_curves(table, columns)
    points, texts = [], []
    for (key, rows), style in zip(curves, curve_styles(curves, columns)):
        axis.plot(rows["measured_iter_s"] * scale, rows["predicted_iter_s"] * scale,
                  linestyle="none", marker=style["marker"], color=style["color"], markersize=8,
                  markeredgecolor="black", label=schedule_label(*key))
        for row in rows.itertuples(index=False):
            points.append((row.measured_iter_s * scale, row.predicted_iter_s * scale))
            texts.append(f"{row.error_pct:+.1f}% ({row.gpus} GPU{'' if row.gpus == 1 else 's'})")
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    axis.set_aspect("equal")
    axis.set_xlabel(f"measured iteration time ({unit})")
    axis.set_ylabel(f"predicted iteration time ({unit})")
    median = table["error_pct"].abs().median()
    platforms = (" / ".join(sorted(predicted["platform"].unique())) + " (predicted) vs " +
                 " / ".join(sorted(measured["platform"].unique())) + " (measured)")
    workloads = ", ".join(sorted(table["workload"].unique()))
    axis.set_title(f"Predicted vs measured iteration time: {workloads}\n{platforms}\n"
                   f"median |error| {median:.1f}% over {len(table)} configuration(s)",
                   fontsize=11)
    legend_outside(axis)
    # Each point's error beside it where there is room; crowded points are in the table.
    left_out = annotate_apart(axis, points, texts) if len(points) <= 40 else len(points)
    if left_out:
        axis.annotate(f"{left_out} of {len(points)} points unlabelled\n(crowded; every error is\n"
                      "in the printed table)", (1.02, 0.0), xycoords="axes fraction",
                      ha="left", va="bottom", fontsize=8)
    return figure


def compare(predicted_path, measured_path, output=None, csv_path=None):
    """Prints the comparison of two results files and returns it (one row per matched
    configuration, TABLE_COLUMNS); also writes it to CSV_PATH and the scatter plot to OUTPUT."""
    predicted = load_results(predicted_path)
    measured = load_results(measured_path)
    check_one_row_per_point(predicted_path, predicted, JOIN_KEY)
    check_one_row_per_point(measured_path, measured, JOIN_KEY)
    table, only_predicted, only_measured = join(predicted, measured)
    if table.empty:
        fail(f"{predicted_path}, {measured_path}: no rows match on configuration ({', '.join(JOIN_KEY)})")
    print_table(table, predicted_path, measured_path, only_predicted, only_measured)
    if csv_path:
        write_csv(csv_path, TABLE_COLUMNS, table[TABLE_COLUMNS].itertuples(index=False, name=None))
    if output:
        save_figure(draw(pyplot(), table, predicted, measured), output)
        print(f"wrote {output}", file=sys.stderr)
    return table


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description="Predicted vs measured iteration time for "
                                     "the configurations two dasim results files share.")
    parser.add_argument("predicted", metavar="PREDICTED.csv")
    parser.add_argument("measured", metavar="MEASURED.csv")
    parser.add_argument("-o", "--output", metavar="FILE.png", help="scatter plot")
    parser.add_argument("--csv", metavar="OUT.csv", help="the comparison table as CSV")
    args = parser.parse_args(argv)
    compare(args.predicted, args.measured, args.output, args.csv)
