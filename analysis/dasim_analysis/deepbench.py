"""Turns published kernel timings into a measured dasim calibration file (dasim-calibration/1).

Publication supported: Baidu DeepBench's training result workbooks (results/train/*.xlsx of
github.com/baidu-research/DeepBench). Each results sheet has sections, a row whose column A names
the section ("Dense Matrix Multiplication", "Convolution", ...), column B the source application
and the data from column C on, under a header row of column names (in the section's own row for
GEMM, in the row after it for convolutions). Columns are found by their header names, since the
workbooks do not agree on their order (the V100 convolution columns are S, R, pad_w, pad_h, the
P100 ones R, S, pad_h, pad_w). Times are milliseconds; "N/A*" marks a pass that was not timed.

What the file gets (docs/calibration.md, "Measured calibrations from published kernel data"):
- fitted.flops[precision]: the median achieved rate of the sheet's GEMMs of at least 1e11 FLOPs
  per call (FLOPs = 2 M N K);
- fitted.efficiency_curves[precision][class]: rate / fitted.flops[precision] against FLOPs per
  call, one point per half decade of FLOPs (median FLOPs, median fraction), for the GEMMs and for
  each convolution class and pass (conv FLOPs = direct convolution 2 N K C R S P Q);
- per_shape: every convolution row with a square stride and padding, one entry per timed pass;
- fitted.memory_bandwidth_Bps and fitted.launch_overhead_s from the command line (DeepBench does
  not measure them), with the sources the caller names;
- sources: the publication (repository, commit, path, sheet, rows) behind every fitted value.

Usage: python3 -m dasim_analysis calibrate-from-published deepbench WORKBOOK.xlsx
           --sheet "SHEET NAME=PRECISION" [--sheet ...] --device-name NAME --date ISO-DATE
           --source-commit SHA --source-path PATH --memory-bandwidth BPS
           --memory-bandwidth-source TEXT --launch-overhead S --launch-overhead-source TEXT
           --out FILE.json [--toolkit TEXT] [--driver TEXT] [--source-repo REPO] [--note TEXT]
The same workbook and arguments give a byte-identical file (written atomically).
"""

import argparse
import hashlib
import math
import os
import re
import shlex
import statistics

from .errors import fail
from .files import write_json
from .xlsx import Workbook, column_letters

PUBLICATIONS = ["deepbench"]
FORMAT = "dasim-calibration/1"
# The loader's names and order (base/calibration/calibration.cpp: precision_names(), kernel_classes()).
PRECISIONS = ["fp32", "tf32", "fp16", "bf16"]
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}  # the sheet's storage type
CONV_CLASSES = ["conv_1x1", "conv_3x3_s1", "conv_other"]
PASSES = ["forward", "backward_data", "backward_filter"]
KERNEL_CLASSES = ["gemm"] + [f"{c}.{p}" for c in CONV_CLASSES for p in PASSES]
PER_SHAPE_KIND = {"forward": "conv_fwd", "backward_data": "conv_bwd_data",
                  "backward_filter": "conv_bwd_filter"}
# A convolution's fraction may exceed 1 (Winograd and FFT do fewer multiplies than the direct
# convolution counted), by at most 4 (Lavin & Gray, arXiv 1509.09308; the loader's kMaxConvFraction).
MAX_CONV_FRACTION = 4.0

GEMM_SECTION = "Dense Matrix Multiplication"
CONV_SECTION = "Convolution"
# field -> the header names it has in the workbooks (compared case-insensitively, spaces trimmed).
GEMM_COLUMNS = {"m": ["M"], "n": ["N"], "k": ["K"], "time_ms": ["Time (msec)"]}
CONV_COLUMNS = {
    "w": ["W"], "h": ["H"], "c": ["C"], "n": ["N"], "k": ["K"],
    "s": ["S (Filter width)", "S"], "r": ["R (Filter height)", "R"],
    "pad_w": ["pad_w"], "pad_h": ["pad_h"],
    "stride_w": ["Horizontal stride"], "stride_h": ["Vertical stride"],
    "forward": ["Forward (msec)"], "backward_data": ["wrt Inputs (msec)"],
    "backward_filter": ["wrt Parameters (msec)"],
}

