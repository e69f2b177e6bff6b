#!/usr/bin/env bash
# The measurements that need a GPU, prepared so that a lent GPU machine's few minutes are spent
# measuring, not building or debugging (issue: run the CUDA path on a real GPU). Three steps, two
# machines:
#
#   scripts/gpu-validation.sh bundle            here (the CPU machine): Release build with the CUDA
#                                               targets (sm_90), then binaries + the shared libraries
#                                               the GPU machine lacks as .gpu-bundle/bundle.tar.xz
#                                               (git-ignored; ~20 MB, the carry limit is 64 MiB)
#   scripts/gpu-validation.sh device OUT        on the GPU machine, with .gpu-bundle carried: device
#                                               facts, the CUDA-labelled tests, the full
#                                               `dasim calibrate --device cuda` (GEMM sweeps, convs
#                                               at 4 batches, BN + ReLU fused / unfused, GEMM under
#                                               an allreduce; 36 s on an H200, stopped by its own
#                                               time budget), dasim-train --device cuda for sgd,
#                                               local_sgd and dasgd on one GPU, PyTorch training
#                                               steps of ResNet-50, VGG-16 and BERT-large
#                                               (scripts/gpu_torch_reference.py) and two ranks
#                                               sharing the GPU; every output under OUT
#   scripts/gpu-validation.sh predict DIR       here, on DIR = what came back: the simulator on the
#                                               same configurations with the fresh calibration,
#                                               predicted vs measured step time -> DIR/predicted.csv
#                                               and, for the PyTorch steps, DIR/torch-predicted.csv
#                                               and DIR/torch-by-kind.csv
#
# Why not build on the GPU machine: it reaches no package registry, so SimGrid, Open MPI, OpenBLAS,
# fmt and nlohmann-json cannot be installed there; the binaries are built here and travel with the
# libraries they link (the CUDA libraries are the GPU machine's own). The GPU machine returns at
# most 8 files, so `device` writes 8 (collect): logs.txt (every step's log), summary.txt,
# h200-measured.json, train-{sgd,local_sgd,dasgd}.json, torch-reference.json and
# trace-resnet50-amp-b256.json.xz (more traces only with fewer of the other files; a second torch
# run on the same machine state replaces torch-reference.json: keep the first one's under another
# name).
#
# Environment variables of `device`:
#   DASIM_GPU_STEPS="facts calibrate"    only the steps named (facts cuda-tests calibrate torch train
#                                        shared-gpu; an unknown name is refused)
#   DASIM_GPU_DEADLINE=540               seconds after which no step starts, and each step's limit
#                                        is cut to what is left (the device call's limit is 600 s)
#   DASIM_GPU_TORCH_ARGS="--only A,B --traces A"   arguments of scripts/gpu_torch_reference.py
#   DASIM_GPU_CALIBRATE_BATCHES=64,256   the per-shape batches (default 32,64,128,256; fewer batches
#                                        are the big saving: the convs take most of the suite)
#   DASIM_GPU_CALIBRATE_BUDGET=120       seconds after which the suite starts no optional part
#                                        (default 200; the step's own limit is 330 s)
#   DASIM_GPU_CALIBRATE_QUICK=1          the --quick suite instead (seconds; a smoke test)
#
# `device` is resumable: each finished step leaves a mark in $STATE (default /tmp/dasim-gpu-state,
# which lives as long as the machine stays warm) and is skipped when run again; its outputs are
# kept there and copied to OUT after every step. It prints a short summary last. Exit status: 0 all
# steps ran, 1 a step failed or was not started (the others still ran), 2 bad arguments or no
# usable GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
BUNDLE=${DASIM_GPU_BUNDLE:-$SRC/.gpu-bundle}
STATE=${DASIM_GPU_STATE:-/tmp/dasim-gpu-state}
CALIBRATE_BATCHES=${DASIM_GPU_CALIBRATE_BATCHES:-32,64,128,256}
CALIBRATE_BUDGET=${DASIM_GPU_CALIBRATE_BUDGET:-200}
CALIBRATE_QUICK=${DASIM_GPU_CALIBRATE_QUICK:-0}

usage() {
  echo "usage: scripts/gpu-validation.sh bundle | device OUT | predict DIR" >&2
  exit 2
}
die() {  # bad input or no GPU: one line, exit 2
  echo "gpu-validation: $*" >&2
  exit 2
}

# ---------------------------------------------------------------------------------------------
# bundle: build here and collect what the GPU machine needs.

