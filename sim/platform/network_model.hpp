// The SimGrid network model a platform asks for, set on the engine and stated in every output
// that rests on it. CM02 with factors 1 makes a transfer take exactly the route latency plus bytes
// over the bottleneck bandwidth; LV08 (SimGrid's default) multiplies latencies by 13.01 and
// bandwidths by 0.97 (SimGrid 3.32 defaults, ../docs/file-formats.md).
#pragma once

#include "platform/platform_spec.hpp"

#include <string>

namespace dasim::platform {

// Sets the SimGrid network configuration the spec asks for. Must run before build_platform and
// before the engine loads anything else.
void configure_network_model(const PlatformSpec& spec);

// "SimGrid CM02, latency factor 1, bandwidth factor 1, no cross-traffic, no TCP-gamma cap".
std::string describe_network_model(const NetworkModelSpec& network);

}  // namespace dasim::platform