# fitted.flops: the median rate of the GEMMs of at least this many FLOPs per call. In every
# DeepBench sheet the per-decade median rate stops rising above 1e10-1e11 FLOPs (launch and
# wave-quantisation tails are gone: >= 7 ms a call on a V100 in fp32, >= 1 ms with tensor cores),
# and the 52 GEMMs above 1e11 mix transposes and awkward sizes (K = 1530, N = 7000), so their
# median is what a large layer typically gets, where the maximum would be one lucky shape.
LARGE_GEMM_FLOPS = 1e11
BINS_PER_DECADE = 2  # efficiency curves: one point per half decade of FLOPs per call
SIGNIFICANT_DIGITS = 6  # of every derived number written (times keep 9, as the results files)


def rounded(value, digits=SIGNIFICANT_DIGITS):
    return float(f"{value:.{digits}g}")


# --- the command line --------------------------------------------------------------------------

class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2, as every other bad input."""

    def error(self, message):
        fail(f"{self.prog}: {message}")


def parse_arguments(argv, prog):
    parser = OneLineParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("publication", choices=PUBLICATIONS, help="the publication's layout")
    parser.add_argument("workbook", help="the published .xlsx file")
    parser.add_argument("--sheet", action="append", required=True, metavar="NAME=PRECISION",
                        help="a results sheet and the compute precision it measured "
                             f"({', '.join(PRECISIONS)}); repeat for each sheet, one must be fp32")
    parser.add_argument("--device-name", required=True, help="device.name of the calibration")
    parser.add_argument("--toolkit", help="device.toolkit (default: CUDA and cuDNN versions of the "
                                          "workbook's Specs sheet)")
    parser.add_argument("--driver", help="device.driver (default: the Specs sheet's driver)")
    parser.add_argument("--date", required=True,
                        help="when the publication's numbers were last changed, YYYY-MM-DDTHH:MM:SSZ")
    parser.add_argument("--source-repo", default="github.com/baidu-research/DeepBench",
                        help="where the workbook is published")
    parser.add_argument("--source-commit", required=True, help="the commit the workbook was taken at")
    parser.add_argument("--source-path", required=True, help="the workbook's path in that repository")
    parser.add_argument("--memory-bandwidth", required=True, type=float, metavar="BPS",
                        help="fitted.memory_bandwidth_Bps (bytes/s; not in the publication)")
    parser.add_argument("--memory-bandwidth-source", required=True, metavar="TEXT")
    parser.add_argument("--launch-overhead", required=True, type=float, metavar="S",
                        help="fitted.launch_overhead_s (seconds)")
    parser.add_argument("--launch-overhead-source", required=True, metavar="TEXT")
    # Not in DeepBench either (it times kernels alone): a published measurement of compute slowed by
    # concurrent collectives, with its source; absent means no interference.
    parser.add_argument("--compute-slowdown", type=float, metavar="F",
                        help="fitted.compute_slowdown_under_collective, in [0, 1)")
    parser.add_argument("--compute-slowdown-source", metavar="TEXT")
    parser.add_argument("--note", help="a note kept at the top of the file")
    parser.add_argument("--out", required=True, help="the calibration file to write")
    args = parser.parse_args(argv)
    args.sheets = [parse_sheet_option(text) for text in args.sheet]
    check_arguments(args)
    return args


def parse_sheet_option(text):
    name, separator, precision = text.rpartition("=")
    if not separator or not name:
        fail(f"--sheet '{text}': expected SHEET NAME=PRECISION")
    if precision not in PRECISIONS:
        fail(f"--sheet '{text}': unknown precision '{precision}' (expected one of {', '.join(PRECISIONS)})")
    return name, precision


def check_arguments(args):
    precisions = [p for _, p in args.sheets]
    for precision in precisions:
        if precisions.count(precision) > 1:
            fail(f"--sheet: precision {precision} is given to more than one sheet")
    if "fp32" not in precisions:
        fail("--sheet: no sheet is fp32 (a calibration needs fitted.flops.fp32)")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", args.date):
        fail(f"--date: expected an ISO date in UTC such as 2019-10-07T23:52:09Z, got '{args.date}'")
    if not re.fullmatch(r"[0-9a-f]{40}", args.source_commit):
        fail(f"--source-commit: expected a full 40-digit commit id, got '{args.source_commit}'")
    if not (math.isfinite(args.memory_bandwidth) and args.memory_bandwidth > 0):
        fail(f"--memory-bandwidth: expected bytes per second > 0, got {args.memory_bandwidth}")
    if not (math.isfinite(args.launch_overhead) and 0 <= args.launch_overhead < 1):
        fail(f"--launch-overhead: expected seconds in [0, 1), got {args.launch_overhead}")
    if args.compute_slowdown is not None:
        if not (math.isfinite(args.compute_slowdown) and 0 <= args.compute_slowdown < 1):
            fail(f"--compute-slowdown: expected a fraction in [0, 1), got {args.compute_slowdown}")
        if not args.compute_slowdown_source:
            fail("--compute-slowdown-source: required with --compute-slowdown (where the number comes from)")
    if not args.device_name.strip():
        fail("--device-name: expected a non-empty name")


def command_line(argv, args):
    """The converter's command as the file records it. The workbook and output paths are reduced
    to their file names, so the file depends on the workbook's bytes and not on where it was saved
    (same input, same file)."""
    paths = {args.workbook, args.out}
    words = []
    for word in argv:
        if word in paths:
            word = os.path.basename(word)
        elif word.startswith("--out="):
            word = "--out=" + os.path.basename(word[len("--out="):])
        words.append(word)
    return "python3 -m dasim_analysis calibrate-from-published " + shlex.join(words)


# --- reading one results sheet -----------------------------------------------------------------

class Sheet:
    """One results sheet: its rows, the text of its 'Precision' row, and where messages point."""

    def __init__(self, workbook, name, precision):
        self.workbook = workbook
        self.name = name
        self.precision = precision
        self.rows = workbook.rows(name)
        self.precision_text = next((cells[1].strip() for cells in self.rows.values()
                                    if cells[0].strip() == "Precision" and len(cells) > 1), "")

    def where(self, row=None, column=None):
        place = f"{self.workbook.path}: sheet '{self.name}'"
        if row is not None:
            place += f" {column_letters(column)}{row}" if column is not None else f" row {row}"
        return place

    def section(self, title, required):
        """(header {field: column}, [(row number, cells)]) of the section titled TITLE: the rows
        after its title row up to the next title, with a value in column C."""
        numbers = sorted(self.rows)
        starts = [n for n in numbers if self.rows[n][0].strip()]
        start = next((n for n in starts if self.rows[n][0].strip() == title), None)
        if start is None:
            if required:
                fail(f"{self.where()}: no '{title}' section (a row with that title in column A)")
            return None
        end = next((n for n in starts if n > start), math.inf)
        body = [n for n in numbers if start <= n < end]
        # The column names are in the title row (GEMM) or in the first row after it that has any.
        header_row = next((n for n in body if any(c.strip() for c in self.rows[n][2:])), None)
        if header_row is None:
            fail(f"{self.where()}: the '{title}' section has no header row of column names")
        data = [(n, self.rows[n]) for n in body
                if n > header_row and len(self.rows[n]) > 2 and self.rows[n][2].strip()]
        return header_row, data

    def columns(self, header_row, wanted, title):
        """{field: column index} for the header names in WANTED (see GEMM_COLUMNS)."""
        names = {cell.strip().lower(): i for i, cell in enumerate(self.rows[header_row]) if cell.strip()}
        found = {}
        for field, aliases in wanted.items():
            index = next((names[a.lower()] for a in aliases if a.lower() in names), None)
            if index is None:
                fail(f"{self.where(header_row)}: the '{title}' header has no column '{aliases[0]}'")
            found[field] = index
        return found

    def cell(self, cells, column):
        return cells[column].strip() if column < len(cells) else ""

    def integer(self, number, cells, column, minimum):
        text = self.cell(cells, column)
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value == int(value) and value >= minimum):
            fail(f"{self.where(number, column)}: expected an integer >= {minimum}, got '{text}'")
        return int(value)

    def time_ms(self, number, cells, column):
        """The time in ms, or None where the pass was not timed ('N/A*', 'N/A' or empty)."""
        text = self.cell(cells, column)
        if not text or text.upper().startswith("N/A"):
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            fail(f"{self.where(number, column)}: expected a time in ms > 0 or N/A, got '{text}'")
        return value


def read_gemms(sheet):
    header_row, data = sheet.section(GEMM_SECTION, required=True)
    col = sheet.columns(header_row, GEMM_COLUMNS, GEMM_SECTION)
    gemms, untimed = [], 0
    for number, cells in data:
        m, n, k = (sheet.integer(number, cells, col[f], 1) for f in ("m", "n", "k"))
        time_ms = sheet.time_ms(number, cells, col["time_ms"])
        if time_ms is None:
            untimed += 1
            continue
        gemms.append({"row": number, "m": m, "n": n, "k": k, "flops": 2 * m * n * k,
                      "time_s": time_ms / 1000})
    if not gemms:
        fail(f"{sheet.where(header_row)}: the '{GEMM_SECTION}' section has no timed rows")
    return gemms, untimed, (data[0][0], data[-1][0])


def conv_class(conv):
    if conv["r"] == 1 and conv["s"] == 1:
        return "conv_1x1"
    if conv["r"] == 3 and conv["s"] == 3 and conv["stride_h"] == 1 and conv["stride_w"] == 1:
        return "conv_3x3_s1"
    return "conv_other"


def read_convs(sheet):
    section = sheet.section(CONV_SECTION, required=False)
    if section is None:
        return [], None
    header_row, data = section
    col = sheet.columns(header_row, CONV_COLUMNS, CONV_SECTION)
    convs = []
    for number, cells in data:
        conv = {"row": number}
        for field in ("w", "h", "c", "n", "k", "r", "s", "stride_w", "stride_h"):
            conv[field] = sheet.integer(number, cells, col[field], 1)
        for field in ("pad_w", "pad_h"):
            conv[field] = sheet.integer(number, cells, col[field], 0)
        # Output size as cuDNN computes it (floor). The sheets' own P and Q columns are not used:
        # the P100 ones are not rounded down (78.5) and the V100 ones are in the other order.
        conv["p"] = (conv["h"] + 2 * conv["pad_h"] - conv["r"]) // conv["stride_h"] + 1
        conv["q"] = (conv["w"] + 2 * conv["pad_w"] - conv["s"]) // conv["stride_w"] + 1
        if conv["p"] < 1 or conv["q"] < 1:
            fail(f"{sheet.where(number)}: the filter is larger than the padded input")
        conv["flops"] = 2 * conv["n"] * conv["k"] * conv["c"] * conv["r"] * conv["s"] * conv["p"] * conv["q"]
        conv["class"] = conv_class(conv)
        conv["time_s"] = {}
        for name in PASSES:
            time_ms = sheet.time_ms(number, cells, col[name])
            if time_ms is not None:
                conv["time_s"][name] = time_ms / 1000
        convs.append(conv)
    return convs, ((data[0][0], data[-1][0]) if data else None)


def read_specs(workbook):
    """{label: value} of the workbook's 'Specs' sheet (column A: label, B: value; a row with only
    column A, such as 'NVIDIA DGX-1', is kept under its own text), or {} without one."""
    if "Specs" not in workbook.sheet_names:
        return {}
    specs = {}
    for cells in workbook.rows("Specs").values():
        label = cells[0].strip()
        value = cells[1].strip() if len(cells) > 1 else ""
        if label:
            specs[label] = value
    return specs


# --- fitting -----------------------------------------------------------------------------------

def large_gemm_rate(sheet, gemms):
    rates = [g["flops"] / g["time_s"] for g in gemms if g["flops"] >= LARGE_GEMM_FLOPS]
    if not rates:
        fail(f"{sheet.where()}: no GEMM of at least {LARGE_GEMM_FLOPS:g} FLOPs per call to fit "
             f"fitted.flops.{sheet.precision} from")
    return statistics.median(rates), len(rates)


def binned_curve(points, max_fraction):
    """[(flops, fraction)] -> ([[flops, fraction], ...], how many points were clamped): the
    median FLOPs and median fraction of each half decade of FLOPs per call, in increasing FLOPs.
    When every point falls in one half decade but the FLOPs differ, the lower and upper halves
    (by FLOPs) become two points, so the curve still has a slope. Fractions above MAX_FRACTION
    are clamped to it."""
    bins = {}
    for flops, fraction in points:
        bins.setdefault(math.floor(math.log10(flops) * BINS_PER_DECADE), []).append((flops, fraction))
    groups = [bins[b] for b in sorted(bins)]
    distinct = sorted({f for f, _ in points})
    if len(groups) == 1 and len(distinct) > 1:
        split = distinct[(len(distinct) + 1) // 2]  # the first FLOPs value of the upper half
        groups = [[p for p in points if p[0] < split], [p for p in points if p[0] >= split]]
    curve, clamped = [], 0
    for group in groups:
        fraction = statistics.median(f for _, f in group)
        if fraction > max_fraction:
            fraction, clamped = max_fraction, clamped + 1
        curve.append([rounded(statistics.median(f for f, _ in group)), rounded(fraction)])
    return curve, clamped


def is_compute_bound(gemm, precision, flops, memory_bandwidth):
    """True when the GEMM's arithmetic intensity (FLOPs per byte of A, B and C, each moved once)
    reaches the device's ridge point flops / bandwidth. A GEMM below it (DeepBench's K = 500,000,
    N = 8 language-model rows) is limited by memory: its time is the roofline's bytes term, and
    counting it in the compute efficiency curve would slow down every compute-bound GEMM of the
    same FLOPs (BERT's at batch 8 x 384 tokens fall in that half decade)."""
    element_bytes = ELEMENT_BYTES[precision]
    moved = element_bytes * (gemm["m"] * gemm["k"] + gemm["k"] * gemm["n"] + gemm["m"] * gemm["n"])
    return gemm["flops"] / moved >= flops / memory_bandwidth


def sheet_curves(sheet, gemms, convs, flops, memory_bandwidth):
    """{class: curve} and {class: (points, clamped)} of one sheet, and the GEMMs left out of the
    gemm curve as memory-bound."""
    bound = [g for g in gemms if is_compute_bound(g, sheet.precision, flops, memory_bandwidth)]
    points = {"gemm": [(g["flops"], g["flops"] / g["time_s"] / flops) for g in bound]} if bound else {}
    for conv in convs:
        for name, time_s in conv["time_s"].items():
            points.setdefault(f"{conv['class']}.{name}", []).append(
                (conv["flops"], conv["flops"] / time_s / flops))
    curves, counts = {}, {}
    for kernel_class in KERNEL_CLASSES:
        if kernel_class in points:
            limit = 1.0 if kernel_class == "gemm" else MAX_CONV_FRACTION
            curves[kernel_class], clamped = binned_curve(points[kernel_class], limit)
            counts[kernel_class] = (len(points[kernel_class]), clamped)
    return curves, counts, len(gemms) - len(bound)


def conv_shape_key(conv):
    """base/workload/shape_key.cpp conv_shape_key(): in_h, in_w, kernel_h (R), kernel_w (S)."""
    return (f"c{conv['c']}_k{conv['k']}_h{conv['h']}_w{conv['w']}_r{conv['r']}_s{conv['s']}"
            f"_u{conv['stride_h']}_p{conv['pad_h']}_g1")


def per_shape_entries(convs, precision):
    """{(kind, key, batch, precision): [time_s, ...]} of the rows with a square stride and pad
    (the shape key has one stride and one pad), and how many rows were left out for it."""
    entries, not_square = {}, 0
    for conv in convs:
        if conv["stride_w"] != conv["stride_h"] or conv["pad_w"] != conv["pad_h"]:
            not_square += 1
            continue
        for name, time_s in conv["time_s"].items():
            entries.setdefault((PER_SHAPE_KIND[name], conv_shape_key(conv), conv["n"], precision),
                               []).append(time_s)
    return entries, not_square


# --- the calibration file ----------------------------------------------------------------------

def git_blob_id(path):
    """The workbook's git object id: anyone can check it against the publication's tree."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def row_span(span):
    return f"rows {span[0]}-{span[1]}" if span else "no rows"


def convert(args, argv):
    workbook = Workbook(args.workbook)
    specs = read_specs(workbook)
    sheets = [Sheet(workbook, name, precision) for name, precision in args.sheets]
    sheets.sort(key=lambda s: PRECISIONS.index(s.precision))
    publication = (f"DeepBench ({args.source_repo} @ {args.source_commit}, {args.source_path}, "
                   f"git blob {git_blob_id(args.workbook)})")

    flops, curves, per_shape, measurements = {}, {}, {}, []
    sources = {}
    for sheet in sheets:
        gemms, gemms_untimed, gemm_span = read_gemms(sheet)
        convs, conv_span = read_convs(sheet)
        rate, large = large_gemm_rate(sheet, gemms)
        flops[sheet.precision] = rate
        curves[sheet.precision], counts, memory_bound = sheet_curves(sheet, gemms, convs, rate,
                                                                      args.memory_bandwidth)
        entries, not_square = per_shape_entries(convs, sheet.precision)
        for key, times in entries.items():
            per_shape.setdefault(key, []).extend(times)

        where = (f"{publication}, sheet '{sheet.name}' (its Precision row: "
                 f"'{sheet.precision_text or 'not given'}')")
        sources[f"fitted.flops.{sheet.precision}"] = (
            f"{where}, '{GEMM_SECTION}' {row_span(gemm_span)}: median achieved rate "
            f"(2 M N K / time) of the {large} GEMM(s) of at least {LARGE_GEMM_FLOPS:g} FLOPs per call "
            f"(cuBLAS, 'Time (msec)' column)")
        clamped = {c: n for c, (_, n) in counts.items() if n}
        sources[f"fitted.efficiency_curves.{sheet.precision}"] = (
            f"{where}, '{GEMM_SECTION}' {row_span(gemm_span)} and '{CONV_SECTION}' "
            f"{row_span(conv_span)}: rate / fitted.flops.{sheet.precision} against FLOPs per call, "
            f"one point per half decade of FLOPs (median FLOPs, median fraction); GEMM FLOPs 2 M N K, "
            f"convolution FLOPs 2 N K C R S P Q (direct convolution, P Q = floor output size) for "
            f"every pass (Forward, wrt Inputs = backward_data, wrt Parameters = backward_filter); "
            f"conv_1x1: R = S = 1, conv_3x3_s1: R = S = 3 and both strides 1, conv_other: the rest; "
            f"gemm: only the compute-bound GEMMs (FLOPs per byte of A, B, C >= fitted.flops / "
            f"memory_bandwidth_Bps; {memory_bound} memory-bound GEMM(s) left out); "
            f"rows per class: " + ", ".join(f"{c} {n}" for c, (n, _) in counts.items()) +
            (("; clamped to 1 (GEMM) / 4 (conv): " + ", ".join(f"{c} {n} point(s)"
                                                               for c, n in clamped.items()))
             if clamped else "; no point clamped"))
        timed = {name: sum(name in c["time_s"] for c in convs) for name in PASSES}
        measurements.append({
            "name": f"deepbench: {sheet.name}", "kind": "published_kernel_table",
            "precision": sheet.precision, "precision_row": sheet.precision_text,
            "gemm_rows": len(gemms) + gemms_untimed, "gemm_rows_timed": len(gemms),
            "gemm_rows_large": large, "conv_rows": len(convs),
            "conv_rows_timed": timed, "conv_rows_not_square": not_square,
        })

    per_shape_list, merged = [], 0
    for kind, key, batch, precision in sorted(per_shape, key=lambda e: (
            PRECISIONS.index(e[3]), list(PER_SHAPE_KIND.values()).index(e[0]), e[1], e[2])):
        times = per_shape[(kind, key, batch, precision)]
        merged += len(times) > 1
        per_shape_list.append({"kind": kind, "key": key, "batch": batch, "precision": precision,
                               "time_s": rounded(statistics.median(times), 9)})

    sources["fitted.memory_bandwidth_Bps"] = args.memory_bandwidth_source
    sources["fitted.launch_overhead_s"] = args.launch_overhead_source
    if args.compute_slowdown is not None:
        sources["fitted.compute_slowdown_under_collective"] = args.compute_slowdown_source
    sources["per_shape"] = (
        f"{publication}, the '{CONV_SECTION}' section of sheet(s) "
        + ", ".join(f"'{s.name}' ({s.precision})" for s in sheets) +
        ": every row with a square stride and padding, one entry per timed pass, time = ms / 1000; "
        f"{merged} shape(s) listed in more than one row of a sheet keep the median time; "
        "the GEMM rows are not per-shape entries (which layer a DeepBench GEMM stands for, and so "
        "its rows_per_sample, is not recorded)")
    sources["device"] = (f"{args.source_path} sheet 'Specs': " +
                         "; ".join(f"{k}: {v}" if v else k for k, v in specs.items())
                         if specs else "given on the command line")
    sources["date"] = f"given on the command line: last change of {args.source_path} in {args.source_repo}"

    device = {"name": args.device_name, "kind": "cuda"}
    driver = args.driver or specs.get("Nvidia Driver", "")
    toolkit = args.toolkit or ", ".join(
        f"{label} {specs[key]}" for label, key in (("CUDA", "CUDA Version"), ("cuDNN", "Cudnn Version"))
        if specs.get(key))
    if driver:
        device["driver"] = driver
    if toolkit:
        device["toolkit"] = toolkit

    calibration = {"format": FORMAT}
    if args.note:
        calibration["note"] = args.note
    calibration.update({
        "device": device, "date": args.date, "command": command_line(argv, args), "measured": True,
        "fitted": {
            "flops": {p: rounded(flops[p]) for p in PRECISIONS if p in flops},
            "efficiency_curves": {p: curves[p] for p in PRECISIONS if p in curves},
            "memory_bandwidth_Bps": args.memory_bandwidth,
            "launch_overhead_s": args.launch_overhead,
            **({"compute_slowdown_under_collective": args.compute_slowdown}
               if args.compute_slowdown is not None else {}),
        },
        "per_shape": per_shape_list,
        "measurements": measurements,
        "sources": dict(sorted(sources.items())),
    })
    return calibration


def summary(calibration):
    fitted = calibration["fitted"]
    lines = [f"{calibration['device']['name']}: " + ", ".join(
        f"{p} {v / 1e12:.2f} TFLOP/s" for p, v in fitted["flops"].items())]
    for precision, classes in fitted["efficiency_curves"].items():
        lines.append(f"  {precision} curves: " + ", ".join(
            f"{c} {len(points)}" for c, points in classes.items()))
    lines.append(f"  per_shape: {len(calibration['per_shape'])} entries")
    return "\n".join(lines)


def main(argv, prog):
    args = parse_arguments(argv, prog)
    calibration = convert(args, argv)
    write_json(args.out, calibration)
    print(summary(calibration))
    print(f"wrote {args.out}")
