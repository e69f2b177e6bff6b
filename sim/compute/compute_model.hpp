// Time of each layer's forward and backward pass on one calibrated device, and of the optimizer
// update. The schedules ask this model for compute times; communication is simulated elsewhere.
//
// Per layer and pass, in order of preference:
//  1. measured times from a workload file: time x batch / measured_batch (linear in batch);
//  2. a calibration per_shape entry with the same kind, shape key, batch and compute precision
//     (conv: conv_fwd; conv_bwd_data + conv_bwd_filter, the data part only when the layer computes
//     an input gradient; gemm: the forward shape, backward = forward time x backward/forward FLOPs
//     since its two GEMMs have the forward's FLOPs each);
//  3. the roofline formula
//       max(FLOPs x batch / achieved FLOP/s, bytes x batch / memory bandwidth) + launch overhead
//     GEMM-like layers (conv, linear, attention) run at flops[compute precision] (fp32 when the
//     calibration lacks it: see fell_back_to_fp32()) x the efficiency of their kernel class at the
//     FLOPs of one call (kernel_class(); the measured curve of that class and precision, else the
//     file's conv_efficiency / gemm_efficiency, else 1). A conv's backward is two kernels, the
//     input gradient (backward - forward FLOPs) and the weight gradient (forward FLOPs), each at
//     its class's efficiency. Other layers are element-wise CUDA-core work at flops.fp32, in
//     practice memory-bound. Forward bytes are the layer's activation_bytes; backward bytes its
//     backward_activation_bytes, else twice the forward's (it reads the output gradient and the
//     saved input and writes the input gradient).
// A pass never takes less than the host's dispatch time of one kernel (host_overhead_per_kernel_s):
// the CPU runs ahead of the GPU except where kernels are shorter than its own per-op cost.
#pragma once

#include "calibration/calibration.hpp"
#include "workload/workload.hpp"

#include <map>
#include <string>
#include <tuple>

namespace dasim::compute {

enum class Pass { forward, backward_data, backward_filter };

// "gemm" for linear and attention layers; "conv_1x1", "conv_3x3_s1" or "conv_other" + "." + pass
// for convolutions; "" for layers that are not GEMM-like.
std::string kernel_class(const workload::Layer& layer, Pass pass);

// The update's seconds by what runs (update_time_s is their sum, up to rounding).
struct UpdateParts {
  double optimizer_s = 0;        // the optimizer's own streams and launches; a profiled update: all of it
  double mixed_precision_s = 0;  // amp: the cast of the weights and the unscale of the gradients
  double clip_s = 0;             // global-norm clipping (workload/grad_clip.hpp)
  double zero_fill_s = 0;        // zero_grad's fill of each gradient tensor (workload/zero_grad.hpp)
};

class ComputeModel {
 public:
  ComputeModel(const calibration::Calibration& calibration, workload::Precision precision);
  // precision: any workload precision name (workload/precision.hpp); InputError otherwise.
  ComputeModel(const calibration::Calibration& calibration, const std::string& precision);

  workload::Precision precision() const { return precision_; }
  const std::string& compute_precision() const { return compute_precision_; }
  bool fell_back_to_fp32() const { return fell_back_; }
  double peak_flops() const { return flops_; }  // flops[compute precision] (or fp32)

  // Achieved FLOP/s of one call of `flops_per_call` FLOPs: of a layer's pass, and (no kernel
  // class known) of a layer of `kind` with the file's generic curves.
  double achieved_flops(const workload::Layer& layer, Pass pass, double flops_per_call) const;
  double achieved_flops(workload::LayerKind kind, double flops_per_call) const;

  double forward_time_s(const workload::Layer& layer, int batch) const;
  double backward_time_s(const workload::Layer& layer, int batch) const;
  // What backward does with the layer's new gradients (workload/zero_grad.hpp): nothing when they
  // were set to None; with zeroed gradients, per parameter tensor one kernel that adds the new
  // gradient into the old (3 gradient-sized streams). 0 for a layer with profiled times, whose
  // measurement holds whatever its run did. Sharded over `shards` GPUs (fsdp), each keeps and
  // accumulates 1/shards of the gradient: the bytes divide, the launches do not.
  double gradient_accumulation_s(const workload::Workload& workload, const workload::Layer& layer,
                                 int shards = 1) const;
  // Gradient accumulation: what a micro-batch after a step's first adds to the layer's backward,
  // the addition of each new gradient into the step's (3 gradient-sized streams and a kernel per
  // parameter tensor), which the first micro-batch skips unless its gradients were zeroed (zero:
  // gradient_accumulation_s charges it on every micro-batch already). Timed layers included: their
  // run had one batch per step.
  double micro_batch_add_s(const workload::Workload& workload, const workload::Layer& layer) const;
  // backward_time_s + gradient_accumulation_s: the layer's backward as the schedules run it.
  double layer_backward_s(const workload::Workload& workload, const workload::Layer& layer, int batch,
                          int shards = 1) const;
  // Optimizer update: the workload's optimizer's streams (workload/optimizer.hpp; SGD with
  // momentum reads weights, gradients and momentum and writes weights and momentum, 5 streams) x
  // params x master-weight bytes at memory bandwidth, plus its kernels' launches (fused
  // multi-tensor kernels). Mixed precision (amp) adds the per-step cast of the fp32 weights to the
  // compute type (read 4 + write 2 bytes per parameter) and GradScaler's unscale and inf check of
  // the fp32 gradients (read 4 + write 4), each one more launch. A workload with a profiled
  // update_time_s gets that instead. With the model sharded over `shards` GPUs (fsdp) each
  // updates its 1/shards of the parameters: the bytes divide, the launches do not. Global-norm
  // clipping (workload/grad_clip.hpp) and zero_grad's fill of each gradient (zero_grad.hpp: one
  // kernel per parameter tensor) are charged here too.
  double update_time_s(const workload::Workload& workload, int shards = 1) const;
  UpdateParts update_parts(const workload::Workload& workload, int shards = 1) const;
  // What the GPU waits for its input: samples x input_per_sample_s beyond the step's own compute
  // (the loader works while the GPU computes). A double: a step's samples (micro-batches x batch,
  // up to 2^16 x 2^20) exceed int.
  double input_wait_s(double samples, double step_compute_s) const;
  // What the loader takes for `samples`: samples x input_per_sample_s.
  double input_time_s(double samples) const;

 private:
  // `streams` gradient-sized passes over each of the layer's parameter tensors (1/shards of each),
  // a kernel per tensor.
  double gradient_streams_s(const workload::Workload& workload, const workload::Layer& layer, int streams,
                            int shards) const;
  const double* find_shape(const std::string& kind, const std::string& key, int batch) const;
  double efficiency(const workload::Layer& layer, Pass pass, double flops_per_call) const;
  double pass_time_s(double compute_s, double bytes) const;

  calibration::Fitted fitted_;  // a copy: the model does not depend on the caller keeping the file
  workload::Precision precision_;
  std::string compute_precision_;
  double flops_ = 0;              // GEMM-like layers
  double elementwise_flops_ = 0;  // everything else (fp32 CUDA cores)
  bool fell_back_ = false;
  std::map<std::string, calibration::EfficiencyCurve> curves_;  // of the compute precision
  std::map<std::tuple<std::string, std::string, int>, double> shape_times_s_;
};

}  // namespace dasim::compute
