#include "collectives/symmetry.hpp"

#include "collectives/nccl_model.hpp"

#include <fmt/format.h>

namespace dasim::collectives {

std::string why_not_symmetric(const platform::PlatformSpec& spec, const CollectiveOptions& options,
                              const std::vector<CollectiveCall>& calls) {
  if (!options.fold) return "collective.fold is false";
  if (spec.nodes <= kFoldedNodes) return fmt::format("{} nodes: nothing to fold", spec.nodes);
  if (spec.sites.count > 1) return "several sites: the WAN links make node pairs differ";
  using platform::FabricTopology;
  if (spec.fabric.topology == FabricTopology::fat_tree && spec.fabric.oversubscription != 1.0)
    return "an oversubscribed fat tree: leaf uplinks are shared unequally";
  if (spec.fabric.topology == FabricTopology::fat_tree && spec.fabric.switch_radix < kFoldedNodes)
    return "a fat tree of fewer nodes per leaf than the fold's two";
  if (spec.fabric.topology != FabricTopology::star && spec.fabric.topology != FabricTopology::fat_tree)
    return fmt::format("a {} fabric: routes differ between node pairs",
                       platform::kFabricTopologyNames.name(spec.fabric.topology));
  if (options.granularity != Granularity::coarse) return "fine granularity";
  if (options.progress == Progress::polled_rounds) return "polled rounds";
  const auto topology = summarize_topology(spec);
  for (const auto& [op, bytes] : calls) {
    if (op == Op::broadcast) return "a broadcast: its chain starts at one root";
    const auto choice = choose(topology, options, op, bytes);
    if (choice.algorithm == Algorithm::nvls)
      return fmt::format("the {} of {} bytes runs {}, not rings or trees", to_string(op), bytes,
                         describe(choice));
    // SimGrid's CM02 shares a link among flows in inverse proportion to their route latencies
    // (TCP's RTT unfairness; docs/performance.md measures it), so a node's tree edge that crosses to
    // another leaf gets less than its edges inside the leaf, and ends later: 1.1% of a 64 MiB
    // allreduce on v100-pcie-25gbe x 64 (59.02 against 58.37 ms). A ring's flows do not share a NIC
    // with flows of other latencies; a tree's do, and the fold's pair under one leaf has no
    // crossing edge. fold_trees_across_leaves accepts that difference (the fold ends no later).
    if (choice.algorithm == Algorithm::tree && spec.fabric.topology == FabricTopology::fat_tree &&
        spec.nodes > spec.fabric.switch_radix && !options.fold_trees_across_leaves)
      return fmt::format("the {} of {} bytes runs {} {}", to_string(op), bytes, describe(choice),
                         kTreesAcrossLeaves);
  }
  return "";
}

}  // namespace dasim::collectives
