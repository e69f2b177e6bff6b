#include "simulation_guard.hpp"

#include "common/units.hpp"
#include "runtime/interruption.hpp"
#include "scenario/limits.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::cli {

void guard_simulation(const platform::PlatformSpec& spec, const std::string& file, int nodes_override,
                      bool force) {
  if (!force) {
    const std::string how = fmt::format("{} x {} = ", units::format_count(spec.nodes, "node"),
                                        units::format_count(spec.gpus_per_node, "GPU"));
    const int rings = std::max(1, spec.rails());  // one ring per NIC, as NCCL's channels
    if (nodes_override > 0)
      scenario::check_gpu_limit(spec.total_gpus(), fmt::format("--nodes {}", nodes_override), "", how, 1, {},
                                rings);
    else
      scenario::check_gpu_limit(spec.total_gpus(), file, "nodes", how, 1, {}, rings);
  }
  runtime::install_interrupt_handlers();
}

}  // namespace dasim::cli
