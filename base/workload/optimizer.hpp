// The optimizer whose update step the compute model charges: how many parameter-sized streams one
// fused (multi-tensor) update reads and writes, and in how many kernels.
//   sgd_momentum  reads w, g, m; writes w, m                                   5 streams, 1 kernel
//   adam          reads w, g, m, v; writes w, m, v (Kingma & Ba, Algorithm 1)  7 streams, 1 kernel
//   lamb          NVIDIA's FusedLAMB (apex/optimizers/fused_lamb.py and csrc/multi_tensor_lamb.cu,
//                 NVIDIA/apex @ 6424da3b; DeepLearningExamples' FusedLAMBAMP has the same passes):
//                 the global norm of g for clipping (reads g), the per-tensor norms of w (reads w),
//                 stage 1 (reads g, m, v, w; writes m, v and the update u), the per-tensor norms of
//                 u (reads u), stage 2 (reads w, u; writes w after the trust ratio ||w|| / ||u||,
//                 You et al. 2019, Algorithm 2)                           13 streams, 10 kernels
//                 (each norm: a partial-sum and a cleanup kernel; the global norm's blend of the
//                 fp32 and fp16 lists' norms: two more; the two stages: one each), for one
//                 parameter group: each further group (BERT's scripts have two, decay and no
//                 decay) runs its own w norms, stages and u norms, 6 launches more, not counted
//   bert_adam     DeepLearningExamples' BertAdam (PyTorch/LanguageModeling/BERT/optimization.py,
//                 what run_squad.py uses without --fp16): a Python loop over the parameter tensors
//                 that runs, per tensor, eager kernels each streaming the whole tensor. Per tensor:
//                 clip_grad_norm_ on that tensor alone (norm, stack, norm, + eps, divide, clamp,
//                 mul_: 7 kernels, 3 streams), m.mul_, m.add_, v.mul_, v.addcmul_, v.sqrt, + eps,
//                 m / (...), lr x update, negate, w.add_ (10 kernels, 24 streams) and, for tensors
//                 with weight decay, decay x w and update += (2 kernels, 5 streams):
//                 17 kernels and 27 streams, or 19 and 32 with decay (parameter_tensors.hpp).
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class Optimizer { sgd_momentum, adam, lamb, bert_adam };
inline constexpr EnumNames<Optimizer, 4> kOptimizerNames{{{
    {Optimizer::sgd_momentum, "sgd_momentum"},
    {Optimizer::adam, "adam"},
    {Optimizer::lamb, "lamb"},
    {Optimizer::bert_adam, "bert_adam"},
}}};

// A fused update: streams and kernels for all parameters together (not for a per-tensor one).
int update_streams(Optimizer optimizer);
int update_kernels(Optimizer optimizer);

// Whether the optimizer loops over the parameter tensors, launching its kernels per tensor.
bool is_per_tensor(Optimizer optimizer);
// A per-tensor optimizer's work on one tensor: parameter-sized streams and kernel launches.
struct TensorUpdate {
  int streams = 0;
  int kernels = 0;
};
TensorUpdate per_tensor_update(Optimizer optimizer, bool weight_decay);
int optimizer_states(Optimizer optimizer);  // parameter-sized state buffers (momentum; m and v)

std::string to_string(Optimizer optimizer);
Optimizer parse_optimizer(const std::string& text, const std::string& file = "",
                          const std::string& json_path = "");

}  // namespace dasim::workload
