#!/usr/bin/env bash
# Regenerates the two calibration files made from Baidu DeepBench's published training results:
#
#   scripts/make-deepbench-calibrations.sh V100.xlsx P100.xlsx
#     -> platforms/calibration/v100-sxm2-deepbench.json
#        platforms/calibration/p100-pcie-deepbench.json
#
# It fetches nothing. The two arguments are results/train/DeepBench_NV_V100.xlsx and
# results/train/DeepBench_NV_P100.xlsx of github.com/baidu-research/DeepBench at commit
# da81ba7820739e2e506dc27f382d15be5479f98f (the repository's HEAD, 2020-08-11), e.g.
#   git --git-dir=DeepBench/.git show da81ba78...:results/train/DeepBench_NV_V100.xlsx > V100.xlsx
# Their git blob ids are checked first (49554d9e... and b59aca27...), so a different workbook is
# refused instead of silently giving other numbers. The dates are the commits that last changed
# each workbook (`git log -1 --format=%cI -- results/train/DeepBench_NV_V100.xlsx`, in UTC):
# 30c51150 2019-10-07T16:52:09-07:00 for V100, f48528cf 2018-05-21T15:21:43-07:00 for P100.
# docs/calibration.md ("Measured calibrations from published kernel data") explains the choices.
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: $0 DeepBench_NV_V100.xlsx DeepBench_NV_P100.xlsx" >&2; exit 2; }
V100=$(realpath "$1")
P100=$(realpath "$2")
cd "$(dirname "$0")/.."
OUT=$(pwd)/platforms/calibration
PY=/usr/bin/python3
COMMIT=da81ba7820739e2e506dc27f382d15be5479f98f
REPO=github.com/baidu-research/DeepBench
INTERFERENCE="Lee et al., 'Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning: Performance and Power Implications', arXiv 2507.03114 (2025), abstract: overlapping computation and communication 'can result in an average computational slowdown of 18.9%, with a maximum of 40.0%' against compute alone, measured on 4x A100, H100, MI250 and MI210 with GPT and LLaMA models"

check_blob() {  # FILE EXPECTED_GIT_BLOB_ID
  local id
  id=$($PY -c 'import hashlib,sys; d=open(sys.argv[1],"rb").read(); print(hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest())' "$1")
  [[ $id == "$2" ]] || { echo "$1: git blob $id, expected $2 (the workbook at $COMMIT)" >&2; exit 2; }
}
check_blob "$V100" 49554d9e7b776ebcb556160c71e25ba2c4a97f6a
check_blob "$P100" b59aca27632ddcf70a9d4e3c0b4a46328aedc5dc
# The files record the converter's command with the workbook's file name: give them their
# published names, whatever the arguments are called, so reruns write the same bytes.
LINKS=$(mktemp -d)
trap 'rm -rf "$LINKS"' EXIT
ln -s "$V100" "$LINKS/DeepBench_NV_V100.xlsx"
ln -s "$P100" "$LINKS/DeepBench_NV_P100.xlsx"
V100=$LINKS/DeepBench_NV_V100.xlsx
P100=$LINKS/DeepBench_NV_P100.xlsx

convert() { (cd analysis && $PY -m dasim_analysis calibrate-from-published deepbench "$@"); }

