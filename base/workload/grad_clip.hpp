// Gradient clipping by the global L2 norm, as a training loop runs it between the backward pass
// (after the allreduce) and the optimizer step: the parameter-sized streams it moves and its
// kernel launches, charged with the update (compute::ComputeModel::update_time_s).
//   none            no clipping (the default)
//   norm            the global norm of all gradients: one read of every gradient (apex's
//                   multi_tensor_l2norm, a partial-sum kernel and a cleanup kernel,
//                   csrc/multi_tensor_l2norm_kernel.cu). What a step runs when the norm is below
//                   the threshold, so the gradients stay as they are.
//   norm_and_scale  the norm, then every gradient multiplied by max_norm / norm (apex's
//                   multi_tensor_scale: a read and a write, one kernel). What a step runs when the
//                   norm exceeds the threshold.
// DeepLearningExamples' run_squad.py clips every step this way (its GradientClipper, max norm 1.0);
// whether the scale runs depends on the gradients' norm, which the model does not know, so the
// choice is the user's.
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class GradClip { none, norm, norm_and_scale };
inline constexpr EnumNames<GradClip, 3> kGradClipNames{{{
    {GradClip::none, "none"},
    {GradClip::norm, "norm"},
    {GradClip::norm_and_scale, "norm_and_scale"},
}}};

int clip_streams(GradClip clip);  // gradient-sized streams: 0, 1, 3
int clip_kernels(GradClip clip);  // launches: 0, 2, 3

std::string to_string(GradClip clip);
GradClip parse_grad_clip(const std::string& text, const std::string& file = "",
                         const std::string& json_path = "");

}  // namespace dasim::workload
