#!/usr/bin/env python3
"""Real framework training steps on the GPU machine, for dasim's single-GPU predictions to meet.

Run by `scripts/gpu-validation.sh device` (step `torch`) with the GPU machine's own python3, which
holds PyTorch (nothing is installed there). For each configuration it trains the model on random
data already on the GPU (no input pipeline: dasim's GPU-only prediction has none either), times
each step with CUDA events after warm-up steps and writes the median step time and samples/s with
the software versions to OUT/torch-reference.json. It also records one torch.profiler Chrome trace
of the configurations --traces names (OUT/trace-NAME.json.xz) for `dasim workload import`, and
the host time of one eager op (the dispatch cost a host-bound step pays per kernel).

Each configuration is one entry in CONFIGS; one that fails (out of memory, a missing package) is
recorded with its error and the others still run. The file is rewritten after every configuration,
so a run killed by its time limit keeps what it measured.
"""
import argparse
import json
import lzma
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

# (name, model, precision, batch, seq_len, memory_format, cudnn_benchmark, activation_checkpointing).
# Batches are those of the published single-GPU cases dasim's validation holds where they have one
# (ResNet-50 256). The checkpointed BERT-large recomputes each encoder layer's forward in the
# backward (HF's gradient_checkpointing_enable: torch.utils.checkpoint around each BertLayer), what
# dasim's activation_checkpointing "blocks" predicts: its step against the same model without it
# tests the recompute's cost, not only the step.
CONFIGS = [
    ("resnet50-amp-b256", "resnet50", "amp", 256, None, "channels_last", False, "none"),
    ("resnet50-tf32-b256", "resnet50", "tf32", 256, None, "nchw", False, "none"),
    ("resnet50-fp32-b256", "resnet50", "fp32", 256, None, "nchw", False, "none"),
    ("resnet50-amp-b256-benchmark", "resnet50", "amp", 256, None, "channels_last", True, "none"),
    ("resnet50-amp-b64", "resnet50", "amp", 64, None, "channels_last", False, "none"),
    ("vgg16-amp-b128", "vgg16", "amp", 128, None, "channels_last", False, "none"),
    ("vgg16-tf32-b128", "vgg16", "tf32", 128, None, "nchw", False, "none"),
    ("bert-large-amp-b64-s128", "bert-large", "amp", 64, 128, None, False, "none"),
    ("bert-large-tf32-b64-s128", "bert-large", "tf32", 64, 128, None, False, "none"),
    ("bert-large-amp-b32-s384", "bert-large", "amp", 32, 384, None, False, "none"),
    ("bert-large-amp-b64-s128-ckpt", "bert-large", "amp", 64, 128, None, False, "blocks"),
]
# BERT-large at each length LDDL's binned loader pads a phase-2 micro-batch to (bin size 64 over a
# maximum of 512: every bin's top), at the micro-batches of DeepLearningExamples' phase-2 runs (16
# per GPU in TF32, 32 in mixed precision): how the step shortens with the padded length is what
# dasim's sequence-length mix rests on, measured here against its predictions at the same lengths.
CONFIGS += [config for config in
            ((f"bert-large-{precision}-b{batch}-s{length}", "bert-large", precision, batch, length, None, False, "none")
             for precision, batch in (("tf32", 16), ("amp", 32)) for length in range(64, 513, 64))
            if config[0] not in {c[0] for c in CONFIGS}]  # amp b32 s384 is above already


def set_precision(precision, cudnn_benchmark):
    # PyTorch's defaults: matmul TF32 off, cuDNN TF32 on. fp32 turns both off, tf32 both on; amp
    # keeps the defaults (its convolutions and GEMMs run in fp16 under autocast).
    torch.backends.cudnn.benchmark = cudnn_benchmark
    if precision == "fp32":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    elif precision == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    else:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = True


