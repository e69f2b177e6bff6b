#!/usr/bin/python3
"""Writes fixture.xlsx: a small workbook laid out as Baidu DeepBench's training results
(results/train/DeepBench_NV_*.xlsx), for tests/cli/deepbench_converter.sh.

    /usr/bin/python3 tests/data/deepbench/make_fixture.py [OUT.xlsx]   (default: next to this file)

Like the published workbooks: a 'Precision' row, sections titled in column A, the source
application in column B, the data from column C on, the GEMM header in the section's own row and
the convolution header in the row after it, times in ms, "N/A*" for an untimed backward pass and
its footnote row, an RNN section after the convolutions, and a 'Specs' sheet. The first sheet has
the V100 workbook's convolution column order (S, R, pad_w, pad_h, Horizontal, Vertical), the
second the P100 workbook's (R, S, pad_h, pad_w, Vertical, Horizontal), so both are covered.
Text cells are shared strings, numbers plain values, as Excel writes them. The zip is stored
(not deflated) with fixed timestamps: the same script always writes the same bytes, whatever the
zlib version.
"""

import os
import sys
import zipfile
from xml.sax.saxutils import escape

GEMM_HEADER = ["Dense Matrix Multiplication", "", "M", "N", "K", "A Transpose", "B Transpose", "",
               "Time (msec)", "TERAFLOPS"]
V100_CONV_HEADER = ["", "", "W", "H", "C", "N", "K ", "S (Filter width)", "R (Filter height)",
                    "pad_w", "pad_h", "Horizontal stride", "Vertical stride", "Forward (msec)",
                    "wrt Inputs (msec)", "wrt Parameters (msec)", "", "P", "Q", "Total Time (msec)",
                    "FWD TERAFLOPS", "BWD INPUTS TERAFLOPS", "BWD PARMS TERAFLOPS", "Forward Algorithm"]
P100_CONV_HEADER = ["", "", "W", "H", "C", "N", "K ", "R", "S", "pad_h", "pad_w", "Vertical stride",
                    "Horizontal stride", "Forward (msec)", "wrt Inputs (msec)", "wrt Parameters (msec)",
                    "", "P", "Q", "Total Time (msec)", "FWD TERAFLOPS", "BWD INPUTS TERAFLOPS",
                    "BWD PARMS TERAFLOPS", "Forward Algorithm"]
FOOTNOTE = ["", "", "", "* = The backward pass wrt inputs is excluded for these kernels since they are "
            "typically the input layers of a neural network"]
RNN = [["Recurrent Layers - Vanilla", "", "Hidden Units", "N", "Timesteps", "", "Time Forward (msec)",
        "Time Backward wrt Inputs (msec)", "Time Backward wrt Weights (msec)"],
       ["", "DeepSpeech", 1760, 16, 50, "", 4.201, 2.881, 0.588]]


def gemm(app, m, n, k, time_ms, a="N", b="N"):
    return ["", app, m, n, k, a, b, "", time_ms, 2 * m * n * k / (time_ms / 1000) / 1e12]


# Times chosen so that the test's expected numbers are easy to derive by hand.
FP32 = [
    ["Precision", "Float"],
    [],
    GEMM_HEADER,
    gemm("DeepSpeech", 5000, 5000, 5000, 25),        # 2.5e11 FLOPs, 1.0e13 FLOP/s
    gemm("DeepSpeech", 5000, 5000, 10000, 40),       # 5.0e11 FLOPs, 1.25e13 FLOP/s
    gemm("DeepSpeech", 5000, 10000, 10000, 125),     # 1.0e12 FLOPs, 8.0e12 FLOP/s
    gemm("DeepSpeech", 1000, 1000, 1000, 0.5, "T"),  # 2.0e9 FLOPs, 4.0e12 FLOP/s
    gemm("Speaker ID", 1000, 1000, 1500, 0.6),       # 3.0e9 FLOPs, 5.0e12 FLOP/s
    gemm("DeepSpeech", 100, 100, 100, 0.01, "N", "T"),  # 2.0e6 FLOPs, 2.0e11 FLOP/s
    [], [],
    ["Convolution"],
    V100_CONV_HEADER,
    # W, H, C, N, K, S, R, pad_w, pad_h, stride_w, stride_h, fwd, wrt inputs, wrt params, "", P, Q
    ["", "Resnet", 56, 56, 64, 16, 256, 1, 1, 0, 0, 1, 1, 0.2, 0.25, 0.4, "", 56, 56, 0.85, "", "", "",
     "IMPLICIT_PRECOMP_GEMM"],
    ["", "Face Recognition", 28, 28, 128, 16, 128, 3, 3, 1, 1, 1, 1, 0.1, 0.2, 0.25, "", 28, 28, 0.55,
     "", "", "", "WINOGRAD_NONFUSED"],
    ["", "Vision", 224, 224, 3, 16, 64, 7, 7, 3, 3, 2, 2, 0.5, "N/A*", 0.6, "", 112, 112, 1.1, "",
     "N/A*", "", "IMPLICIT_GEMM"],
    # Not a DeepBench shape: a stride of 2 across and 1 down, which no shape key can name.
    ["", "DeepSpeech", 341, 79, 32, 4, 32, 10, 5, 0, 0, 2, 1, 0.3, 0.8, 0.3, "", 166, 75, 1.4, "", "",
     "", "IMPLICIT_GEMM"],
    [],
    FOOTNOTE,
    [],
] + RNN

