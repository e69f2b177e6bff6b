// The sections of a platform file, each read by its own function through an ObjectReader (so every
// error names the file and JSON path). platform_loader.cpp assembles them and checks the rules
// that span sections.
#pragma once

#include "common/json_reader.hpp"
#include "platform/platform_spec.hpp"

#include <string>
#include <vector>

namespace dasim::platform {

inline constexpr int kMaxNodes = 1 << 20;
inline constexpr int kMaxGpusPerNode = 64;

// {"preset": "ib-edr"} and/or {"bandwidth": ..., "latency": ..., "sharing": ...}; explicit
// figures override the preset's.
LinkSpec read_link(ObjectReader link);
// A list of GPU indices of a node at `key`, each in 0..gpus_per_node-1, no duplicates.
std::vector<int> read_gpu_list(ObjectReader& reader, const std::string& key, int gpus_per_node);
PcieSpec read_pcie(ObjectReader pcie, int gpus_per_node);
NvlinkSpec read_nvlink(ObjectReader nvlink, int gpus_per_node);
FabricSpec read_fabric(ObjectReader fabric);
// node.gpu; a relative calibration path is relative to the platform file.
GpuSpec read_gpu(ObjectReader gpu, const std::string& platform_file);
std::vector<NicSpec> read_nics(ObjectReader& node, int gpus_per_node);
NetworkModelSpec read_network(ObjectReader network);

}  // namespace dasim::platform