def build(model_name, batch, seq_len, memory_format, notes, checkpointing="none"):
    """The model, its optimizer and a function computing the loss of one batch (random data)."""
    device = torch.device("cuda")
    if checkpointing != "none" and model_name != "bert-large":
        raise ValueError(f"activation checkpointing {checkpointing} is set up for bert-large only")
    if model_name in ("resnet50", "vgg16"):
        import torchvision

        model = getattr(torchvision.models, model_name)(weights=None).to(device)
        fmt = torch.channels_last if memory_format == "channels_last" else torch.contiguous_format
        model = model.to(memory_format=fmt)
        images = torch.randn(batch, 3, 224, 224, device=device).to(memory_format=fmt)
        labels = torch.randint(0, 1000, (batch,), device=device)
        # SGD with momentum and weight decay, DeepLearningExamples' ConvNets settings.
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.875, weight_decay=3.0517578125e-05)

        def loss_fn():
            return F.cross_entropy(model(images), labels)

        return model, optimizer, loss_fn
    if model_name == "bert-large":
        import transformers

        # BERT-large fine-tuned as a sequence classifier: the encoder and pooler dasim's built-in
        # bert-large holds (vocabulary 30522), plus a 1024 x 2 head. Attention in eager mode, the
        # unfused softmax dasim counts; where this transformers refuses it, its default is used
        # and recorded.
        sizes = dict(vocab_size=30522, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                     intermediate_size=4096, max_position_embeddings=512, num_labels=2)
        try:
            config = transformers.BertConfig(attn_implementation="eager", **sizes)
            model = transformers.BertForSequenceClassification(config)
        except Exception:  # noqa: BLE001 - a transformers without the eager switch
            config = transformers.BertConfig(**sizes)
            model = transformers.BertForSequenceClassification(config)
        model = model.to(device)
        notes["attention"] = str(getattr(model.config, "_attn_implementation", "unknown"))
        if checkpointing == "blocks":
            try:  # the non-reentrant checkpoint, PyTorch's recommended one, where transformers takes it
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
                notes["checkpoint"] = "torch.utils.checkpoint per BertLayer, use_reentrant=False"
            except TypeError:
                model.gradient_checkpointing_enable()
                notes["checkpoint"] = "torch.utils.checkpoint per BertLayer, transformers' default"
        ids = torch.randint(0, 30522, (batch, seq_len), device=device)
        labels = torch.randint(0, 2, (batch,), device=device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)

        def loss_fn():
            return model(input_ids=ids, labels=labels).loss

        return model, optimizer, loss_fn
    raise ValueError(f"unknown model {model_name}")


def train_step_fn(model, optimizer, loss_fn, precision):
    scaler = torch.amp.GradScaler("cuda") if precision == "amp" else None

    def step():
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = loss_fn()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = loss_fn()
            loss.backward()
            optimizer.step()

    return step


def measure(name, model_name, precision, batch, seq_len, memory_format, cudnn_benchmark, checkpointing, warmup,
            steps):
    set_precision(precision, cudnn_benchmark)
    torch.manual_seed(0)
    torch.cuda.reset_peak_memory_stats()
    notes = {}
    model, optimizer, loss_fn = build(model_name, batch, seq_len, memory_format, notes, checkpointing)
    model.train()
    step = train_step_fn(model, optimizer, loss_fn, precision)
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(steps)]
    wall_start = time.perf_counter()
    for start, end in events:
        start.record()
        step()
        end.record()
    torch.cuda.synchronize()
    wall = time.perf_counter() - wall_start
    times = [s.elapsed_time(e) / 1e3 for s, e in events]
    median = statistics.median(times)
    result = {
        "name": name, "model": model_name, "precision": precision, "batch": batch, "seq_len": seq_len,
        "memory_format": memory_format, "cudnn_benchmark": cudnn_benchmark,
        "activation_checkpointing": checkpointing,
        "optimizer": type(optimizer).__name__, "zero_grad": "set_to_none",
        "parameters": sum(p.numel() for p in model.parameters()),
        "warmup_steps": warmup, "timed_steps": steps,
        "step_time_median_s": median, "step_time_min_s": min(times), "step_time_max_s": max(times),
        "wall_per_step_s": wall / steps, "samples_per_s": batch / median,
        "peak_memory_bytes": torch.cuda.max_memory_allocated(), **notes,
    }
    del model, optimizer, loss_fn, step
    torch.cuda.empty_cache()
    return result


