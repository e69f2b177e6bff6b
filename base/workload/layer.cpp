// Names of layer kinds, as they appear in workload JSON files and in `dasim workload show`.
#include "workload/layer.hpp"

namespace dasim::workload {

const char* to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::conv:
      return "conv";
    case LayerKind::linear:
      return "linear";
    case LayerKind::norm:
      return "norm";
    case LayerKind::elementwise:
      return "elementwise";
    case LayerKind::pooling:
      return "pooling";
    case LayerKind::attention:
      return "attention";
    case LayerKind::embedding:
      return "embedding";
  }
  return "?";
}

}  // namespace dasim::workload