# copy_linked_libraries TREE FILE...: every shared library the FILEs link, into TREE/lib, except
# the C/C++ runtime (newer there) and CUDA's (the GPU machine's own match its driver).
copy_linked_libraries() {
  local tree=$1
  shift
  ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/libcu|/libnccl|/libnv' |
    while read -r lib; do [ -e "$tree/lib/$(basename "$lib")" ] || cp -L "$lib" "$tree/lib/"; done
}

bundle() {
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "bundle: no nvcc here (the CUDA targets need it)"
  local build=$SRC/build-gpu
  cmake -S "$SRC" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDASIM_WERROR=OFF -DDASIM_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || return 1
  cmake --build "$build" -j2 --target dasim dasim-train dasim-mpi-allreduce-bench || return 1
  # --device cuda runs in the CUDA siblings, which dasim and dasim-train exec.
  [ -x "$build/bin/dasim-train-cuda" ] ||
    die "bundle: dasim-train was configured without CUDA (cuDNN or NCCL not found)"
  [ -x "$build/bin/dasim-calibrate-cuda" ] || die "bundle: dasim was configured without the CUDA suite"
  local tree=$build/bundle-tree
  rm -rf "$tree" && mkdir -p "$tree/bin" "$tree/lib"
  cp "$build"/bin/{dasim,dasim-calibrate-cuda,dasim-train,dasim-train-cuda,dasim-mpi-allreduce-bench} "$tree/bin/"
  strip --strip-unneeded "$tree"/bin/*
  copy_linked_libraries "$tree" "$tree"/bin/*
  # Open MPI's launcher and its plugins, for the tests (they start ranks with mpirun) and the
  # ranks-sharing-a-GPU run; Debian's Open MPI loads PMIx as a plugin, and PMIx has plugins of its
  # own, so both plugin folders travel with the libraries they link.
  local ompi=/usr/lib/x86_64-linux-gnu/openmpi pmix=/usr/lib/x86_64-linux-gnu/pmix2
  if [ -d "$ompi/lib/openmpi3" ] && command -v orterun >/dev/null; then
    mkdir -p "$tree/openmpi/bin" "$tree/openmpi/lib"
    cp -L "$(command -v orterun)" "$(command -v orted)" "$tree/openmpi/bin/"
    ln -s orterun "$tree/openmpi/bin/mpirun"
    cp -rL "$ompi/lib/openmpi3" "$tree/openmpi/lib/"
    cp -rL /usr/share/openmpi "$tree/openmpi/share"
    if [ -d "$pmix/lib/pmix" ]; then
      mkdir -p "$tree/pmix/lib"
      cp -rL "$pmix/lib/pmix" "$tree/pmix/lib/"
      cp -rL "$pmix/share" "$tree/pmix/share"
    fi
    copy_linked_libraries "$tree" "$tree"/openmpi/bin/* "$tree"/openmpi/lib/openmpi3/*.so "$tree"/pmix/lib/pmix/*.so
  fi
  # Compressed: the libraries are 80 MB as they are (SimGrid brings ns-3), 17 MB with xz.
  rm -rf "$BUNDLE" && mkdir -p "$BUNDLE"
  tar cJf "$BUNDLE/bundle.tar.xz" -C "$tree" . || return 1
  echo "gpu-validation: $BUNDLE/bundle.tar.xz: $(du -h "$BUNDLE/bundle.tar.xz" | cut -f1) (the carry limit is 64 MiB with the tree)"
}

# ---------------------------------------------------------------------------------------------
# device: on the GPU machine.
# The unpacked bundle: $BUNDLE itself when it holds bin/ (tests), else its tar unpacked once into $STATE.
environment() {
  local root=$BUNDLE
  if [ ! -x "$root/bin/dasim" ]; then
    [ -e "$BUNDLE/bundle.tar.xz" ] || die "device: no bundle at $BUNDLE (run 'bundle' here first and carry .gpu-bundle)"
    root=$STATE/bundle
    if [ ! -x "$root/bin/dasim" ]; then
      mkdir -p "$root" && tar xJf "$BUNDLE/bundle.tar.xz" -C "$root" || die "device: cannot unpack $BUNDLE/bundle.tar.xz"
    fi
  fi
  # The GPU machine's own programs (its python3 and PyTorch) run with its own libraries.
  export DASIM_GPU_ORIGINAL_LD_LIBRARY_PATH=${DASIM_GPU_ORIGINAL_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}
  local cuda_dirs
  cuda_dirs=$(ls -d /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib 2>/dev/null | tr '\n' ':')
  export LD_LIBRARY_PATH="$root/lib:${cuda_dirs}${LD_LIBRARY_PATH:-}"
  export OMPI_MCA_ess_singleton_isolated=1  # one rank without mpirun: no orted to start
  # The tests read JSON with /usr/bin/python3; the GPU machine's python3 may live elsewhere.
  [ -x /usr/bin/python3 ] || export DASIM_TEST_PYTHON=${DASIM_TEST_PYTHON:-$(command -v python3)}
  if [ -d "$root/openmpi" ]; then
    export OPAL_PREFIX=$root/openmpi OPAL_PKGDATADIR=$root/openmpi/share
    export OMPI_MCA_mca_base_component_path=$root/openmpi/lib/openmpi3
    export PATH="$root/openmpi/bin:$PATH"
  fi
  if [ -d "$root/pmix" ]; then
    export PMIX_INSTALL_PREFIX=$root/pmix PMIX_MCA_mca_base_component_path=$root/pmix/lib/pmix
  fi
  BIN=$root/bin
}

# step NAME TIMEOUT CMD...: runs CMD once per machine (marked done in $STATE), its output in
# $STATE/NAME.log; records ok / FAILED for the summary. CMD may be a function of this script:
# `timeout` runs programs only, so the step runs this script again (`__run CMD...`), which sets
# up the environment and calls it.
step() {
  local name=$1 limit=$2
  shift 2
  if [ -e "$STATE/$name.done" ]; then
    echo "gpu-validation: $name: done earlier, skipped"
    return 0
  fi
  # The run's deadline (DASIM_GPU_DEADLINE seconds after the start, default 540: the device call's
  # limit is 600 s) caps each step, so the call returns with what was measured; a step cut short
  # runs again, whole, when the command is repeated on the warm machine.
  local left=$((DEADLINE - SECONDS - 15))
  if [ "$left" -lt 20 ]; then
    echo "$name: not started (the run's deadline; run the command again)" >>"$STATE/summary.txt"
    FAILED=1
    return 0
  fi
  [ "$limit" -le "$left" ] || limit=$left
  local start=$SECONDS status=0
  echo "gpu-validation: $name (at most ${limit} s) ..."
  timeout "$limit" bash "$SRC/scripts/gpu-validation.sh" __run "$@" >"$STATE/$name.log" 2>&1 || status=$?
  local took=$((SECONDS - start))
  if [ "$status" = 0 ]; then
    touch "$STATE/$name.done"
    echo "$name: ok (${took} s)" >>"$STATE/summary.txt"
  else
    echo "$name: FAILED (exit $status after ${took} s; last line: $(tail -n 1 "$STATE/$name.log"))" >>"$STATE/summary.txt"
    FAILED=1
  fi
}

facts() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvidia-smi -L
  nvidia-smi -q -d POWER,CLOCK,PERFORMANCE 2>/dev/null | grep -E 'Power Limit|Graphics|SM  |Memory  |Clocks Event|Active' | head -n 30
  nvcc --version 2>/dev/null | tail -n 2
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -a
}

cuda_tests() {  # the tests labelled cuda in ctest, run from the source tree against the bundle
  local failed=0
  for t in executor_cuda calibrate_cuda_without_gpu; do
    echo "== tests/cli/$t.sh"
    bash "$SRC/tests/cli/$t.sh" "$BIN" "$SRC" || failed=1
  done
  return $failed
}

# The full CUDA calibration (or the shortened one the DASIM_GPU_CALIBRATE_* variables ask for).
calibrate() {
  local args=(--device cuda --out "$STATE/h200-measured.json")
  if [ "$CALIBRATE_QUICK" = 1 ]; then
    args+=(--quick)
  else
    args+=(--batches "$CALIBRATE_BATCHES" --time-budget "$CALIBRATE_BUDGET")
  fi
  "$BIN/dasim" calibrate "${args[@]}" || return
  calibration_summary "$STATE/h200-measured.json" || true  # python3 may be missing there
}

# What a calibration file says, in a few lines: rates, curve points, BN + ReLU fused vs unfused,
# interference, what was skipped. Printed to stdout (python3; the GPU machine may lack it).
calibration_summary() {
  command -v python3 >/dev/null || { echo "(no python3: no summary of $1)"; return 0; }
  python3 - "$1" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
f = d["fitted"]
print(f"calibration {sys.argv[1]}: {d['device']['name']}, {d['device'].get('toolkit', '')}")
print("  flops: " + ", ".join(f"{p} {v / 1e12:.1f} TFLOP/s" for p, v in f["flops"].items()) +
      f"; memory {f['memory_bandwidth_Bps'] / 1e9:.0f} GB/s; launch {f['launch_overhead_s'] * 1e6:.2f} us")
for p, classes in f.get("efficiency_curves", {}).items():
    print(f"  curves {p}: " + ", ".join(f"{c} {len(pts)}" for c, pts in classes.items()))
ms = d.get("measurements", [])
pairs = {}
for m in ms:
    if m["kind"] in ("bn_relu_fused", "bn_relu_unfused"):
        key = tuple(m["params"][k] for k in ("channels", "h", "w", "batch"))
        pairs.setdefault(key, {})[m["kind"]] = m
ratios, vs_bn, fused_bw = [], [], []
for pair in pairs.values():
    if len(pair) == 2:
        fused, unfused = pair["bn_relu_fused"], pair["bn_relu_unfused"]
        ratios.append(fused["median_s"] / unfused["median_s"])
        vs_bn.append(fused["median_s"] / unfused["params"]["bn_median_s"])
        fused_bw.append(fused["bandwidth_Bps"] / f["memory_bandwidth_Bps"])
if ratios:
    print(f"  BN + ReLU ({len(ratios)} shapes x batches), medians: fused / unfused {statistics.median(ratios):.2f}, "
          f"fused / BN alone {statistics.median(vs_bn):.2f}, fused one-pass bytes at "
          f"{statistics.median(fused_bw):.2f} of the memory bandwidth")
for m in ms:
    if m["kind"] == "interference_gemm_with_allreduce":
        p = m["params"]
        print(f"  interference {m['precision']}: GEMM {m['median_s'] * 1e3:.3f} ms under a {p['ranks']}-rank allreduce "
              f"(slowdown {p['slowdown']:.3f}, uncovered samples {p['uncovered_samples']})")
if "compute_slowdown_under_collective" in f:
    print(f"  fitted.compute_slowdown_under_collective {f['compute_slowdown_under_collective']:.3f}")
print(f"  per_shape {len(d.get('per_shape', []))}, measurements {len(ms)}")
for k, v in d.get("sources", {}).items():
    if k.startswith("note."):
        print(f"  {k}: {v}")
PY
}

# The three schedules on one GPU, on the configuration `predict` simulates: the executor's MLP
# with hidden layers 4096,4096,4096 (42 M parameters), batch 256.
TRAIN_ARGS=(--device cuda --features 1024 --classes 1000 --samples 65536 --hidden 4096,4096,4096 --batch 256
  --lr 0.01 --steps 100 --warmup-steps 20 --quiet)
train_all() {
  "$BIN/dasim-train" "${TRAIN_ARGS[@]}" --schedule sgd --bucket-cap 25MiB -o "$STATE/train-sgd.json" &&
    "$BIN/dasim-train" "${TRAIN_ARGS[@]}" --schedule local_sgd --tau 4 -o "$STATE/train-local_sgd.json" &&
    "$BIN/dasim-train" "${TRAIN_ARGS[@]}" --schedule dasgd --tau 4 --delay 1 -o "$STATE/train-dasgd.json"
}

# Real PyTorch training steps on the same GPU (the GPU machine's python3 holds PyTorch): ResNet-50,
# VGG-16 and BERT-large on random data, and one profiled ResNet-50 step (scripts/gpu_torch_reference.py).
torch_reference() {
  # shellcheck disable=SC2086  # DASIM_GPU_TORCH_ARGS: more arguments, e.g. --only A,B --traces A
  LD_LIBRARY_PATH=$DASIM_GPU_ORIGINAL_LD_LIBRARY_PATH PYTHONUNBUFFERED=1 \
    python3 "$SRC/scripts/gpu_torch_reference.py" --out "$STATE" ${DASIM_GPU_TORCH_ARGS:-}
}

# Two ranks on the one GPU: NCCL may refuse two ranks on one device; the log says what happened.
shared_gpu() {
  command -v orterun >/dev/null || {
    echo "no mpirun in the bundle: two ranks sharing the GPU not tried"
    return 0
  }
  orterun --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH "$BIN/dasim-train" "${TRAIN_ARGS[@]}" \
    --schedule sgd -o "$STATE/train-2ranks.json"
  local status=$?
  echo "two ranks sharing one GPU: exit status $status"
  return 0  # an answer either way: the log is the finding
}

# The 8 files that come back (the GPU machine returns at most 8): copied after every step, so a
# run stopped by the call's limit still returns what it measured.
collect() {
  local out=$1 spec f
  for spec in "${STEPS[@]}"; do
    f=${spec%% *}
    [ -e "$STATE/$f.log" ] && { echo "======== $f"; cat "$STATE/$f.log"; }
  done >"$out/logs.txt"
  for f in h200-measured.json train-sgd.json train-local_sgd.json train-dasgd.json torch-reference.json; do
    [ -e "$STATE/$f" ] && cp "$STATE/$f" "$out/"
  done
  for f in "$STATE"/trace-*.json.xz; do  # one by default; DASIM_GPU_TORCH_ARGS may ask for more
    [ -e "$f" ] && cp "$f" "$out/"
  done
  cp "$STATE/summary.txt" "$out/summary.txt"
  if [ -e "$STATE/calibrate.done" ]; then
    sed -n '/^calibration /,$p' "$STATE/calibrate.log" >>"$out/summary.txt"
  fi
}

# The steps of `device`, "NAME LIMIT_S FUNCTION", most valuable first: the CUDA path at all, the
# measured calibration, the framework reference.
STEPS=("facts 60 facts" "cuda-tests 240 cuda_tests" "calibrate 330 calibrate" "torch 300 torch_reference"
  "train 180 train_all" "shared-gpu 90 shared_gpu")

device() {
  local out=${1:-}
  [ -n "$out" ] || usage
  local known=" ${STEPS[*]%% *} " name spec
  for name in ${DASIM_GPU_STEPS:-}; do
    [[ $known == *" $name "* ]] || die "device: DASIM_GPU_STEPS: unknown step '$name' (steps:$known)"
  done
  mkdir -p "$out" "$STATE" || die "device: cannot create $out or $STATE"
  environment
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "no usable GPU (nvidia-smi lists none)" >"$out/summary.txt"
    die "device: no usable GPU here (nvidia-smi lists none); run this on the GPU machine"
  fi
  FAILED=0
  DEADLINE=$((SECONDS + ${DASIM_GPU_DEADLINE:-540}))
  touch "$STATE/summary.txt"
  echo "---- run at $(date -u +%H:%M:%S)" >>"$STATE/summary.txt"
  for spec in "${STEPS[@]}"; do
    # DASIM_GPU_STEPS="facts train" runs only the steps it names.
    if [ -n "${DASIM_GPU_STEPS:-}" ] && [[ " $DASIM_GPU_STEPS " != *" ${spec%% *} "* ]]; then continue; fi
    # shellcheck disable=SC2086
    step $spec
    collect "$out"
  done
  echo "---- summary"
  cat "$out/summary.txt"
  return $FAILED
}

# ---------------------------------------------------------------------------------------------
# predict: here, on what came back.
predict() {
  local dir=${1:-}
  [ -n "$dir" ] || usage
  [ -d "$dir" ] || die "predict: $dir is not a folder"
  local calibration=$dir/h200-measured.json
  [ -e "$calibration" ] || die "predict: $calibration is missing (the device step's calibration)"
  local bin=${DASIM_BIN:-$SRC/build/bin}
  [ -x "$bin/dasim" ] || die "predict: no $bin/dasim (build first, or set DASIM_BIN)"
  calibration_summary "$calibration" >"$dir/calibration-summary.txt" || die "predict: $calibration: cannot summarise"
  /usr/bin/python3 "$SRC/scripts/gpu_validation_predict.py" --bin "$bin" --dir "$dir" --calibration "$calibration" ||
    return
  # The PyTorch steps, where the device step measured them: datasheet vs the fresh calibration.
  if compgen -G "$dir/torch-reference*.json" >/dev/null; then
    /usr/bin/python3 "$SRC/scripts/gpu_torch_predict.py" --bin "$bin" --dir "$dir" \
      --calibration "$SRC/platforms/calibration/h200-datasheet.json" --calibration "$calibration"
  fi
}

case "${1:-}" in
  bundle) bundle ;;
  device) device "${2:-}" ;;
  predict) predict "${2:-}" ;;
  __run) # internal: one step of `device` under its time limit (see step)
    shift
    environment
    "$@"
    ;;
  *) usage ;;
esac
