// A training schedule as docs/algorithms.md defines it, with its parameters:
//   sgd       gradient allreduce per bucket, overlapped with the rest of backward (or not);
//   local_sgd tau local steps, then a blocking weight allreduce;
//   dasgd     snapshot every tau steps, non-blocking weight allreduce overlapping the next d steps,
//             then w <- avg + (w - snapshot);
//   diloco    H = tau inner steps, then a blocking allreduce of the outer gradient
//             (theta_global - theta_local) and an outer optimizer step (Douillard et al. 2023);
//   streaming_diloco  the model in P fragments synchronised in staggered order, each fragment's
//             allreduce overlapping d inner steps, merged by lerp(global, local, alpha)
//             (Douillard et al. 2025). diloco is streaming_diloco with P = 1, d = 0.
// The simulator and both trainers read the same spec and run it through the one schedule engine
// (schedules/run_schedule.hpp).
#pragma once

#include "common/enum_names.hpp"
#include "workload/buckets.hpp"

#include <cstdint>
#include <string>

namespace dasim::schedules {

enum class ScheduleKind { sgd, local_sgd, dasgd, diloco, streaming_diloco };

inline constexpr EnumNames<ScheduleKind, 5> kScheduleKindNames{{{
    {ScheduleKind::sgd, "sgd"},
    {ScheduleKind::local_sgd, "local_sgd"},
    {ScheduleKind::dasgd, "dasgd"},
    {ScheduleKind::diloco, "diloco"},
    {ScheduleKind::streaming_diloco, "streaming_diloco"},
}}};

// The DiLoCo family's outer optimizer, applied to the averaged outer gradient Delta:
//   sgd       theta_g <- theta_g - lr Delta            (lr = 1: plain model averaging)
//   nesterov  m <- mu m + Delta; theta_g <- theta_g - lr (Delta + mu m)   (DiLoCo: lr 0.7, mu 0.9)
enum class OuterOptimizer { sgd, nesterov };

inline constexpr EnumNames<OuterOptimizer, 2> kOuterOptimizerNames{{{
    {OuterOptimizer::sgd, "sgd"},
    {OuterOptimizer::nesterov, "nesterov"},
}}};

struct OuterStep {
  OuterOptimizer optimizer = OuterOptimizer::nesterov;
  double lr = 0.7;        // DiLoCo's outer learning rate (arXiv 2311.08105, section 3)
  double momentum = 0.9;  // and Nesterov momentum
};

// Bits per element of the averaged payload (local_sgd, dasgd and the DiLoCo family): 32 sends it
// as computed; 16, 8 and 4 quantize it before the allreduce (INTELLECT-1: int8, Streaming DiLoCo:
// 4-bit), which divides the bytes on the wire and costs a quantize and a dequantize pass.
inline constexpr int kPayloadBitChoices[] = {32, 16, 8, 4};
inline constexpr bool is_payload_bits(int64_t bits) {
  for (int choice : kPayloadBitChoices)
    if (bits == choice) return true;
  return false;
}

// Top-k sparsification of the averaged payload (Aji & Heafield 2017, arXiv 1704.05021; Deep
// Gradient Compression, Lin et al. 2018, arXiv 1712.01887): each worker adds its payload to an
// error-feedback residual, sends the k = ceil(density x elements) largest-magnitude entries of the
// residual as (index, value) pairs and keeps the rest for the next round. Sparse vectors with
// different supports do not sum in place along a ring, so the workers all-gather them and each
// sums all P locally (SparCML, Renggli et al. 2019, arXiv 1802.08021, section 3).
struct TopK {
  double density = 1;   // k / elements, in [1e-9, 1); 1: dense (no top-k)
  int index_bits = 32;  // bits per index on the wire (int32 indices by default)
};

// k = ceil(density x n) entries of n, at least 1 and at most n. The product is rounded first so
// that a density written in decimal counts as written (0.07 x 100 is 7.000000000000001 in
// binary: 7 entries, not 8); the simulator and both trainers count with this.
double top_k_entries(double density, double n);

// How synchronous data parallelism keeps its replicas (sgd over all GPUs, a periodic schedule's
// steps inside its islands):
//   ddp   every GPU holds the whole model; each gradient bucket is allreduced (PyTorch DDP)
//   fsdp  every GPU holds 1/g of the weights, gradients and optimizer state (g: the group's GPUs);
//         each unit (a bucket's layers) is all-gathered before its forward and again before its
//         backward, its gradients reduce-scattered after it (PyTorch FSDP, FULL_SHARD); between
//         islands GPU r averages its shard with GPU r of every other island (HSDP)
enum class DataParallel { ddp, fsdp };

inline constexpr EnumNames<DataParallel, 2> kDataParallelNames{{{
    {DataParallel::ddp, "ddp"},
    {DataParallel::fsdp, "fsdp"},
}}};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::sgd;
  int tau = 1;    // steps between averagings (local_sgd, dasgd; H for the DiLoCo family); 1 for sgd
  int delay = 0;  // d: steps an average may take to arrive (dasgd: 0 <= d <= tau; streaming_diloco:
                  // the overlap, the paper's tau, 0 <= d <= H); 0 otherwise
  double bucket_cap_bytes = workload::kDdpDefaultBucketCapBytes;  // sgd: DDP bucket cap
  bool overlap = true;  // sgd: start each bucket's allreduce during backward
  // sgd and the islands' steps: PyTorch DDP's gradient_as_bucket_view. false (DDP's default):
  // each gradient is copied into its bucket before the allreduce and the averaged bucket back
  // after it (2 x bucket bytes of memory traffic each way); true: the buckets are the gradients.
  bool bucket_view = false;
  int fragments = 1;  // streaming_diloco: P, dividing H
  double alpha = 0;   // streaming_diloco: theta_local <- alpha theta_local + (1 - alpha) theta_global
  OuterStep outer{};  // the DiLoCo family
  // diloco: eager outer steps (Kale et al. 2025, arXiv 2502.12996): a round's outer-gradient
  // allreduce overlaps the whole next inner round; each outer step applies the worker's own fresh
  // outer gradient and the others' of the round before: D = (Delta_own(r) + S(r-1) - Delta_own(r-1)) / n.
  bool eager = false;
  int payload_bits = 32;  // bits per value on the wire, of top-k's values too
  TopK top_k{};
  // Hierarchical data parallelism: GPUs in islands of this many (whole nodes), each island one
  // worker of the periodic schedule: synchronous data parallelism (the gradient buckets' allreduce
  // over the island, as sgd) every step inside it, the schedule's averaging between islands.
  // 1: every GPU is its own worker. Not for sgd.
  int island_gpus = 1;
  DataParallel data_parallel = DataParallel::ddp;  // sgd, and the steps inside islands
  // Gradient accumulation: micro-batches of batch_per_gpu samples per optimizer step, each adding
  // its gradients to the step's; the gradients are allreduced (sgd, islands) once, after the
  // last. 1: none. A step then trains on accumulation_steps x batch_per_gpu samples per GPU.
  int accumulation_steps = 1;
};

