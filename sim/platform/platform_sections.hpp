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
inline constexpr int kMaxGpusPerNode = 72;  // GB200 NVL72: 72 GPUs in one NVLink domain

// {"preset": "ib-edr"} and/or {"bandwidth": ..., "latency": ..., "sharing": ..., "transport": ...,
// "efficiency": ..., "tcp": {...}}; explicit figures override the preset's, and a link without a
// preset or a "transport" is driven as `default_transport` (what its place in the node implies).
LinkSpec read_link(ObjectReader link, Transport default_transport);
// A list of GPU indices of a node at `key`, each in 0..gpus_per_node-1, no duplicates.
std::vector<int> read_gpu_list(ObjectReader& reader, const std::string& key, int gpus_per_node);
PcieSpec read_pcie(ObjectReader pcie, int gpus_per_node);
NvlinkSpec read_nvlink(ObjectReader nvlink, int gpus_per_node);
// `rails`: the node's NICs, which a single-plane fat-tree leaf sized in ports divides among.
FabricSpec read_fabric(ObjectReader fabric, int rails);
// node.gpu; a relative calibration path is relative to the platform file.
GpuSpec read_gpu(ObjectReader gpu, const std::string& platform_file);
std::vector<NicSpec> read_nics(ObjectReader& node, int gpus_per_node);
// node.nvswitch: the port link and "nvls": true (NVLink SHARP with the sourced efficiency) or
// {"efficiency": e}.
NvswitchSpec read_nvswitch(ObjectReader nvswitch);
NetworkModelSpec read_network(ObjectReader network);

}  // namespace dasim::platform
