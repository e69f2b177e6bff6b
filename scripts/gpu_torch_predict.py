#!/usr/bin/python3
"""The simulator against the PyTorch steps of scripts/gpu_torch_reference.py on the same GPU.

For every configuration in DIR/torch-reference*.json (the last file naming it wins) it predicts the
step with `dasim workload show` of the built-in workload at the same batch, precision, memory format
and optimizer (sgd_momentum for the CNNs, adam for BERT; zero_grad set_to_none, PyTorch 2's), once
per calibration given, and, where DIR holds a profiled step of the configuration
(trace-NAME.json.xz), imports it with `dasim workload import` and reads the GPU's kernel time of the
step (forward + backward + update). It writes DIR/torch-predicted.csv:

    config, measured_step_s, trace_gpu_s, <calibration>_step_s, <calibration>_error_pct,
    <calibration>_vs_gpu_pct, ...

where <calibration> is each calibration file's stem, error_pct is against the measured step and
vs_gpu_pct against the trace's GPU time. Where two runs measured a configuration, the later one's
step time (the JSON's date) is used; a trace may come from either run. The trace's GPU time is a
measurement, not a prediction: against measured_step_s it tells a GPU-bound step (close) from a
host-bound one (the GPU idles while PyTorch's host thread issues the next kernels), which no
GPU-side model predicts.

For the traced configurations it also writes DIR/torch-by-kind.csv, the same times by layer kind:

    config, kind, trace_s, <calibration>_s, ...

with forward + backward per kind and a row `update` (the trace's GPU time outside the layers; the
prediction's update). A trace's kinds are the importer's (docs/workloads.md): attention's kernels
run inside the linear modules' calls there, so it has no `attention` row of its own.

Bad input (a missing or malformed file) is one line on stderr and exit status 2.
"""

import argparse
import csv
import glob
import json
import lzma
import os
import subprocess
import tempfile

from gpu_predict_io import fail, load_json  # a sibling of this script




def dasim_json(bin_dir, args):
    done = subprocess.run([os.path.join(bin_dir, "dasim")] + args, capture_output=True, text=True)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        fail(f"dasim {' '.join(args[:3])}: {last}")
    return json.loads(done.stdout)


def show_args(result):
    """`dasim workload show` options describing one PyTorch configuration."""
    optimizer = "adam" if result["model"] == "bert-large" else "sgd_momentum"
    args = ["--batch", str(result["batch"]), "--precision", result["precision"], "--optimizer", optimizer,
            "--zero-grad", "set_to_none", "--format", "json"]
    if result.get("seq_len"):
        args += ["--seq-len", str(result["seq_len"])]
    if result.get("memory_format"):
        args += ["--memory-format", result["memory_format"]]
    if result.get("activation_checkpointing", "none") != "none":  # runs before 2026-12-04 lack the key
        args += ["--activation-checkpointing", result["activation_checkpointing"]]
    return args


def trace_by_kind(bin_dir, work, packed, result):
    """The profiled step's GPU kernel time by layer kind (forward + backward) and its update."""
    trace = os.path.join(work, os.path.basename(packed)[: -len(".xz")])
    with lzma.open(packed, "rb") as source, open(trace, "wb") as target:
        target.write(source.read())
    workload = trace + ".workload.json"
    done = subprocess.run([os.path.join(bin_dir, "dasim"), "workload", "import", trace, "--batch",
                           str(result["batch"]), "--precision", result["precision"], "--out", workload],
                          capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{packed}: dasim workload import: {done.stderr.strip()}")
    imported = load_json(workload)
    kinds = {}
    for layer in imported["layers"]:
        kinds[layer["kind"]] = kinds.get(layer["kind"], 0) + layer.get("forward_time_s", 0) + layer.get(
            "backward_time_s", 0)
    kinds["update"] = imported.get("update_time_s", 0)
    return kinds


def predicted_by_kind(step):
    """A `dasim workload show` step's time by layer kind (forward + backward) and its update."""
    kinds = {k["kind"]: k["forward_s"] + k["backward_s"] for k in step["by_kind"]}
    kinds["update"] = step["update_s"]
    return kinds


def write_csv(path, rows):
    with open(path + ".tmp", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with the dasim binary")
    parser.add_argument("--dir", required=True, help="a GPU run's folder (torch-reference*.json, trace-*.json.xz)")
    parser.add_argument("--calibration", action="append", required=True, help="a calibration file (repeatable)")
    args = parser.parse_args()
    references = sorted(glob.glob(os.path.join(args.dir, "torch-reference*.json")))
    if not references:
        fail(f"{args.dir}: no torch-reference*.json (the device step's PyTorch runs)")
    documents = []
    for path in references:
        document = load_json(path)
        if not isinstance(document.get("results"), list):
            fail(f"{path}: results: expected a list of measured configurations")
        documents.append(document)
    results = {}
    for document in sorted(documents, key=lambda d: str(d.get("date", ""))):  # the latest run wins
        for result in document["results"]:
            results[result["name"]] = result
    stems = [os.path.splitext(os.path.basename(c))[0] for c in args.calibration]
    rows, kind_rows = [], []
    with tempfile.TemporaryDirectory() as work:
        for name, result in results.items():
            measured = float(result["step_time_median_s"])
            row = {"config": name, "measured_step_s": f"{measured:.6g}", "trace_gpu_s": ""}
            packed = os.path.join(args.dir, f"trace-{name}.json.xz")
            traced = trace_by_kind(args.bin, work, packed, result) if os.path.exists(packed) else None
            gpu = sum(traced.values()) if traced else None
            if traced:
                row["trace_gpu_s"] = f"{gpu:.6g}"
            predicted = {}
            for stem, calibration in zip(stems, args.calibration):
                step = dasim_json(args.bin, ["workload", "show", result["model"], "--calibration", calibration]
                                  + show_args(result))["step"]
                predicted[stem] = predicted_by_kind(step)
                row[f"{stem}_step_s"] = f"{step['step_s']:.6g}"
                row[f"{stem}_error_pct"] = f"{(step['step_s'] - measured) / measured * 100:.1f}"
                row[f"{stem}_vs_gpu_pct"] = f"{(step['step_s'] - gpu) / gpu * 100:.1f}" if gpu else ""
            rows.append(row)
            if traced:
                kinds = sorted(set(traced) | set().union(*predicted.values()), key=lambda k: (k == "update", k))
                for kind in kinds:
                    kind_rows.append({"config": name, "kind": kind, "trace_s": f"{traced.get(kind, 0):.6g}",
                                      **{f"{stem}_s": f"{predicted[stem].get(kind, 0):.6g}" for stem in stems}})
    target = os.path.join(args.dir, "torch-predicted.csv")
    write_csv(target, rows)
    if kind_rows:
        write_csv(os.path.join(args.dir, "torch-by-kind.csv"), kind_rows)
    for row in rows:
        print(f"{row['config']:>30}: measured {float(row['measured_step_s']) * 1e3:7.2f} ms"
              + (f", GPU {float(row['trace_gpu_s']) * 1e3:7.2f} ms" if row["trace_gpu_s"] else "")
              + "".join(f", {s} {row[s + '_error_pct']}%" for s in stems)
              + "".join(f" ({s} vs GPU {row[s + '_vs_gpu_pct']}%)" for s in stems if row[s + "_vs_gpu_pct"]))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
