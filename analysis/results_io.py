"""Shared loading, validation and figure helpers for the analysis/ scripts.

Every script reads a dasim results.csv (simulated or measured rows, same schema as
sim/report/result_row.hpp). A wrong file must stop the script before it draws anything, with one
line naming the file and the problem and exit status 2 (the project's bad-input convention), so
this module does the validation once for all of them. It also holds the figure conventions
(schedule labels and colours, deterministic PNG output) so every figure reads the same way.
"""

import math
import os
import re
import sys
import tempfile

import pandas as pd

# Column order of sim/report/result_row.cpp result_columns(); extra sweep columns may follow.
RESULT_COLUMNS = [
    "scenario", "platform", "workload", "schedule", "tau", "delay", "collective", "nodes", "gpus",
    "batch_per_gpu", "iter_time_s", "throughput_samples_s", "speedup", "efficiency", "compute_s",
    "comm_s", "exposed_comm_s", "source", "calibration",
]
INTEGER_COLUMNS = ["tau", "delay", "nodes", "gpus", "batch_per_gpu"]
FLOAT_COLUMNS = [
    "iter_time_s", "throughput_samples_s", "speedup", "efficiency", "compute_s", "comm_s",
    "exposed_comm_s",
]
SCHEDULES = ["sgd", "local_sgd", "dasgd"]
# Columns that are results rather than configuration: they never distinguish one curve from another.
METRIC_COLUMNS = set(FLOAT_COLUMNS)

EXIT_BAD_INPUT = 2


def fail(message):
    """Prints one line on stderr and exits with the bad-input status."""
    print(message, file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def _missing_columns_message(path, missing):
    return f"{path}: missing column(s) {', '.join(missing)} (is this a dasim results.csv?)"


def load_results(path, extra_numeric=()):
    """Loads and validates a results CSV; returns a DataFrame with numeric columns converted.

    extra_numeric: sweep columns the caller needs as numbers (e.g. a bandwidth column); they must
    be present too. Values may be plain numbers or SimGrid-style bandwidths ("25GBps", "100Gbps").
    """
    try:
        # Read everything as text first so a bad cell can be reported with its line number
        # instead of silently becoming NaN.
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        fail(f"{path}: cannot read: no such file")
    except pd.errors.EmptyDataError:
        fail(_missing_columns_message(path, RESULT_COLUMNS + list(extra_numeric)))
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        fail(f"{path}: cannot parse as CSV: {first_line} (is this a dasim results.csv?)")

    frame.columns = [str(c).strip() for c in frame.columns]
    required = RESULT_COLUMNS + [c for c in extra_numeric if c not in RESULT_COLUMNS]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        fail(_missing_columns_message(path, missing))
    if frame.empty:
        fail(f"{path}: no result rows after the header (is this a dasim results.csv?)")

    for column in INTEGER_COLUMNS + FLOAT_COLUMNS:
        frame[column] = _numeric_column(path, frame, column, parse_number)
    for column in extra_numeric:
        frame[column] = _numeric_column(path, frame, column, parse_bandwidth_Bps)
    for column in frame.columns:
        if column not in RESULT_COLUMNS and column not in extra_numeric:
            # Extra sweep columns that are all numbers become numbers, so curves sort 10 < 100.
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().all():
                frame[column] = converted
    for column in INTEGER_COLUMNS:
        _check(path, frame, column, lambda v: float(v).is_integer(), "a whole number")
        frame[column] = frame[column].astype(int)
    _check(path, frame, "gpus", lambda v: v >= 1, "at least 1")
    _check(path, frame, "iter_time_s", lambda v: v > 0, "a positive time")
    for column in ["compute_s", "comm_s", "exposed_comm_s"]:
        _check(path, frame, column, lambda v: v >= 0, "a non-negative time")
    for line, value in _lines(frame, "schedule"):
        if value not in SCHEDULES:
            fail(f"{path}: line {line}: column schedule: expected one of {', '.join(SCHEDULES)}, "
                 f"got '{value}'")
    return frame


def _lines(frame, column):
    # Line 1 is the header, so data row i is on line i + 2.
    return ((index + 2, value) for index, value in enumerate(frame[column].tolist()))


def _numeric_column(path, frame, column, parser):
    values = []
    for line, text in _lines(frame, column):
        try:
            value = parser(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            fail(f"{path}: line {line}: column {column}: expected a number, got '{text}'")
        values.append(value)
    return pd.Series(values, index=frame.index, dtype=float)


def _check(path, frame, column, predicate, expected):
    for line, value in _lines(frame, column):
        if not predicate(value):
            fail(f"{path}: line {line}: column {column}: expected {expected}, got {value:g}")


def parse_number(text):
    return float(text.strip())


_BANDWIDTH = re.compile(r"^\s*([0-9.eE+-]+)\s*([kKMGTP]?i?)(Bps|bps)?\s*$")
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
           "ki": 2.0**10, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}


def parse_bandwidth_Bps(text):
    """Bytes per second from a plain number or a SimGrid-style string ("25GBps"; "bps" is bits)."""
    match = _BANDWIDTH.match(text)
    if not match or match.group(2) not in _PREFIX or (match.group(2) and not match.group(3)):
        raise ValueError(text)
    value = float(match.group(1)) * _PREFIX[match.group(2)]
    return value / 8.0 if match.group(3) == "bps" else value


# ---------------------------------------------------------------------------------------------
# Curves: which rows form one line in a figure.

def curve_columns(frame, exclude):
    """Configuration columns that vary within frame (schedule, tau and delay always first).

    A curve is one setting of these columns; anything constant is said once in the title instead of
    in every legend entry. exclude: the x-axis and panel columns.
    """
    columns = ["schedule", "tau", "delay"]
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


def schedule_label(schedule, tau, delay):
    if schedule == "sgd":
        return "sync SGD"
    if schedule == "local_sgd":
        return f"local SGD τ={tau}"
    return f"DaSGD τ={tau} d={delay}"


def curve_label(columns, key):
    values = dict(zip(columns, key))
    parts = [schedule_label(values["schedule"], values["tau"], values["delay"])]
    for column in columns[3:]:
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
}
_MARKERS = {"sgd": "o", "local_sgd": "s", "dasgd": "^"}
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


# ---------------------------------------------------------------------------------------------
# Figures.

PANEL_COLUMNS = ["workload", "platform"]


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
    """Writes a PNG with no software/time metadata, so the same input gives the same bytes, under a
    temporary name renamed into place, so a failed run never leaves half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".png", dir=directory)
        with os.fdopen(handle, "wb") as stream:
            figure.savefig(stream, format="png", metadata={"Software": None})
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        os.replace(temporary, path)
    except OSError as error:
        if temporary and os.path.exists(temporary):
            os.remove(temporary)
        print(f"{path}: cannot write: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)


def write_text_atomically(path, text):
    """Writes text under a temporary name and renames it into place (no half-written tables)."""
    directory = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".csv", dir=directory)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except OSError as error:
        if temporary and os.path.exists(temporary):
            os.remove(temporary)
        print(f"{path}: cannot write: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)


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
