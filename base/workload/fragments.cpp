#include "workload/fragments.hpp"

#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

namespace dasim::workload {

int layers_with_parameters(const std::vector<int64_t>& layer_params) {
  int count = 0;
  for (int64_t p : layer_params) count += p > 0 ? 1 : 0;
  return count;
}

std::vector<Fragment> plan_fragments(const std::vector<int64_t>& layer_params, int fragments) {
  const int with_params = layers_with_parameters(layer_params);
  if (fragments < 1 || fragments > with_params)
    throw std::invalid_argument(
        fmt::format("{} fragments of a model with {} layers with parameters", fragments, with_params));
  const int64_t total = std::accumulate(layer_params.begin(), layer_params.end(), int64_t{0});
  std::vector<Fragment> out;
  Fragment open;
  int64_t so_far = 0;
  int param_layers_left = with_params;
  for (size_t i = 0; i < layer_params.size(); ++i) {
    open.params += layer_params[i];
    so_far += layer_params[i];
    if (layer_params[i] > 0) --param_layers_left;
    const int fragments_to_come = fragments - static_cast<int>(out.size()) - 1;
    // Share reached (compared in integers: so_far / total >= (f + 1) / P), or just enough layers
    // with parameters left for the fragments still to come.
    const bool share_reached =
        static_cast<__int128>(so_far) * fragments >= static_cast<__int128>(total) * (out.size() + 1);
    if (fragments_to_come > 0 && open.params > 0 &&
        (share_reached || param_layers_left == fragments_to_come)) {
      open.last_layer = i;
      out.push_back(open);
      open = Fragment{};
      open.first_layer = i + 1;
      open.param_offset = so_far;
    }
  }
  open.last_layer = layer_params.empty() ? 0 : layer_params.size() - 1;
  out.push_back(open);
  return out;
}

}  // namespace dasim::workload
