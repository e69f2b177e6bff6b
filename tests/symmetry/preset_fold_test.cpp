// The symmetric fold against the whole run (issue 19's correctness test): on every preset whose
// runs fold, at 16 and 64 nodes, sgd, local SGD and DaSGD simulated on 2 nodes take the iteration
// time and the per-rank exposed communication of the run simulated on every node, within 1%.
// Label `symmetry`: the whole runs are 100-4,600 GPUs of SimGrid flows, minutes under the
// sanitizers, which the folded code paths of the other tests already run (CMakePresets.json).
#include "engine/symmetric_fold.hpp"
#include "engine/training_result_wire.hpp"
#include "schedules/two_layer_fixture.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

namespace {

using namespace dasim;

struct Case {
  std::string platform;
  int nodes;
  schedules::ScheduleKind kind;
  collectives::Algorithm algorithm = collectives::Algorithm::ring;
};

// What ctest prints beside the test's name (gtest would print the struct's bytes).
void PrintTo(const Case& k, std::ostream* os) {
  *os << k.platform << " x " << k.nodes << ", " << schedules::to_string(k.kind) << " on "
      << collectives::to_string(k.algorithm);
}

std::string name_of(const testing::TestParamInfo<Case>& info) {
  std::string name =
      fmt::format("{}_{}_{}_{}", info.param.platform, info.param.nodes, schedules::to_string(info.param.kind),
                  collectives::to_string(info.param.algorithm));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

class PresetFold : public testing::TestWithParam<Case> {};

// Within 1% of the whole run, or 1 us where a figure is almost nothing.
void expect_close(double folded, double whole, const char* what) {
  EXPECT_NEAR(folded, whole, std::max(0.01 * whole, 1e-6)) << what;
}

TEST_P(PresetFold, FoldedRunTakesTheWholeRunsTimes) {
  const Case& k = GetParam();
  // Two buckets, one overlapping backward; under auto, 2 MB buckets, which NCCL runs on trees (the
  // test checks it did).
  const bool automatic = k.algorithm == collectives::Algorithm::automatic;
  auto schedule = k.kind == schedules::ScheduleKind::sgd
                      ? two_layer::sgd(true, automatic ? 2e6 : 10e6)
                      : two_layer::periodic(k.kind, 4, k.kind == schedules::ScheduleKind::dasgd ? 1 : 0);
  schedule.bucket_view = false;  // DDP's copies, as the presets' users run
  auto c = two_layer::config(k.nodes, schedule);
  c.platform = platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/" + k.platform, k.nodes);
  // Rings, one per NIC, the hierarchical algorithm's, trees, or what NCCL's auto picks; the
  // protocol as NCCL picks it.
  c.collective.algorithm = k.algorithm;
  c.collective.protocol = collectives::Protocol::automatic;
  c.warmup_iterations = 4;
  c.measured_iterations = 4;
  const auto folded = engine::simulate_training_isolated(c);
  ASSERT_EQ(folded.simulated_nodes, 2) << folded.fold_why_not;
  c.collective.fold = false;
  const auto whole = engine::simulate_training_isolated(c);
  ASSERT_EQ(whole.simulated_nodes, k.nodes);
  EXPECT_EQ(folded.algorithms_used, whole.algorithms_used);
  if (automatic || k.algorithm == collectives::Algorithm::tree) {
    EXPECT_NE(folded.algorithms_used.find("tree/"), std::string::npos) << folded.algorithms_used;
  }
  expect_close(folded.iter_time_s, whole.iter_time_s, "iteration time");
  expect_close(folded.compute_s, whole.compute_s, "compute");
  expect_close(folded.comm_s, whole.comm_s, "communication");
  expect_close(folded.exposed_comm_s, whole.exposed_comm_s, "exposed communication, mean over ranks");
  expect_close(folded.exposed_comm_max_s, whole.exposed_comm_max_s, "exposed communication, slowest rank");
}

std::vector<Case> cases() {
  std::vector<Case> all;
  // Every preset of one site on a star or a non-oversubscribed fat tree (the dragonfly preset and
  // the multi-site ones are never folded: tests/engine/symmetric_fold_test.cpp). GB200 NVL72's
  // nodes are racks of 72 GPUs with 72 NICs, so 72 rings: 4 racks but sgd on rings, and 16 with the
  // hierarchical algorithm only; the others take 14 to 140 s each whole (they agreed when run by
  // hand, docs/performance.md).
  for (const char* platform : {"dgx-a100-hdr.json", "dgx-h100-ndr.json", "dgx1-v100-edr.json",
                               "flat-100gbe-64.json", "gb200-nvl72.json", "h100-ndr-rail-optimised.json",
                               "h100-ndr-single-plane.json", "v100-pcie-25gbe.json"}) {
    const bool racks = std::string(platform) == "gb200-nvl72.json";
    for (int nodes : {racks ? 4 : 16, racks ? 16 : 64}) {
      for (auto kind :
           {schedules::ScheduleKind::sgd, schedules::ScheduleKind::local_sgd, schedules::ScheduleKind::dasgd})
        if (!racks || (nodes == 4 && kind != schedules::ScheduleKind::sgd))
          all.push_back({platform, nodes, kind});
      all.push_back({platform, nodes, schedules::ScheduleKind::sgd, collectives::Algorithm::hierarchical});
    }
    // NCCL's trees (collectives/folded_trees.hpp), which fold on a star or under one fat-tree
    // leaf: sgd under auto (which runs its 2 MB buckets on trees) and DaSGD on trees, on as many
    // nodes as a leaf holds, up to 16 (64 on the star).
    const auto spec = platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/" + platform, 1);
    const int leaf = spec.fabric.topology == platform::FabricTopology::fat_tree
                         ? std::min(16, spec.fabric.switch_radix)
                         : 64;
    if (!racks) {
      all.push_back({platform, leaf, schedules::ScheduleKind::sgd, collectives::Algorithm::automatic});
      all.push_back({platform, leaf, schedules::ScheduleKind::dasgd, collectives::Algorithm::tree});
    }
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Presets, PresetFold, testing::ValuesIn(cases()), name_of);

}  // namespace

namespace {

// A fat tree where the ring's leaf crossings matter: 1-GPU nodes, 2 per leaf, 3 us fabric links
// (each crossing 6 us more than a route inside a leaf), the bare links' figures (no NCCL per-hop
// latency to hide them) and small buckets, so latency is most of the allreduce.
TEST(LeafCrossings, AFoldedRingWaitsForTheWholeRingsCrossings) {
  for (int nodes : {9, 33}) {
    auto c = dasim::two_layer::config(nodes, dasim::two_layer::sgd(true, 64 * 1024));
    c.platform.fabric.topology = dasim::platform::FabricTopology::fat_tree;
    c.platform.fabric.switch_radix = 2;
    c.platform.fabric.link.latency_s = 3e-6;
    const auto folded = dasim::engine::simulate_training_isolated(c);
    ASSERT_EQ(folded.simulated_nodes, 2) << folded.fold_why_not;
    c.collective.fold = false;
    const auto whole = dasim::engine::simulate_training_isolated(c);
    EXPECT_NEAR(folded.iter_time_s, whole.iter_time_s, 1e-4 * whole.iter_time_s) << nodes;
    EXPECT_NEAR(folded.comm_s, whole.comm_s, 1e-4 * whole.comm_s) << nodes;
    EXPECT_NEAR(folded.exposed_comm_s, whole.exposed_comm_s, 1e-4 * whole.exposed_comm_s) << nodes;
  }
}

}  // namespace
