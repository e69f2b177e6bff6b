// Named link technologies (InfiniBand EDR/HDR/NDR, Ethernet 10/25/100/400 GbE) with the figures a
// platform file can refer to as {"preset": "ib-edr"}, each with the source of its numbers.
#pragma once

#include "platform/transports.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dasim::platform {

struct LinkPreset {
  std::string name;
  double bandwidth_Bps;  // usable data rate per direction
  double latency_s;      // one hop: adapter + cable + switch port, as the datasheets quote it
  Transport transport;   // how NCCL drives it unless the link says otherwise
  std::string source;
};

const std::vector<LinkPreset>& link_presets();
std::optional<LinkPreset> find_link_preset(const std::string& name);

}  // namespace dasim::platform
