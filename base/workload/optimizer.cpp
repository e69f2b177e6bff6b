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
      return 10;
  }
  return 5;
}

int update_kernels(Optimizer optimizer) {
  return optimizer == Optimizer::lamb ? 2 : 1;
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
