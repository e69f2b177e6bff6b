"""Time to a target loss vs GPUs, one panel per (workload, platform), one line per schedule setting:
the convergence side of the trade next to the scale-up figures' throughput side.

A results file has a time_to_target_s column (steps to the target from the scenario's convergence
file x the simulated iteration time, docs/time-to-accuracy.md) filled only when the scenario names
a convergence file. plot-scaleup draws this figure beside its two when at least one row has a
value; rows without one (a schedule the convergence file has no factor for, a target not reached)
are left out of it. This module plots, it does not recompute.
"""

import math

from .curves import (PANEL_COLUMNS, accumulation_note_columns, constant_note, curve_columns, curve_label,
                     curve_styles, factored_legend, panels, scaling_kind, sorted_curves)
from .figures import log2_gpu_axis, place_legend, subplot_grid

COLUMN = "time_to_target_s"


def has_values(frame):
    """Whether any row has a time to target: without one (no column, or all cells empty) no
    figure is drawn and nothing is said."""
    return COLUMN in frame.columns and bool((frame[COLUMN].notna() & (frame[COLUMN] > 0)).any())


def plain(formatter_class):
    """formatter_class's choice of which ticks to label, each label as a plain number."""
    class Plain(formatter_class):
        def __call__(self, x, pos=None):
            return f"{x:g}" if super().__call__(x, pos) else ""
    return Plain


def draw(plt, frame):
    """The figure; frame is the whole results file (has_values(frame) is true).

    Curves are formed as in the scale-up figures, over all of a panel's rows, so a curve here is
    the same curve there; then the rows without a value (or 0, which a log axis has no place for)
    are dropped, and a curve left with none is named under the panel's title instead.
    """
    from matplotlib.ticker import LogFormatter  # late, as pyplot(): matplotlib is slow to import

    groups = [(name, rows) for name, rows in panels(frame) if rows[COLUMN].gt(0).any()]
    curves_of = {}
    for name, rows in groups:
        columns = curve_columns(rows, exclude=PANEL_COLUMNS + ["gpus"])
        curves_of[name] = (columns, sorted_curves(rows, columns))
    outside = max(len(curves) for _, curves in curves_of.values()) > 4
    figure, axes = subplot_grid(plt, len(groups), panel_width=10.0 if outside else 6.4)
    for axis, ((workload, platform), rows) in zip(axes, groups):
        columns, all_curves = curves_of[(workload, platform)]
        curves, missing = [], []
        for key, curve in all_curves:
            curve = curve[curve[COLUMN] > 0]  # NaN (empty) compares false too
            (curves if not curve.empty else missing).append((key, curve))
        rows = rows[rows[COLUMN] > 0]
        styles = curve_styles(all_curves, columns)  # the colours of the scale-up figure's curves
        styles = [style for (key, _), style in zip(all_curves, styles) if key in dict(curves)]
        factored = factored_legend(curves, columns, styles) if len(curves) > 8 else None
        for (key, curve), style in zip(curves, styles):
            curve = curve.sort_values("gpus")
            label = None if factored else curve_label(columns, key)
            axis.plot(curve["gpus"], curve[COLUMN], label=label, linewidth=2, markersize=6, **style)
        log2_gpu_axis(axis, sorted(rows["gpus"].unique()))
        axis.set_xlabel("GPUs (log2 scale)")
        axis.set_yscale("log")
        # Plain numbers (20, 30, 20000), not 2x10^1 or 2e+04; which minor ticks get a label is
        # matplotlib's choice (some where the axis spans under two decades).
        axis.yaxis.set_major_formatter(plain(LogFormatter)())
        axis.yaxis.set_minor_formatter(plain(LogFormatter)(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
        low, high = float(rows[COLUMN].min()), float(rows[COLUMN].max())
        # A decade at least, so a flat curve is not drawn as a steep one across a few percent.
        middle = math.sqrt(low * high)
        axis.set_ylim(min(low / 1.3, middle / math.sqrt(10)), max(high * 1.3, middle * math.sqrt(10)))
        axis.set_ylabel("time to target loss (s, log scale)")
        title = f"{workload} on {platform}"
        note = constant_note(rows, ["collective", "batch_per_gpu", "source"] + accumulation_note_columns(rows))
        if note:
            title += f"\n({note})"
        if missing:
            title += "\nno time to target for " + ", ".join(curve_label(columns, key) for key, _ in missing)
        axis.set_title(title)
        place_legend(axis, factored, outside, "best")
    figure.suptitle(f"Time to target loss vs GPUs ({scaling_kind(frame)})", fontsize=13)
    return figure
