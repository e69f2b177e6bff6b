#include "platform/network_model.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace dasim::platform {

void configure_network_model(const PlatformSpec& spec) {
  sg4::Engine::set_config("network/model:" + spec.network.model);
  sg4::Engine::set_config("network/crosstraffic", spec.network.crosstraffic);
  // TCP-gamma caps a flow at gamma / (2 x latency), a TCP window effect that RDMA fabrics and
  // NVLink do not have; 0 removes the cap so a transfer runs at its bottleneck bandwidth.
  sg4::Engine::set_config("network/TCP-gamma", 0.0);
}

std::string describe_network_model(const NetworkModelSpec& network) {
  // The factors SimGrid 3.32 applies by default: none for CM02, LV08's for LV08.
  const bool lv08 = network.model == "LV08";
  return fmt::format("SimGrid {}, latency factor {}, bandwidth factor {}, {}, no TCP-gamma cap",
                     network.model, lv08 ? "13.01" : "1", lv08 ? "0.97" : "1",
                     network.crosstraffic ? "cross-traffic on" : "no cross-traffic");
}

}  // namespace dasim::platform