// The most micro-batches per step a scenario or dasim-train accepts: DeepSpeed's BERT runs used
// hundreds; a step of more than 2^16 would take longer to simulate than any run it describes.
inline constexpr int kMostAccumulationSteps = 1 << 16;

// Samples one GPU trains on per optimizer step: its micro-batch times the accumulation steps.
inline int64_t samples_per_gpu_step(const ScheduleSpec& s, int batch_per_gpu) {
  return int64_t{batch_per_gpu} * s.accumulation_steps;
}

inline bool has_islands(const ScheduleSpec& s) {
  return s.kind != ScheduleKind::sgd && s.island_gpus > 1;
}

// Whether the synchronous steps shard the model (fsdp): sgd's, or those inside islands.
inline bool has_sharded_steps(const ScheduleSpec& s) {
  return s.data_parallel == DataParallel::fsdp && (s.kind == ScheduleKind::sgd || has_islands(s));
}

inline bool has_top_k(const ScheduleSpec& s) {
  return s.top_k.density < 1;
}

inline bool is_diloco_family(const ScheduleSpec& s) {
  return s.kind == ScheduleKind::diloco || s.kind == ScheduleKind::streaming_diloco;
}

std::string to_string(ScheduleKind kind);
// "sgd", "local_sgd(tau=4)", "dasgd(tau=4,d=1)", "diloco(H=100,nesterov lr=0.7 mu=0.9)",
// "streaming_diloco(H=100,P=4,d=5,alpha=0.5,nesterov lr=0.7 mu=0.9)", with ",bits=4" when quantized,
// ",top_k=0.01" (",top_k=0.01/16" with 16-bit indices) when sparsified,
// ",island=8" with islands; "sgd(bucket_view)" / ",bucket_view" when the buckets are the gradients,
// "sgd(fsdp)" / ",fsdp" when the synchronous steps shard the model, "sgd(accumulate=4)" /
// ",accumulate=4" with gradient accumulation
std::string describe(const ScheduleSpec& spec);

}  // namespace dasim::schedules
