// What `dasim platform show` prints: node and fabric figures, bisection bandwidth, and the
// GPU-to-GPU matrix of one node read back from the SimGrid routes (so it shows what the simulator
// will really use), in the spirit of `nvidia-smi topo -m`.
#pragma once

#include "platform/platform_spec.hpp"

#include <string>

namespace dasim::platform {

// Bisection bandwidth of the fabric (bytes/s, one direction), from the spec alone.
double bisection_bandwidth_Bps(const PlatformSpec& spec);

// Connection label of a GPU pair inside a node: NV<k> (k NVLinks), NVS (NVSwitch), PIX (same PCIe
// switch), NODE (different switches, same socket), SYS (across the inter-socket link).
std::string connection_label(const PlatformSpec& spec, int a, int b);

// Builds the platform (in the calling process: use inside engine::run_isolated) and renders the
// summary text.
std::string render_platform_summary(const PlatformSpec& spec);

}  // namespace dasim::platform