# V100: the Specs sheet says "NVIDIA V100" in an "NVIDIA DGX-1", i.e. the SXM2 module.
# Memory bandwidth: DeepBench has no memory-bound kernel; a published measurement of a V100 SXM2.
# Launch overhead: the floor of DeepBench's own back-to-back GEMM calls (an upper bound: it also
# holds the tiny GEMM's execution).
convert "$V100" \
  --sheet "Results FP32=fp32" \
  --sheet "Results - FP16 ip, Mixed math=fp16" \
  --device-name "NVIDIA Tesla V100 SXM2 (DGX-1), DeepBench published kernel times" \
  --date 2019-10-07T23:52:09Z \
  --source-repo "$REPO" --source-commit "$COMMIT" --source-path results/train/DeepBench_NV_V100.xlsx \
  --memory-bandwidth 810.02e9 \
  --memory-bandwidth-source "measured on a Tesla V100-SXM2-32GB (same 900 GB/s HBM2 as the 16 GB module; University of Bielefeld GPU cluster, CUDA 11.6): cuBLAS saxpy over 2^20*200 floats, 3 x 4 bytes per element, best of 10, 754.39 GiB/s = 810.02 GB/s (90% of 900 GB/s); github.com/pc2/GPUInspector.jl @ 83ce4ac3476e1afe96aa89a6a4e8adb723559087, docs/src/devices/v100_sxm2.md, 'memory_bandwidth_saxpy(; size=2^20*200)'; the same page's memcpy figure is 775.57 GB/s. Not measured by DeepBench; a different machine and software than the kernel times" \
  --compute-slowdown 0.189 --compute-slowdown-source "$INTERFERENCE; not measured on a V100 (assumed the same: NCCL kernels take SMs and HBM bandwidth there too)" \
  --launch-overhead 8e-6 \
  --launch-overhead-source "DeepBench results/train/DeepBench_NV_V100.xlsx @ $COMMIT, sheet 'Results - FP16 ip, Mixed math', rows 138, 139, 148 and 149 (GEMM M = 512 and 1024, N = 16, K = 512): 0.008 ms per call, the smallest time of the workbook (sheet 'Results FP32': 0.010 ms, row 138). DeepBench times 400 back-to-back cublasGemmEx calls between two synchronizations, so this is the per-call floor of launch + a tiny kernel, an upper bound on the launch overhead" \
  --note "Measured kernel times published by Baidu DeepBench (cuBLAS / cuDNN 7.6.2, CUDA 10.1.243, driver 418.67, on a DGX-1), converted by dasim_analysis calibrate-from-published. Convolution rows are batch 4-32 (mostly 8 and 16); fp16 is 16-bit inputs with tensor cores (FP32 accumulate). memory_bandwidth_Bps and launch_overhead_s are not DeepBench numbers: see sources. docs/calibration.md describes the fitting." \
  --out "$OUT/v100-sxm2-deepbench.json"

# P100: the Specs sheet says "NVIDIA Tesla P100" on an ASUS X99-E WS workstation board (PCIe slots,
# no SXM2 sockets), and the best fp32 GEMM, 9.12 TFLOP/s, is 98% of the PCIe card's 9.3 TFLOPS peak
# (86% of the SXM2's 10.6): the PCIe card is inferred. The pseudo-FP16 sheet is 16-bit storage with
# 32-bit math (its Precision row says so; GP100's double-rate half-precision math is not used);
# it is recorded as fp16, the precision a workload stores its tensors in.
convert "$P100" \
  --sheet "Results FP32=fp32" \
  --sheet "Results - Psuedo FP16=fp16" \
  --device-name "NVIDIA Tesla P100 PCIe (inferred), DeepBench published kernel times" \
  --date 2018-05-21T22:21:43Z \
  --source-repo "$REPO" --source-commit "$COMMIT" --source-path results/train/DeepBench_NV_P100.xlsx \
  --memory-bandwidth 658.8e9 \
  --memory-bandwidth-source "not measured: no published measurement of a P100 PCIe's achieved HBM2 bandwidth could be found and checked. Datasheet 732 GB/s (NVIDIA Tesla P100 PCIe 16 GB; the 12 GB card has 549 GB/s and DeepBench does not record which it used) x 0.90, the fraction of its 900 GB/s that the V100 SXM2 saxpy measurement reaches (810.02 GB/s, github.com/pc2/GPUInspector.jl @ 83ce4ac3476e1afe96aa89a6a4e8adb723559087, docs/src/devices/v100_sxm2.md); an assumption, likely optimistic for first-generation HBM2" \
  --compute-slowdown 0.189 --compute-slowdown-source "$INTERFERENCE; not measured on a P100 (assumed the same: NCCL kernels take SMs and HBM bandwidth there too)" \
  --launch-overhead 11e-6 \
  --launch-overhead-source "DeepBench results/train/DeepBench_NV_P100.xlsx @ $COMMIT, sheet 'Results FP32', rows 147, 148, 157 and 167 (GEMM M = 512 and 1024, N = 16 and 32, K = 512): 0.011 ms per call, the smallest time of the workbook (the pseudo-FP16 sheet has the same). DeepBench times 400 back-to-back cublasGemmEx calls between two synchronizations, so this is the per-call floor of launch + a tiny kernel, an upper bound on the launch overhead" \
  --note "Measured kernel times published by Baidu DeepBench (cuBLAS / cuDNN 6.0.21, CUDA 8.0.88, driver 375.66), converted by dasim_analysis calibrate-from-published. The PCIe card is inferred (see sources.device). Convolution rows are batch 4-32 (mostly 8 and 16); fp16 here is DeepBench's pseudo-FP16: 16-bit inputs, 32-bit multiplication and addition. memory_bandwidth_Bps and launch_overhead_s are not DeepBench numbers: see sources. docs/calibration.md describes the fitting." \
  --out "$OUT/p100-pcie-deepbench.json"
