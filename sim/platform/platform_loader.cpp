#include "platform/platform_loader.hpp"

#include "common/errors.hpp"
#include "common/file_exists.hpp"
#include "common/json_reader.hpp"
#include "platform/dragonfly.hpp"
#include "platform/platform_sections.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

namespace dasim::platform {

std::vector<int> torus_dimensions(const FabricSpec& fabric, int nodes) {
  if (!fabric.torus_dimensions.empty()) return fabric.torus_dimensions;
  // Near-equal factors: repeatedly take the largest divisor <= the remaining rank-th root.
  std::vector<int> dims;
  int remaining = nodes;
  for (int r = fabric.torus_rank; r > 1; --r) {
    int target = static_cast<int>(std::ceil(std::pow(remaining, 1.0 / r) - 1e-9));
    int best = 1;
    for (int d = 1; d <= remaining; ++d)
      if (remaining % d == 0 && std::abs(d - target) < std::abs(best - target)) best = d;
    dims.push_back(best);
    remaining /= best;
  }
  dims.push_back(remaining);
  std::sort(dims.rbegin(), dims.rend());
  return dims;
}

void validate_platform(const PlatformSpec& spec) {
  const std::string& f = spec.file;
  if (spec.nodes <= 0 || spec.nodes > kMaxNodes)
    throw InputError(f, "nodes", fmt::format("expected 1..{} nodes, got {}", kMaxNodes, spec.nodes));
  if (spec.gpus_per_node > 1 && !spec.pcie && !spec.nvlink && !spec.nvswitch)
    throw InputError(
        f, "node",
        fmt::format("{} GPUs per node need an intra-node interconnect (pcie, nvlink or nvswitch)",
                    spec.gpus_per_node));
  if (spec.nvlink && !spec.nvswitch && !spec.pcie) {
    // Pairs without NVLink fall back to PCIe; without PCIe every pair must have NVLink.
    std::set<std::pair<int, int>> linked;
    for (const auto& p : spec.nvlink->pairs) linked.insert({p.a, p.b});
    for (int a = 0; a < spec.gpus_per_node; ++a)
      for (int b = a + 1; b < spec.gpus_per_node; ++b)
        if (!linked.count({a, b}))
          throw InputError(
              f, "node.nvlink.pairs",
              fmt::format("GPUs {} and {} have no NVLink and the node has no pcie section to fall back on", a,
                          b));
  }
  if (spec.nics.empty()) throw InputError(f, "node.nics", "expected at least one NIC");
  std::vector<int> served(spec.gpus_per_node, -1);
  for (size_t i = 0; i < spec.nics.size(); ++i) {
    const auto& nic = spec.nics[i];
    std::string path = fmt::format("node.nics[{}]", i);
    if (!nic.pcie_switch.empty()) {
      bool found = spec.pcie && std::any_of(spec.pcie->switches.begin(), spec.pcie->switches.end(),
                                            [&](auto& s) { return s.name == nic.pcie_switch; });
      if (!found)
        throw InputError(f, path + ".pcie_switch",
                         fmt::format("no PCIe switch named \"{}\" in node.pcie.switches", nic.pcie_switch));
    } else if (spec.gpus_per_node > 1 && spec.pcie) {
      throw InputError(f, path + ".pcie_switch", "required: name the PCIe switch this NIC sits under");
    }
    for (int g : nic.gpus) {
      if (served[g] >= 0)
        throw InputError(f, path + ".gpus",
                         fmt::format("GPU {} already uses NIC \"{}\"", g, spec.nics[served[g]].name));
      served[g] = static_cast<int>(i);
    }
  }
  for (int g = 0; g < spec.gpus_per_node; ++g)
    if (served[g] < 0)
      throw InputError(f, "node.nics",
                       fmt::format("GPU {} is served by no NIC (list it in a NIC's gpus)", g));
  if (spec.sites.count > 1) {
    if (spec.fabric.topology == FabricTopology::torus || spec.fabric.topology == FabricTopology::dragonfly)
      throw InputError(f, "sites",
                       fmt::format("a {} fabric cannot be split into sites (use star or fat_tree)",
                                   to_string(spec.fabric.topology)));
    if (spec.sites.sizes.empty() && spec.nodes % spec.sites.count != 0)
      throw InputError(
          f, "sites.count",
          fmt::format("{} nodes do not split evenly into {} sites", spec.nodes, spec.sites.count));
    if (!spec.sites.sizes.empty()) {
      const int64_t total = spec.sites.total_size();
      for (int size : spec.sites.sizes)
        if (int64_t{spec.nodes} * size % total != 0)
          throw InputError(f, "sites.platforms",
                           fmt::format("{} nodes do not split into the sites in the proportion of their "
                                       "platforms' nodes, {}",
                                       spec.nodes, fmt::join(spec.sites.sizes, ":")));
    }
  }
  if (spec.fabric.topology == FabricTopology::torus) {
    auto dims = torus_dimensions(spec.fabric, spec.nodes);
    long product = 1;
    for (int d : dims) product *= d;
    if (product != spec.nodes)
      throw InputError(
          f, "fabric.dimensions",
          fmt::format("torus {} holds {} nodes, not {}", fmt::join(dims, "x"), product, spec.nodes));
  }
  if (spec.fabric.topology == FabricTopology::dragonfly)
    validate_dragonfly(f, spec.fabric.dragonfly, spec.nodes);
}

namespace {

// One site's platform file, relative to the sites file: an existing single-site platform.
PlatformSpec load_site_platform(ObjectReader& sites, const std::string& key, const std::string& value,
                                const std::string& file) {
  std::filesystem::path site_file(value);
  if (site_file.is_relative()) site_file = std::filesystem::path(file).parent_path() / site_file;
  const std::string site_path = site_file.lexically_normal().string();
  if (!is_existing_file(site_path)) sites.fail(key, fmt::format("file \"{}\" does not exist", site_path));
  PlatformSpec spec = load_platform(site_path);
  if (spec.sites.count > 1)
    sites.fail(key, fmt::format("{} is itself a platform of sites: expected one site's platform", site_path));
  return spec;
}

// Sites of different node types: "platforms": [FILE, ...], one per site, every one with the same
// GPUs per node (ranks are numbered node x GPUs per node + GPU across the sites).
std::vector<PlatformSpec> load_mixed_sites(ObjectReader& sites, const std::string& file) {
  std::vector<PlatformSpec> specs;
  sites.array("platforms", [&](const nlohmann::json& v, const std::string& path) {
    const std::string key = fmt::format("platforms[{}]", specs.size());
    if (!v.is_string()) throw InputError(file, path, "expected a platform file name");
    specs.push_back(load_site_platform(sites, key, v.get<std::string>(), file));
    const auto topology = specs.back().fabric.topology;
    if (topology == FabricTopology::torus || topology == FabricTopology::dragonfly)
      sites.fail(key,
                 fmt::format("a {} fabric cannot be a site (use star or fat_tree)", to_string(topology)));
    if (specs.back().gpus_per_node != specs.front().gpus_per_node)
      sites.fail(key,
                 fmt::format("expected {} GPUs per node as platforms[0] ({}), got {}",
                             specs.front().gpus_per_node, specs.front().name, specs.back().gpus_per_node));
  });
  if (specs.size() < 2 || specs.size() > 1024)
    sites.fail("platforms", fmt::format("expected 2 to 1024 site platforms, got {}", specs.size()));
  return specs;
}

// A platform of several sites: {"name", "description", "nodes" (all sites together; default the
// site platform's nodes x count), "sites": {"platform": FILE, "count": N, "wan": {link}}}, every
// site the site platform file's node and fabric, or {"platforms": [FILE, ...], "wan"}, a site
// per file (their node counts added up by default); the WAN joins them.
PlatformSpec load_sites(ObjectReader& top, const std::string& file, std::optional<int> nodes_override) {
  ObjectReader sites = top.object("sites");
  PlatformSpec spec;
  int64_t default_nodes = 0;
  if (sites.has("platforms")) {
    if (sites.has("platform") || sites.has("count"))
      sites.fail(sites.has("platform") ? "platform" : "count",
                 "give either platforms (a file per site) or platform and count, not both");
    auto mixed = load_mixed_sites(sites, file);
    std::vector<int> sizes;
    for (const auto& site : mixed) {
      default_nodes += site.nodes;
      sizes.push_back(site.nodes);
    }
    spec = mixed.front();
    spec.sites.count = static_cast<int>(mixed.size());
    // Sites of different sizes hold the nodes in proportion to their files' (equal: an even split).
    if (std::adjacent_find(sizes.begin(), sizes.end(), std::not_equal_to<>()) != sizes.end())
      spec.sites.sizes = std::move(sizes);
    spec.site_platforms = std::move(mixed);
  } else {
    spec = load_site_platform(sites, "platform", sites.string("platform"), file);
    spec.sites.count = static_cast<int>(sites.integer_in("count", 2, 1024));
    default_nodes = int64_t{spec.nodes} * spec.sites.count;
  }
  spec.sites.wan = read_link(sites.object("wan"), Transport::ideal);
  sites.finish();
  spec.file = file;
  spec.name = top.optional_string("name").value_or(std::filesystem::path(file).stem().string());
  spec.description = top.optional_string("description").value_or("");
  const auto nodes = top.optional_positive_integer("nodes").value_or(default_nodes);
  if (nodes > kMaxNodes) top.fail("nodes", fmt::format("expected 1..{} nodes, got {}", kMaxNodes, nodes));
  spec.nodes = static_cast<int>(nodes);
  top.finish();
  if (nodes_override) spec.nodes = *nodes_override;
  validate_platform(spec);
  return spec;
}

}  // namespace

PlatformSpec load_platform(const std::string& file, std::optional<int> nodes_override) {
  nlohmann::json root = load_json_file(file);
  ObjectReader top(root, file, "");
  if (top.has("sites")) return load_sites(top, file, nodes_override);
  PlatformSpec spec;
  spec.file = file;
  spec.name = top.optional_string("name").value_or(std::filesystem::path(file).stem().string());
  spec.description = top.optional_string("description").value_or("");
  // Range-checked before narrowing: 2^32 nodes must not wrap to 0 (and be reported as "got 0").
  const auto nodes = top.positive_integer("nodes");
  if (nodes > kMaxNodes) top.fail("nodes", fmt::format("expected 1..{} nodes, got {}", kMaxNodes, nodes));
  spec.nodes = static_cast<int>(nodes);

  ObjectReader node = top.object("node");
  auto gpus = node.positive_integer("gpus");
  if (gpus > kMaxGpusPerNode)
    node.fail("gpus", fmt::format("expected at most {} GPUs per node", kMaxGpusPerNode));
  spec.gpus_per_node = static_cast<int>(gpus);

  spec.gpu = read_gpu(node.object("gpu"), file);
  spec.cpu_vendor = node.optional_enumeration("cpu_vendor", kCpuVendorNames).value_or(CpuVendor::intel);
  if (node.has("pcie")) spec.pcie = read_pcie(node.object("pcie"), spec.gpus_per_node);
  if (node.has("nvlink")) spec.nvlink = read_nvlink(node.object("nvlink"), spec.gpus_per_node);
  if (node.has("nvswitch")) spec.nvswitch = read_nvswitch(node.object("nvswitch"));
  spec.nics = read_nics(node, spec.gpus_per_node);
  node.finish();

  spec.fabric = read_fabric(top.object("fabric"), std::max(spec.rails(), 1));
  if (top.has("network")) spec.network = read_network(top.object("network"));
  top.finish();

  if (nodes_override) spec.nodes = *nodes_override;
  validate_platform(spec);
  // Last, so that a copy of a preset elsewhere still reports its other mistakes first; here, not
  // later against the scenario that names the platform.
  if (!spec.gpu.calibration.empty() && !is_existing_file(spec.gpu.calibration))
    throw InputError(file, "node.gpu.calibration",
                     fmt::format("file \"{}\" does not exist", spec.gpu.calibration));
  return spec;
}

}  // namespace dasim::platform
