// Optimizer update traffic (see optimizer.hpp).
#include "workload/optimizer.hpp"

namespace dasim::workload {

int update_streams(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd_momentum:
      return 5;
    case Optimizer::adam:
      return 7;
    case Optimizer::lamb:
      return 13;  // 10 for the two stages, 3 for the norms of g, w and u
    case Optimizer::bert_adam:
      return 0;  // per tensor: per_tensor_update
  }
  return 5;
}

int update_kernels(Optimizer optimizer) {
  if (optimizer == Optimizer::bert_adam) return 0;  // per tensor: per_tensor_update
  return optimizer == Optimizer::lamb ? 10 : 1;     // lamb: four norms of two kernels, two stages
}

bool is_per_tensor(Optimizer optimizer) {
  return optimizer == Optimizer::bert_adam;
}

TensorUpdate per_tensor_update(Optimizer optimizer, bool weight_decay) {
  if (optimizer != Optimizer::bert_adam) return {};
  // clip_grad_norm_ 3 streams / 7 kernels + Adam's moments and step 24 / 10 (optimizer.hpp).
  TensorUpdate update{3 + 24, 7 + 10};
  if (weight_decay) {
    update.streams += 5;  // decay x w reads w, writes a temporary; update += reads two, writes one
    update.kernels += 2;
  }
  return update;
}

int optimizer_states(Optimizer optimizer) {
  return optimizer == Optimizer::sgd_momentum ? 1 : 2;
}

std::string to_string(Optimizer optimizer) {
  return std::string(kOptimizerNames.name(optimizer));
}

Optimizer parse_optimizer(const std::string& text, const std::string& file, const std::string& json_path) {
  return parse_named(kOptimizerNames, text, "--optimizer", file, json_path);
}

}  // namespace dasim::workload