def trace_config(out_dir, config):
    """One profiled step of a configuration, as docs/workloads.md asks for `dasim workload import`:
    the GPU's kernel time per layer, against the step's wall time measured without the profiler."""
    from torch.profiler import ProfilerActivity, profile, schedule

    name, model_name, precision, batch, seq_len, memory_format, cudnn_benchmark, checkpointing = config
    set_precision(precision, cudnn_benchmark)
    model, optimizer, loss_fn = build(model_name, batch, seq_len, memory_format, {}, checkpointing)
    step = train_step_fn(model, optimizer, loss_fn, precision)
    path = os.path.join(out_dir, f"trace-{name}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=1, warmup=2, active=1),
                 record_shapes=True, with_stack=True, on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()
    with open(path, "rb") as raw, lzma.open(path + ".xz", "wb", preset=6) as packed:
        packed.write(raw.read())
    size = os.path.getsize(path)
    os.remove(path)
    del model, optimizer, loss_fn, step
    torch.cuda.empty_cache()
    return {"config": name, "file": os.path.basename(path) + ".xz", "batch": batch, "trace_bytes": size}


def dispatch_cost(ops=20000):
    """Host time per eager op when the GPU is idle: back-to-back in-place adds on a one-element
    tensor (PyTorch's dispatcher plus a kernel launch, what a host-bound step pays per kernel)."""
    x = torch.zeros(1, device="cuda")
    for _ in range(1000):
        x.add_(1.0)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(ops):
        x.add_(1.0)
    host = time.perf_counter() - start
    torch.cuda.synchronize()
    total = time.perf_counter() - start
    return {"op": "x.add_(1.0) on a 1-element CUDA tensor", "ops": ops, "host_s_per_op": host / ops,
            "wall_s_per_op": total / ops}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated configuration names (default: all)")
    parser.add_argument("--traces", default="resnet50-amp-b256",
                        help="comma-separated configuration names to profile one step of ('' for none)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("gpu_torch_reference: no CUDA device visible to PyTorch", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    report = {
        "format": "dasim-torch-reference-1",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": props.name, "multiprocessors": props.multi_processor_count, "memory_bytes": props.total_memory,
        "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
        "data": "random tensors already on the GPU (no input pipeline)",
        "timing": "CUDA events around each step after the warm-up steps; median over the timed steps",
        "results": [], "failed": [],
    }
    try:
        import torchvision
        report["torchvision"] = torchvision.__version__
        import transformers
        report["transformers"] = transformers.__version__
    except ImportError as error:
        report["import_error"] = str(error)
    out_file = os.path.join(args.out, "torch-reference.json")
    only = set(filter(None, args.only.split(",")))
    for config in CONFIGS:
        if only and config[0] not in only:
            continue
        started = time.perf_counter()
        try:
            result = measure(*config, warmup=args.warmup, steps=args.steps)
            result["run_s"] = time.perf_counter() - started
            report["results"].append(result)
            print(f"{config[0]}: {result['step_time_median_s'] * 1e3:.2f} ms/step, "
                  f"{result['samples_per_s']:.1f} samples/s ({result['run_s']:.0f} s)", flush=True)
        except Exception as error:  # one configuration's failure is a finding, not the end of the run
            report["failed"].append({"name": config[0], "error": f"{type(error).__name__}: {error}"})
            print(f"{config[0]}: FAILED {type(error).__name__}: {error}", flush=True)
            traceback.print_exc()
            torch.cuda.empty_cache()
        with open(out_file, "w") as f:
            json.dump(report, f, indent=1)
    try:
        report["dispatch"] = dispatch_cost()
        print(f"dispatch: {report['dispatch']}", flush=True)
    except Exception as error:  # noqa: BLE001
        report["failed"].append({"name": "dispatch", "error": f"{type(error).__name__}: {error}"})
    report["traces"] = []
    for name in filter(None, args.traces.split(",")):
        config = next((c for c in CONFIGS if c[0] == name), None)
        try:
            if config is None:
                raise ValueError(f"no configuration named {name}")
            report["traces"].append(trace_config(args.out, config))
            print(f"trace: {report['traces'][-1]}", flush=True)
        except Exception as error:  # noqa: BLE001
            report["failed"].append({"name": f"trace {name}", "error": f"{type(error).__name__}: {error}"})
            traceback.print_exc()
        with open(out_file, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