FP16 = [
    ["Precision", "16 bit inputs, 16 bit multiplication, 32 bit addition"],
    [],
    GEMM_HEADER,
    gemm("DeepSpeech", 5000, 5000, 5000, 2.5),       # 2.5e11 FLOPs, 1.0e14 FLOP/s
    gemm("DeepSpeech", 1000, 1000, 1000, 0.1),       # 2.0e9 FLOPs, 2.0e13 FLOP/s
    [],
    ["Convolution", ""],
    P100_CONV_HEADER,
    # W, H, C, N, K, R, S, pad_h, pad_w, stride_h, stride_w, fwd, wrt inputs, wrt params, "", P, Q
    ["", "DeepSpeech", 700, 161, 1, 4, 32, 5, 20, 0, 0, 2, 2, 0.591, "N/A*", 1.028, "", 78.5, 340.5,
     1.619, "", "N/A*", "", "IMPLICIT_PRECOMP_GEMM"],
    ["", "Resnet", 56, 56, 64, 16, 256, 1, 1, 0, 0, 1, 1, 0.05, 0.06, 0.07, "", 56, 56, 0.18, "", "", "",
     "IMPLICIT_PRECOMP_GEMM"],
    [],
    FOOTNOTE,
] + RNN

SPECS = [["CPU Model", "Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz"], ["GPU Model", "NVIDIA V100"],
         ["CUDA Version", "10.1.243"], ["Cudnn Version", "7.6.2.24"], ["Nvidia Driver", "418.67"],
         ["NVIDIA DGX-1"]]

SHEETS = [("Results FP32", FP32), ("Results - FP16 ip, Mixed math", FP16), ("Specs", SPECS)]

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def column(index):
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def sheet_xml(rows, strings):
    out = [HEAD, f'<worksheet xmlns="{MAIN}"><sheetData>']
    for r, cells in enumerate(rows, start=1):
        if not cells:
            continue  # Excel leaves rows without cells out; the reader must number rows by r=
        out.append(f'<row r="{r}">')
        for c, value in enumerate(cells):
            ref = f"{column(c)}{r}"
            if isinstance(value, str):
                if value == "":
                    continue
                if value not in strings:
                    strings.append(value)
                out.append(f'<c r="{ref}" t="s"><v>{strings.index(value)}</v></c>')
            else:
                out.append(f'<c r="{ref}"><v>{value!r}</v></c>')
        out.append("</row>")
    out.append("</sheetData></worksheet>")
    return "".join(out)


def parts():
    strings = []
    sheets = [sheet_xml(rows, strings) for _, rows in SHEETS]
    n = len(SHEETS)
    content_types = (
        HEAD + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        + "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="application/'
                  'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(1, n + 1))
        + '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
        "</Types>")
    package_rels = (HEAD + f'<Relationships xmlns="{PKG}"><Relationship Id="rId1" Type="{REL}/'
                    'officeDocument" Target="xl/workbook.xml"/></Relationships>')
    # Relationship ids in another order than the sheets, as in the published workbooks.
    workbook = (HEAD + f'<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>'
                + "".join(f'<sheet name="{escape(name, {chr(34): "&quot;"})}" sheetId="{i + 1}" '
                          f'r:id="rId{n - i}"/>' for i, (name, _) in enumerate(SHEETS))
                + "</sheets></workbook>")
    workbook_rels = (HEAD + f'<Relationships xmlns="{PKG}">'
                     + "".join(f'<Relationship Id="rId{n - i}" Type="{REL}/worksheet" '
                               f'Target="worksheets/sheet{i + 1}.xml"/>' for i in range(n))
                     + f'<Relationship Id="rId{n + 1}" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/>'
                     "</Relationships>")
    shared = (HEAD + f'<sst xmlns="{MAIN}" count="{len(strings)}" uniqueCount="{len(strings)}">'
              + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    yield "[Content_Types].xml", content_types
    yield "_rels/.rels", package_rels
    yield "xl/workbook.xml", workbook
    yield "xl/_rels/workbook.xml.rels", workbook_rels
    for i, xml in enumerate(sheets, start=1):
        yield f"xl/worksheets/sheet{i}.xml", xml
    yield "xl/sharedStrings.xml", shared


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                              "fixture.xlsx")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, text in parts():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))


if __name__ == "__main__":
    main()
