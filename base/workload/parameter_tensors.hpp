// The parameter tensors a layer holds, as a framework's optimizer iterates over them: a per-tensor
// optimizer (BertAdam) launches its kernels once per tensor, so its update costs launches x tensors,
// not one fused pass. Derived from the layer's kind and shape:
//   linear (with a GEMM shape)  weight k x n, and the bias if params exceed it
//   conv (with a conv shape)    weight out x in/groups x kernel_h x kernel_w, and the bias likewise
//   norm                        scale and shift, half of the parameters each
//   anything else with params   one tensor (an embedding layer's tables counted as one)
// Weight decay follows BERT's convention (DeepLearningExamples run_squad.py: no decay for 'bias',
// 'LayerNorm.bias', 'LayerNorm.weight'): weights and embeddings decay; biases and norm parameters do
// not.
#pragma once

#include "workload/workload.hpp"

#include <cstdint>
#include <vector>

namespace dasim::workload {

struct ParameterTensor {
  int64_t elements = 0;
  bool weight_decay = false;
};

std::vector<ParameterTensor> parameter_tensors(const Layer& layer);
std::vector<ParameterTensor> parameter_tensors(const Workload& workload);  // forward order

}  // namespace dasim::workload
