// Time of each layer's forward and backward pass on one calibrated device, and of the optimizer
// update. The schedules ask this model for compute times; communication is simulated elsewhere.
//
// Per layer and pass, in order of preference:
//  1. measured times from a workload file: time x batch / measured_batch (linear in batch);
//  2. a calibration per_shape entry with the same kind, shape key, batch and precision
//     (conv: conv_fwd; conv_bwd_data + conv_bwd_filter, the data part only when the layer computes
//     an input gradient; gemm: the forward shape, backward = forward time x backward/forward FLOPs
//     since its two GEMMs have the forward's FLOPs each);
//  3. the roofline formula
//       max(FLOPs x batch / achieved FLOP/s, bytes x batch / memory bandwidth) + launch overhead
//     with achieved FLOP/s = flops[precision] (fp32 when the calibration lacks the precision: see
//     fell_back_to_fp32()) x efficiency curve of the layer's kind (conv: conv_efficiency; linear
//     and attention: gemm_efficiency; others: 1) at the FLOPs of one forward call. Forward bytes
//     are the layer's activation_bytes; backward bytes are twice that (it reads the output
//     gradient and the saved input and writes the input gradient, plus the weight gradient path).
#pragma once

#include "calibration/calibration.hpp"
#include "workload/workload.hpp"

#include <map>
#include <string>
#include <tuple>

namespace dasim::compute {

class ComputeModel {
 public:
  // precision: fp32 | tf32 | fp16 | bf16 (InputError otherwise).
  ComputeModel(const calibration::Calibration& calibration, const std::string& precision);
  ComputeModel(const calibration::Calibration& calibration, workload::Precision precision);

  const std::string& precision() const { return precision_; }
  bool fell_back_to_fp32() const { return fell_back_; }
  double peak_flops() const { return flops_; }  // flops[precision] (or fp32) of the calibration

  // Achieved FLOP/s for one call of `flops_per_call` FLOPs of a layer of `kind`.
  double achieved_flops(workload::LayerKind kind, double flops_per_call) const;

  double forward_time_s(const workload::Layer& layer, int batch) const;
  double backward_time_s(const workload::Layer& layer, int batch) const;
  // Optimizer update, SGD with momentum: reads weights, gradients and momentum, writes weights and
  // momentum = 5 x params x element bytes of the workload precision, at memory bandwidth, plus one
  // launch (a fused multi-tensor kernel). Mixed precision with fp32 master weights moves more.
  // A workload with a profiled update_time_s gets that instead.
  double update_time_s(const workload::Workload& workload) const;
  // Forward + backward of every layer + the update, for `batch` samples on one device.
  double step_compute_time_s(const workload::Workload& workload, int batch) const;

 private:
  // Measured time of a shape at this batch and precision, or nullptr.
  const double* find_shape(const std::string& kind, const std::string& key, int batch) const;
  double roofline_s(workload::LayerKind kind, double flops, double call_flops, double bytes) const;

  calibration::Fitted fitted_;  // a copy: the model does not depend on the caller keeping the file
  std::string precision_;
  double flops_ = 0;
  bool fell_back_ = false;
  std::map<std::tuple<std::string, std::string, int>, double> shape_times_s_;
};

}  // namespace dasim::compute
