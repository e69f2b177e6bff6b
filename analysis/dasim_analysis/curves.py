"""Which rows of a results table form one line of a figure, and how that line is labelled and
drawn: the conventions every figure shares (schedule colours, legend wording, panel order), so
they all read the same way."""

import re

from .errors import fail
from .results_io import DERIVED_COLUMNS, METRIC_COLUMNS, SCHEDULES

# One panel per (workload, platform): curves are only compared on the same model and fabric.
PANEL_COLUMNS = ["workload", "platform"]
# Columns that follow from the schedule: iterations and warm-up are rounded to its period, and
# only sgd (and islands) have buckets. They tell curves apart only where they vary among rows of
# the same schedule setting (bucket caps: of the same schedule kind, e.g. two sgd caps).
_DERIVED_FROM = {"iterations": "schedule_detail", "warmup": "schedule_detail", "bucket_cap_bytes": "schedule"}


def curve_columns(frame, exclude):
    """Configuration columns that vary within frame (schedule, tau, delay and schedule_detail
    always first).

    A curve is one setting of these columns; anything constant is said once in the title instead of
    in every legend entry. exclude: the x-axis and panel columns.
    """
    columns = ["schedule", "tau", "delay", "schedule_detail"]
    for column in frame.columns:
        if column in columns or column in exclude or column in METRIC_COLUMNS or column in DERIVED_COLUMNS:
            continue
        if column == "nodes":
            # nodes usually follows gpus; it tells curves apart only where one GPU count comes
            # in several node layouts (8 GPUs as 1x8 or 2x4).
            if frame.groupby("gpus")["nodes"].nunique().max() > 1:
                columns.append(column)
            continue
        if column in _DERIVED_FROM:
            if frame.groupby(_DERIVED_FROM[column])[column].nunique().max() > 1:
                columns.append(column)
            continue
        if frame[column].nunique() > 1:
            columns.append(column)
    # Gradient accumulation: under strong scaling the global batch tells curves apart (the steps
    # follow from it at each GPU count), otherwise the micro-batches per step do.
    if is_strong_scaling(frame):
        if frame["samples_per_step"].nunique() > 1:
            columns.append("samples_per_step")
    elif "accumulation_steps" in frame.columns and frame["accumulation_steps"].nunique() > 1:
        columns.append("accumulation_steps")
    return columns


def is_strong_scaling(frame):
    """Whether frame's rows scale strongly: the micro-batches per step vary while every schedule
    setting of every panel keeps its samples per step (a scenario's global_batch)."""
    if "accumulation_steps" not in frame.columns or frame["accumulation_steps"].nunique() <= 1:
        return False
    keys = [c for c in PANEL_COLUMNS + SCHEDULE_COLUMNS + ["batch_per_gpu"] if c in frame.columns]
    return bool(frame.groupby(keys)["samples_per_step"].nunique().max() == 1)


def accumulation_note_columns(frame):
    """What a title says of gradient accumulation when all curves share it: the global batch
    under strong scaling, the micro-batches per step when there are several."""
    if is_strong_scaling(frame):
        return ["samples_per_step"]
    if "accumulation_steps" in frame.columns and frame["accumulation_steps"].nunique() == 1 \
            and int(frame["accumulation_steps"].iloc[0]) > 1:
        return ["accumulation_steps"]
    return []


def scaling_kind(frame):
    """The figures' subtitle: weak scaling (a fixed batch per GPU) or strong (a fixed global batch)."""
    if is_strong_scaling(frame):
        return "strong scaling, fixed global batch"
    return "weak scaling, fixed batch per GPU"


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
    swept = _swept_phrase(column, value)
    if swept:
        return swept
    if column == "accumulation_steps" and int(value) == 1:
        return "no accumulation"
    if column == "bucket_cap_bytes":  # text: empty where the schedule has no gradient buckets
        return f"{float(value) / 2**20:g} MiB buckets" if str(value).strip() else "no buckets"
    text = format_value(value)
    templates = {"gpus": "{} GPUs", "nodes": "{} nodes", "batch_per_gpu": "batch {}/GPU",
                 "collective": "collective {}", "source": "{}", "precision": "{}",
                 "baseline_gpus": "vs {} GPUs", "accumulation_steps": "{} micro-batches/step",
                 "samples_per_step": "global batch {}"}
    return templates.get(column, column + "={}").format(text)


# What a swept link is called in a label (the platform sweep parameters of docs/file-formats.md).
_LINKS = {"nic": "NIC", "fabric": "fabric", "nvlink": "NVLink", "nvswitch": "NVSwitch",
          "pcie": "PCIe", "wan": "WAN"}


