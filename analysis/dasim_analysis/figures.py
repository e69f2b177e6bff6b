"""matplotlib set-up and output shared by the figures: fixed defaults, panel grids, the log2 GPU
axis, and PNGs written so that the same input gives the same bytes."""

import math

from .files import write_atomically


def pyplot():
    """matplotlib.pyplot on the Agg backend with fixed, readable defaults (imported late so a bad
    input file is rejected before the slower import)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "legend.fontsize": 9,
        "figure.dpi": 100, "savefig.dpi": 120, "svg.hashsalt": "dasim", "axes.grid": True,
        "grid.alpha": 0.3,
    })
    return plt


def subplot_grid(plt, count, panel_width=6.4, panel_height=4.6, max_columns=2):
    columns = min(count, max_columns)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(panel_width * columns, panel_height * rows),
                                squeeze=False)
    flat = list(axes.flat)
    for unused in flat[count:]:
        unused.set_visible(False)
    return figure, flat[:count]


def save_figure(figure, path):
    """Writes a PNG with no software/time metadata, so the same input gives the same bytes."""
    write_atomically(path, lambda stream: figure.savefig(stream, format="png",
                                                         metadata={"Software": None}),
                     binary=True)


def log2_gpu_axis(axis, gpu_counts):
    """log2 x axis with one plain-integer tick per power of two spanned by the data."""
    axis.set_xscale("log", base=2)
    low = 2 ** math.floor(math.log2(min(gpu_counts)))
    high = 2 ** math.ceil(math.log2(max(gpu_counts)))
    ticks = [2**e for e in range(int(math.log2(low)), int(math.log2(high)) + 1)]
    axis.set_xticks(ticks)
    axis.set_xticklabels([str(t) for t in ticks])
    axis.minorticks_off()
    axis.set_xlim(low / 1.25, high * 1.25)
