#!/usr/bin/python3
"""Writes a dasim GPU spread file (docs/file-formats.md, "gpu_spread") from per-GPU measurements.

Input: the aggregated CSV of Sinha et al.'s variability study as published with PAL
(github.com/hal-uw/blox-pal @ da726cab, Zenodo 10.5281/zenodo.12575031), one row per run: the GPU's
uuid and the metric (a time). Each GPU's time is the median of its runs; the file lists every GPU's
time over the median GPU's at the quantiles k / 100, k = 0..100 (linear between sorted GPUs).

usage: make-gpu-spread.py CSV METRIC GPU_TEXT METRIC_TEXT SOURCE_TEXT > out.json
"""
import collections
import csv
import json
import statistics
import sys


def quantile(sorted_values, p):
    at = (len(sorted_values) - 1) * p
    below = min(int(at), len(sorted_values) - 2)
    return sorted_values[below] + (sorted_values[below + 1] - sorted_values[below]) * (at - below)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    path, metric, gpu, metric_text, source = sys.argv[1:]
    runs = collections.defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                value = float(row[metric])
            except (KeyError, ValueError):
                continue
            if value > 0:
                runs[row["uuid"]].append(value)
    per_gpu = sorted(statistics.median(v) for v in runs.values())
    median = statistics.median(per_gpu)
    relative = [t / median for t in per_gpu]
    out = {
        "format": "dasim-gpu-spread-1",
        "gpu": gpu,
        "metric": metric_text,
        "gpus_measured": len(per_gpu),
        "source": source,
        "relative_time_quantiles": [round(quantile(relative, k / 100), 5) for k in range(101)],
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