def _swept_phrase(column, value):
    """'100 Gb/s' for inter_node_bandwidth_Bps=1.25e10, 'WAN 10 Gb/s', 'fabric latency 2 µs':
    a bandwidth or latency sweep column in the units people quote; None for any other column."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for suffix, what in (("_bandwidth_Bps", "bandwidth"), ("_latency_s", "latency")):
        if column.endswith(suffix):
            link = column[:-len(suffix)]
            name = _LINKS.get(link, link.replace("_", " "))
            if what == "bandwidth":
                text = f"{number * 8 / 1e9:.4g} Gb/s"
                return text if link == "inter_node" else f"{name} {text}"
            return f"{name} latency {format_seconds(number)}"
    return None


def format_seconds(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


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


# tab10: one colour per schedule (blue SGD, orange local SGD, green DaSGD, red DiLoCo, purple
# Streaming DiLoCo); a schedule's further settings take the spare ones, then tab20's light shades.
_SCHEDULE_COLOURS = {"sgd": "#1f77b4", "local_sgd": "#ff7f0e", "dasgd": "#2ca02c",
                     "diloco": "#d62728", "streaming_diloco": "#9467bd"}
_SPARE_COLOURS = ["#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
                  "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2"]
_MARKERS = {"sgd": "o", "local_sgd": "s", "dasgd": "^", "diloco": "D", "streaming_diloco": "v"}
_VARIANT_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_DASHES = ["-", "--", ":", "-."]
# The leading curve columns that make a schedule setting (see curve_columns).
SCHEDULE_COLUMNS = ["schedule", "tau", "delay", "schedule_detail"]


def _settings(curves, columns):
    """(split, schedule settings in curve order, other settings sorted): a curve's key is its
    schedule setting key[:split] followed by its other columns' setting key[split:]."""
    width = len(curves[0][0]) if curves else 0
    split = width if columns is None else next(
        (i for i, c in enumerate(columns) if c not in SCHEDULE_COLUMNS), len(columns))
    settings = list(dict.fromkeys(tuple(key[:split]) for key, _ in curves))
    others = sorted(set(tuple(key[split:]) for key, _ in curves))
    return split, settings, others


def curve_styles(curves, columns=None):
    """A style for each (key, rows) of sorted_curves, keys over `columns` (default: all of the key
    describes the schedule).

    Colour tells schedule settings apart: the schedule's own colour for its first setting, a
    distinct spare colour for each further one (DiLoCo H=100 and H=500 are not two shades of red).
    The other columns (GPU count, a swept bandwidth) vary line style and marker. With a single
    schedule setting, colour follows the other columns too.
    """
    split, settings, others = _settings(curves, columns)
    spare = iter(_SPARE_COLOURS * (1 + len(curves) // len(_SPARE_COLOURS)))
    colours, seen = {}, set()
    for setting in settings:
        schedule = setting[0]
        colours[setting] = next(spare) if schedule in seen else _SCHEDULE_COLOURS[schedule]
        seen.add(schedule)
    styles = []
    for key, _ in curves:
        setting, other = tuple(key[:split]), others.index(tuple(key[split:]))
        colour = colours[setting]
        if len(settings) == 1 and other > 0:
            colour = _SPARE_COLOURS[(other - 1) % len(_SPARE_COLOURS)]
        marker = _MARKERS[key[0]] if len(others) == 1 else _VARIANT_MARKERS[other % len(_VARIANT_MARKERS)]
        styles.append({"color": colour, "marker": marker, "linestyle": _DASHES[other % len(_DASHES)]})
    return styles


def factored_legend(curves, columns, styles):
    """(handles, labels) naming each colour once (the schedule settings) and each line style once
    (the other columns' settings, e.g. 8 swept bandwidths): 6 + 8 entries instead of 48. None
    when only one of the two varies, where the per-curve legend is no longer."""
    from matplotlib.lines import Line2D

    split, settings, others = _settings(curves, columns)
    if len(settings) < 2 or len(others) < 2:
        return None
    colour_of, style_of = {}, {}
    for (key, _), style in zip(curves, styles):
        colour_of.setdefault(tuple(key[:split]), style["color"])
        style_of.setdefault(tuple(key[split:]), style)
    handles, labels = [], []
    for setting in settings:
        values = dict(zip(columns, setting))
        handles.append(Line2D([], [], color=colour_of[setting], linewidth=2.5))
        labels.append(schedule_label(values["schedule"], values["tau"], values["delay"],
                                     values.get("schedule_detail", "")))
    for other in others:
        style = style_of[other]
        handles.append(Line2D([], [], color="grey", linewidth=2, marker=style["marker"],
                              linestyle=style["linestyle"]))
        labels.append(", ".join(_phrase(c, v) for c, v in zip(columns[split:], other)))
    return handles, labels


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
