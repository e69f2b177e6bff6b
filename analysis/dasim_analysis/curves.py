"""Which rows of a results table form one line of a figure, and how that line is labelled and
drawn: the conventions every figure shares (schedule colours, legend wording, panel order), so
they all read the same way."""

import re

from .errors import fail
from .results_io import METRIC_COLUMNS, SCHEDULES

# One panel per (workload, platform): curves are only compared on the same model and fabric.
PANEL_COLUMNS = ["workload", "platform"]


def curve_columns(frame, exclude):
    """Configuration columns that vary within frame (schedule, tau, delay and schedule_detail
    always first).

    A curve is one setting of these columns; anything constant is said once in the title instead of
    in every legend entry. exclude: the x-axis and panel columns.
    """
    columns = ["schedule", "tau", "delay", "schedule_detail"]
    for column in frame.columns:
        if column in columns or column in exclude or column in METRIC_COLUMNS:
            continue
        if column == "nodes":
            # nodes usually follows gpus; it tells curves apart only where one GPU count comes
            # in several node layouts (8 GPUs as 1x8 or 2x4).
            if frame.groupby("gpus")["nodes"].nunique().max() > 1:
                columns.append(column)
            continue
        if frame[column].nunique() > 1:
            columns.append(column)
    return columns


def schedule_label(schedule, tau, delay, detail=""):
    if schedule == "sgd":
        return "sync SGD"
    if schedule == "local_sgd":
        return f"local SGD τ={tau}"
    if schedule == "dasgd":
        return f"DaSGD τ={tau} d={delay}"
    # The DiLoCo family: every parameter matters (fragments, overlap, outer step, bits); the
    # defaults (DiLoCo's Nesterov 0.7 / 0.9, alpha 0) are left unsaid.
    label = detail.replace(",nesterov lr=0.7 mu=0.9", "")
    label = re.sub(r",alpha=0(?=[,)])", "", label)
    return label.replace("streaming_diloco", "Streaming DiLoCo").replace("diloco", "DiLoCo")


def curve_label(columns, key):
    values = dict(zip(columns, key))
    parts = [schedule_label(values["schedule"], values["tau"], values["delay"], values["schedule_detail"])]
    for column in columns[4:]:
        parts.append(_phrase(column, values[column]))
    return ", ".join(parts)


def _phrase(column, value):
    text = format_value(value)
    templates = {"gpus": "{} GPUs", "nodes": "{} nodes", "batch_per_gpu": "batch {}/GPU",
                 "collective": "collective {}", "source": "{}"}
    return templates.get(column, column + "={}").format(text)


def format_value(value):
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_one_row_per_point(path, frame, columns):
    """Fails when two rows would be the same point of the same curve (columns: curve + x + panel):
    a figure would silently draw a zigzag between them."""
    counts = frame.groupby(columns).size()
    duplicated = counts[counts > 1]
    if not duplicated.empty:
        key = duplicated.index[0]
        key = key if isinstance(key, tuple) else (key,)
        where = ", ".join(f"{c}={format_value(v)}" for c, v in zip(columns, key))
        fail(f"{path}: {int(duplicated.iloc[0])} rows for the same point ({where}); "
             f"keep one row per configuration")


def sorted_curves(frame, columns):
    """(key, rows) per curve, schedules in the order sgd, local_sgd, dasgd, then by the key."""
    groups = list(frame.groupby(columns, sort=True))
    order = {name: i for i, name in enumerate(SCHEDULES)}
    groups.sort(key=lambda item: (order[item[0][0]],) + tuple(item[0][1:]))
    return groups


_SHADES = {
    "sgd": ["#1f77b4", "#6baed6", "#08306b", "#9ecae1"],
    "local_sgd": ["#ff7f0e", "#fdae6b", "#a63603", "#fdd0a2"],
    "dasgd": ["#2ca02c", "#74c476", "#00441b", "#a1d99b"],
    "diloco": ["#d62728", "#fc9272", "#67000d", "#fcbba1"],
    "streaming_diloco": ["#9467bd", "#bcbddc", "#3f007d", "#dadaeb"],
}
_MARKERS = {"sgd": "o", "local_sgd": "s", "dasgd": "^", "diloco": "D", "streaming_diloco": "v"}
_DASHES = ["-", "--", "-.", ":"]


def curve_style(schedule, variant):
    """Colour family per schedule (blue SGD, orange local SGD, green DaSGD), shade per variant."""
    shades = _SHADES[schedule]
    return {"color": shades[variant % len(shades)], "marker": _MARKERS[schedule],
            "linestyle": _DASHES[(variant // len(shades)) % len(_DASHES)]}


def curve_styles(curves):
    """Style for each (key, rows) of sorted_curves, numbering variants within each schedule."""
    seen = {}
    styles = []
    for key, _ in curves:
        variant = seen.get(key[0], 0)
        seen[key[0]] = variant + 1
        styles.append(curve_style(key[0], variant))
    return styles


def panels(frame):
    """(workload, platform) groups in a stable order."""
    return list(frame.groupby(PANEL_COLUMNS, sort=True))


def check_panels(path, frame, x_column):
    """check_one_row_per_point for every panel, before anything is drawn or written."""
    for _, rows in panels(frame):
        columns = curve_columns(rows, exclude=PANEL_COLUMNS + [x_column])
        check_one_row_per_point(path, rows, PANEL_COLUMNS + columns + [x_column])


def constant_note(frame, columns):
    """'collective ring · batch 32/GPU · simulated' for the given columns constant in frame, so
    what all curves share is said once in the title."""
    notes = []
    for column in columns:
        if column in frame.columns and frame[column].nunique() == 1:
            notes.append(_phrase(column, frame[column].iloc[0]))
    return " · ".join(notes)
