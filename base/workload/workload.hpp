// A training workload: the ordered list of layers of one model replica (forward order), its
// precision, and what one sample is. The schedules walk the layers forward then backward; the
// gradient buckets (buckets.hpp) are planned over the same list.
#pragma once

#include "workload/activation_checkpointing.hpp"
#include "workload/grad_clip.hpp"
#include "workload/layer.hpp"
#include "workload/optimizer.hpp"
#include "workload/precision.hpp"
#include "workload/zero_grad.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::workload {

// One of the shapes a workload's micro-batches take when they differ (a loader that pads each
// micro-batch only to its own length bin, as LDDL's binned BERT phase 2): every rank runs the same
// shape in the same micro-batch, so the shapes do not make ranks wait for each other; each layer's
// time is the share-weighted mean of its shapes' (communication overlaps the mean shape's).
struct SampleShape {
  double share = 0;         // of the micro-batches, > 0; a workload's shares sum to 1
  int sequence_length = 0;  // tokens the micro-batch is padded to (0: not a sequence)
};

struct Workload {
  std::string name;
  Precision precision = Precision::fp32;
  // Element type of the gradients DDP sends when a communication hook changes it (e.g. PyTorch's
  // fp16_compress_hook); unset: the precision's own gradient type.
  std::optional<Precision> grad_precision;
  Optimizer optimizer = Optimizer::sgd_momentum;  // whose update the compute model charges
  GradClip grad_clip = GradClip::none;            // global-norm clipping before the update
  ZeroGrad zero_grad = ZeroGrad::set_to_none;     // how gradients are cleared between steps
  // Blocks whose forward is run again before their backward (activation_checkpointing.hpp).
  ActivationCheckpointing activation_checkpointing = ActivationCheckpointing::none;
  std::vector<Layer> layers;           // forward order
  std::vector<SampleShape> shapes;     // empty: one shape; else each layer's `shapes` follow these
  std::string sample_name = "sample";  // "image" or "sequence" for the built-ins
  int sequence_length = 0;             // tokens per sequence (0 for image models)
  int measured_batch = 0;              // batch the layers' measured times are for (0: no times)
  // A step's compute outside the layers (optimizer update, batch copy), measured by a profiler;
  // when set it replaces the bandwidth model of the update (compute::ComputeModel::update_time_s).
  std::optional<double> update_time_s;
  std::string origin;         // "built-in" or the JSON file it came from
  std::string length_counts;  // the length counts its bins came from (length_bins.hpp), "" for none

  int64_t total_params() const;
  std::vector<int64_t> layer_params() const;  // per layer, forward order (the planners' input)
  int gradient_element_bytes() const;         // grad_precision's, else the precision's gradient bytes
  // Bytes of one full gradient (= one full copy of the weights) as the allreduce sends it.
  double gradient_bytes() const;
  double forward_flops() const;   // per sample, all layers
  double backward_flops() const;  // per sample, all layers
  // Multiply-adds of the conv and linear layers only (forward, per sample): the figure papers
  // and torchvision quote as "FLOPs"/"MACs" for CNNs.
  double conv_linear_macs() const;
  double activation_bytes() const;  // per sample, all layers, forward
};

}  // namespace dasim::workload
