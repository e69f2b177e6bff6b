"""Where the time of one training iteration goes, per schedule and GPU count (stacked bars).

Each bar stacks, bottom to top, per iteration and mean over workers:
  compute               = compute_s
  exposed communication = exposed_comm_s                   (workers waited for it)
  input wait            = input_wait_s                     (a loader slower than the step; a
                                                            panel without any shows none)
  hidden communication  = max(comm_s - exposed_comm_s, 0)  (in flight while compute went on)
Compute + exposed + input wait is about the iteration time, marked by a black tick (iter_time_s
itself), so the hatched part above the tick is communication the schedule hid behind compute and
the bar top is compute + all communication + input wait. One panel per (workload, platform).

Usage: python3 -m dasim_analysis plot-breakdown RESULTS.csv -o FILE.png [--gpus 8,512,4096]
       (or analysis/plot_breakdown.py with the same arguments, as `dasim run --plot` calls it)
--gpus draws only those GPU counts: a sweep of ten counts and eight configurations makes 80 bars
per panel, too many to read.
"""

import argparse
import sys

from .curves import (PANEL_COLUMNS, accumulation_note_columns, check_panels, constant_note, curve_columns,
                     curve_label, panels, sorted_curves)
from .figures import legend_outside, pyplot, save_figure, subplot_grid
from .errors import fail
from .results_io import load_results

INPUT_WAIT = "input wait (loader slower than the step)"
COMPONENTS = [  # (label, colour, hatch)
    ("compute", "#8da0cb", ""),
    ("exposed communication (waited for)", "#e41a1c", ""),
    (INPUT_WAIT, "#fdb462", ""),
    ("hidden communication (overlapped)", "#b3de69", "//"),
]


def input_wait(rows):
    """input_wait_s, 0 where empty (measured rows, files written before the column)."""
    return rows["input_wait_s"].fillna(0)


def components(rows):
    hidden = (rows["comm_s"] - rows["exposed_comm_s"]).clip(lower=0)
    return [rows["compute_s"], rows["exposed_comm_s"], input_wait(rows), hidden]


def draw_panel(axis, rows, workload, platform, scale, unit):
    gpu_counts = sorted(rows["gpus"].unique())
    columns = curve_columns(rows, exclude=PANEL_COLUMNS + ["gpus"])
    curves = sorted_curves(rows, columns)
    width = 0.8 / len(curves)
    top = 0.0
    # The input wait is in the legend only where some bar of the panel has one.
    shown = [label for label, _, _ in COMPONENTS if label != INPUT_WAIT or (input_wait(rows) > 0).any()]
    for index, (key, curve) in enumerate(curves):
        curve = curve.set_index("gpus").reindex(gpu_counts)
        present = curve["iter_time_s"].notna().to_numpy()
        positions = [g + (index - (len(curves) - 1) / 2) * width
                     for g, keep in zip(range(len(gpu_counts)), present) if keep]
        curve = curve[present]
        bottom = [0.0] * len(curve)
        for (label, colour, hatch), values in zip(COMPONENTS, components(curve)):
            if label not in shown:  # all 0 in this panel: no bar edges drawn for it
                continue
            heights = (values * scale).tolist()
            axis.bar(positions, heights, width * 0.92, bottom=bottom, color=colour, hatch=hatch,
                     edgecolor="#404040", linewidth=0.5, label=label if index == 0 else None)
            bottom = [b + h for b, h in zip(bottom, heights)]
        iteration = (curve["iter_time_s"] * scale).tolist()
        axis.scatter(positions, iteration, marker="_", s=(width * 300) ** 2 / 40, color="black",
                     linewidths=2.5, zorder=3, label="iteration time" if index == 0 else None)
        for x, height, marker in zip(positions, bottom, iteration):
            y = max(height, marker)
            top = max(top, y)
            axis.annotate(curve_label(columns, key), (x, y), xytext=(0, 3),
                          textcoords="offset points", rotation=90, ha="center", va="bottom",
                          fontsize=8)
    axis.set_xticks(range(len(gpu_counts)))
    axis.set_xticklabels([str(g) for g in gpu_counts])
    axis.set_xlabel("GPUs")
    axis.set_ylabel(f"time per iteration ({unit})")
    # Room above the tallest bar for its rotated label (about 1.2% of the axis per character).
    longest_label = max(len(curve_label(columns, key)) for key, _ in curves)
    axis.set_ylim(0, top * (1.2 + 0.015 * longest_label))
    axis.grid(axis="x", visible=False)
    note = constant_note(rows, ["collective", "batch_per_gpu", "source"] + accumulation_note_columns(rows))
    axis.set_title(f"{workload} on {platform}" + (f"\n({note})" if note else ""))
    handles, labels = axis.get_legend_handles_labels()
    order = [labels.index(name) for name in reversed(shown)] + [labels.index("iteration time")]
    # Beside the bars, not over them: the tallest bars and their labels are often the first.
    legend_outside(axis, handles=[handles[i] for i in order], labels=[labels[i] for i in order])


def parse_gpu_counts(text):
    """--gpus: positive GPU counts, comma-separated, each once."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) <= 0 or len(set(counts)) != len(counts):
        fail(f"--gpus: expected positive GPU counts separated by commas, each once, got '{text}'")
    return counts


def keep_gpu_counts(path, frame, counts):
    """The rows of the GPU counts asked for; every one of them must be in the file."""
    present = set(int(g) for g in frame["gpus"].unique())
    missing = [c for c in counts if c not in present]
    if missing:
        fail(f"{path}: --gpus {','.join(map(str, missing))}: no rows with that many GPUs "
             f"(the file has {', '.join(map(str, sorted(present)))})")
    return frame[frame["gpus"].isin(counts)]


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description="Stacked bars of compute / exposed communication / "
                                     "input wait / hidden communication per iteration from a dasim results.csv.")
    parser.add_argument("results", metavar="RESULTS.csv")
    parser.add_argument("--quiet", action="store_true", help="do not report the files written")
    parser.add_argument("-o", "--output", metavar="FILE.png", required=True)
    parser.add_argument("--gpus", metavar="N[,N...]",
                        help="draw only these GPU counts (default: every count in the file)")
    args = parser.parse_args(argv)

    counts = parse_gpu_counts(args.gpus) if args.gpus is not None else None
    frame = load_results(args.results)
    if counts is not None:
        frame = keep_gpu_counts(args.results, frame, counts)
    check_panels(args.results, frame, "gpus")
    plt = pyplot()
    longest = float((frame["compute_s"] + frame[["comm_s", "exposed_comm_s"]].max(axis=1) + input_wait(frame)).max())
    scale, unit = (1e3, "ms") if longest < 2.0 else (1.0, "s")
    groups = panels(frame)
    bars = max(len(rows) for _, rows in groups)
    # The panel's width holds its bars and the legend on their right (about 2.6 in).
    figure, axes = subplot_grid(plt, len(groups), panel_width=max(7.0, 0.28 * bars) + 2.6,
                                panel_height=5.2)
    for axis, ((workload, platform), rows) in zip(axes, groups):
        draw_panel(axis, rows, workload, platform, scale, unit)
    figure.suptitle("Time breakdown per iteration (mean over workers)", fontsize=13)
    save_figure(figure, args.output)
    if not args.quiet:
        print(f"wrote {args.output}", file=sys.stderr)
