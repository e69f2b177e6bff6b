// Names of layer kinds, as they appear in workload JSON files and in `dasim workload show`.
#include "workload/layer.hpp"

namespace dasim::workload {

std::string to_string(LayerKind kind) {
  return std::string(kLayerKindNames.name(kind));
}

}  // namespace dasim::workload
