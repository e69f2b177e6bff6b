// Bisection bandwidth of a platform's fabric, from the spec alone (no SimGrid): the bandwidth
// across the worst cut into two halves of the nodes, one direction.
#pragma once

#include "platform/platform_spec.hpp"

namespace dasim::platform {

double bisection_bandwidth_Bps(const PlatformSpec& spec);

}  // namespace dasim::platform
