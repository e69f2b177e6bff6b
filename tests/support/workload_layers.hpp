// Lookups into a workload's layers that the workload tests share: a test names the layer whose
// figures it derives by hand, or counts the layers of one kind a builder should have made.
#pragma once

#include "workload/workload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dasim::testing {

// The layer called `name`; throws (the test fails with the name) when there is none.
inline const workload::Layer& layer_named(const workload::Workload& w, const std::string& name) {
  auto it = std::find_if(w.layers.begin(), w.layers.end(),
                         [&](const workload::Layer& l) { return l.name == name; });
  if (it == w.layers.end()) throw std::runtime_error("no layer named " + name);
  return *it;
}

inline int layers_of_kind(const workload::Workload& w, workload::LayerKind kind) {
  return int(std::count_if(w.layers.begin(), w.layers.end(),
                           [&](const workload::Layer& l) { return l.kind == kind; }));
}

}  // namespace dasim::testing
