#!/usr/bin/python3
"""The `predict` step of scripts/gpu-validation.sh: the simulator on the configurations dasim-train
ran on the GPU, with the calibration measured there, and the error of each prediction.

For every DIR/train-<schedule>.json it writes the executor's MLP as a workload (layers, parameters,
FLOPs per sample: nothing measured in it), a one-GPU platform whose GPU uses the calibration, and a
scenario of that schedule, runs `dasim run`, and writes DIR/predicted.csv:

    schedule, measured_iter_s, predicted_iter_s, error_pct, measured_compute_s, predicted_compute_s

Bad input (a missing or malformed file) is one line on stderr and exit status 2.
"""

import argparse
import csv
import glob
import json
import os
import subprocess
import tempfile

from gpu_predict_io import fail, load_json  # a sibling of this script




def mlp_workload(widths):
    """The executor's MLP as its GPU trainer runs it (executor/cuda/gpu_mlp.cpp), nothing measured:
    per layer the GEMM (forward; weight and, but for the first layer, input gradient backward), the
    bias as its own kernel (a rank-1 update reading and writing the outputs; backward a GEMV
    reading the output gradient) and, but after the last layer, the ReLU (reads the
    pre-activations, writes the outputs; backward reads the outputs, their gradient and the
    pre-activations and writes the input gradient); then the loss kernel (reads the logits, writes
    their gradient). Bytes are fp32, per sample."""
    layers = []
    last = len(widths) - 2
    for index, (fan_in, fan_out) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append({
            "name": f"fc{index + 1}", "kind": "linear", "params": fan_in * fan_out + fan_out,
            "forward_flops": 2 * fan_in * fan_out,
            # weight gradient, plus the input gradient for every layer but the first
            "backward_flops": (2 if index == 0 else 4) * fan_in * fan_out,
            "activation_bytes": 4 * (fan_in + fan_out),
            "gemm": {"rows_per_sample": 1, "n": fan_out, "k": fan_in},
        })
        layers.append({"name": f"fc{index + 1}.bias", "kind": "elementwise", "params": 0,
                       "forward_flops": fan_out, "backward_flops": fan_out,
                       "activation_bytes": 8 * fan_out, "backward_activation_bytes": 4 * fan_out})
        if index < last:
            layers.append({"name": f"fc{index + 1}.relu", "kind": "elementwise", "params": 0,
                           "forward_flops": fan_out, "backward_flops": fan_out,
                           "activation_bytes": 8 * fan_out, "backward_activation_bytes": 16 * fan_out})
    classes = widths[-1]
    layers.append({"name": "loss", "kind": "elementwise", "params": 0, "forward_flops": 5 * classes,
                   "backward_flops": 0, "activation_bytes": 8 * classes, "backward_activation_bytes": 0})
    return {"name": "mlp-" + "x".join(str(w) for w in widths), "precision": "fp32", "layers": layers}


def one_gpu_platform(calibration, device_name):
    return {
        "name": "one-gpu",
        "description": "The GPU machine of scripts/gpu-validation.sh: one GPU, no network traffic.",
        "nodes": 1,
        "node": {
            "gpus": 1,
            "gpu": {"model": device_name, "speed": "67Tf", "calibration": calibration},
            "nics": [{"name": "nic0", "gpus": [0], "link": {"bandwidth": "400Gbps", "latency": "1us"}}],
        },
        "fabric": {"topology": "star", "link": {"bandwidth": "400Gbps", "latency": "0us"}},
    }


def schedule_of(config):
    kind = config["schedule"]
    if kind == "sgd":
        return {"type": "sgd", "bucket_cap": config["bucket_bytes"], "bucket_view": True}  # in-place allreduce
    if kind == "local_sgd":
        return {"type": "local_sgd", "tau": config["tau"]}
    return {"type": "dasgd", "tau": config["tau"], "delay": config["delay"]}


def predict_one(bin_dir, work, run, calibration, device_name):
    config = run["config"]
    measured = run["results"][0]
    stem = config["schedule"]
    paths = {name: os.path.join(work, f"{stem}-{name}.json") for name in ("workload", "platform", "scenario")}
    documents = {
        "workload": mlp_workload(config["layer_widths"]),
        "platform": one_gpu_platform(os.path.abspath(calibration), device_name),
        "scenario": {
            "name": f"gpu-validation-{stem}",
            "platforms": [{"file": paths["platform"], "nodes": [1]}],
            "workloads": [paths["workload"]],
            "batch_per_gpu": config["batch_per_rank"],
            "precision": "fp32",
            "schedules": [schedule_of(config)],
            "collective": {"algorithm": "ring"},
            "iterations": max(1, config["timed_steps"][1] - config["timed_steps"][0] + 1),
            "warmup": config["warmup_steps"],
        },
    }
    for name, document in documents.items():
        with open(paths[name], "w") as f:
            json.dump(document, f, indent=1)
    out = os.path.join(work, f"{stem}-out")
    done = subprocess.run([os.path.join(bin_dir, "dasim"), "run", paths["scenario"], "--out", out, "--quiet"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"dasim run for {stem} failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
    with open(os.path.join(out, "results.csv")) as f:
        predicted = next(csv.DictReader(f))
    measured_s, predicted_s = float(measured["iter_time_s"]), float(predicted["iter_time_s"])
    return {
        "schedule": stem, "measured_iter_s": f"{measured_s:.9g}", "predicted_iter_s": f"{predicted_s:.9g}",
        "error_pct": f"{(predicted_s - measured_s) / measured_s * 100:.2f}",
        "measured_compute_s": f"{float(measured['compute_s']):.9g}",
        "predicted_compute_s": f"{float(predicted['compute_s']):.9g}",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with the dasim binary")
    parser.add_argument("--dir", required=True, help="what the device step returned")
    parser.add_argument("--calibration", required=True)
    args = parser.parse_args()
    runs = sorted(glob.glob(os.path.join(args.dir, "train-*.json")))
    if not runs:
        fail(f"{args.dir}: no train-*.json (the device step's dasim-train runs)")
    device_name = load_json(args.calibration).get("device", {}).get("name", "GPU")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for path in runs:
            run = load_json(path)
            if "config" not in run or "results" not in run:
                fail(f"{path}: not a dasim-train result (no config or results)")
            rows.append(predict_one(args.bin, work, run, args.calibration, device_name))
    target = os.path.join(args.dir, "predicted.csv")
    temporary = target + ".tmp"
    with open(temporary, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, target)
    for row in rows:
        print(f"{row['schedule']:>10}: measured {float(row['measured_iter_s']) * 1e3:8.3f} ms, predicted "
              f"{float(row['predicted_iter_s']) * 1e3:8.3f} ms ({row['error_pct']}%)")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
