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
    """A grid of `count` panels under constrained layout, which keeps the figure's suptitle, the
    panel titles and legends placed outside the axes clear of each other."""
    columns = min(count, max_columns)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(panel_width * columns, panel_height * rows),
                                squeeze=False, layout="constrained")
    flat = list(axes.flat)
    for unused in flat[count:]:
        unused.set_visible(False)
    return figure, flat[:count]


def legend_outside(axis, **kwargs):
    """The axis's legend to the right of it, outside the data (constrained layout makes room)."""
    return axis.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                       framealpha=0.9, **kwargs)


def place_legend(axis, factored, outside, loc):
    """The curves' legend: outside the axis with the factored entries (curves.factored_legend)
    after the axis's own, outside alone when curves are many, else inside at `loc`."""
    if factored:
        handles, labels = axis.get_legend_handles_labels()
        legend_outside(axis, handles=handles + factored[0], labels=labels + factored[1])
    elif outside:
        legend_outside(axis)
    else:
        axis.legend(loc=loc, framealpha=0.9)


def annotate_apart(axis, points, texts, fontsize=8):
    """Labels each (x, y) data point with its text: beside it where there is room, else further
    out in one of eight directions with a thin line back to the point; always inside the axes and
    clear of every marker and label already placed. A label with no such place is left out.
    Returns how many were left out.

    Call it once the axes' limits and the figure's size are final: it places in display space.
    """
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    figure = axis.figure
    figure.canvas.draw()  # constrained layout places the axes: their pixels are now final
    renderer = figure.canvas.get_renderer()
    frame = axis.get_window_extent(renderer)
    radius = 6 * figure.dpi / 72  # a marker of size 8 with its edge, in pixels, and a margin
    taken = [Bbox.from_extents(x - radius, y - radius, x + radius, y + radius)
             for x, y in axis.transData.transform(list(points))]
    # (dx, dy) directions and the alignment that keeps the text on that side of its anchor.
    directions = [((1, 0), "left", "center"), ((-1, 0), "right", "center"),
                  ((0, 1), "center", "bottom"), ((0, -1), "center", "top"),
                  ((1, 1), "left", "bottom"), ((-1, 1), "right", "bottom"),
                  ((1, -1), "left", "top"), ((-1, -1), "right", "top")]
    places = [(distance, d) for distance in (8, 22, 36, 50) for d in directions]
    left_out = 0
    for point, text in zip(points, texts):
        for distance, ((dx, dy), ha, va) in places:
            scale = distance / (2 ** 0.5 if dx and dy else 1)
            line = {} if distance == 8 else {"arrowprops": {"arrowstyle": "-", "color": "grey",
                                                            "linewidth": 0.6, "shrinkB": 5}}
            label = axis.annotate(text, point, xytext=(dx * scale, dy * scale),
                                  textcoords="offset points", ha=ha, va=va, fontsize=fontsize,
                                  **line)
            label.update_positions(renderer)
            box = Text.get_window_extent(label, renderer)  # the text alone, not its line back
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and
                      box.y1 <= frame.y1)
            if inside and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            label.remove()
        else:
            left_out += 1
    return left_out


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
