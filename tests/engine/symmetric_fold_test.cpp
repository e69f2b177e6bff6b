// The symmetric fold (engine/symmetric_fold.hpp): which runs fold, and a folded run against the
// closed form of the ring on all its nodes. tests/symmetry compares folded and whole runs on
// every preset.
#include "engine/symmetric_fold.hpp"
#include "schedules/two_layer_fixture.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

TEST(SymmetricFold, ASgdStepOn1024NodesIsTheClosedFormOfTheirRing) {
  // One bucket of all 40e6 B, allreduced after backward: step = compute + the ring over 1024
  // ranks, 2 x 1023/1024 x S / B + 2 x 1023 x 2 us, simulated on 2 nodes.
  auto c = config(1024, sgd(false, 1e12));
  const auto r = simulate(c);
  EXPECT_EQ(r.simulated_nodes, 2);
  EXPECT_EQ(r.fold_why_not, "");
  const double allreduce = ring(1024, kWeights);
  EXPECT_NEAR(r.iter_time_s, kStep + allreduce, 1e-3 * allreduce);
  EXPECT_NEAR(r.exposed_comm_s, allreduce, 1e-3 * allreduce);
}

TEST(SymmetricFold, DasgdOn4096NodesExposesWhatDoesNotFitInDSteps) {
  // At 1e9 B/s the allreduce of 40e6 B over 4096 ranks (79.98 + 16.38 ms) outlasts one 24.2 ms step.
  const double allreduce = ring(4096, kWeights, 1e9);
  const auto r = simulate(config(4096, periodic(schedules::ScheduleKind::dasgd, 4, 1), 1e9));
  EXPECT_EQ(r.simulated_nodes, 2);
  EXPECT_NEAR(r.exposed_comm_s * 4, allreduce - kStep, 1e-3 * allreduce);
}

TEST(SymmetricFold, EveryAsymmetryIsSimulatedWhole) {
  struct Case {
    std::string what;
    std::function<void(engine::TrainingConfig&)> change;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"stragglers", [](auto& c) { c.slowdown_by_rank[3] = 1.5; }, "stragglers or gpu_spread"},
      {"jitter", [](auto& c) { c.jitter_stddev = 0.01; }, "jitter"},
      {"fold off", [](auto& c) { c.collective.fold = false; }, "collective.fold is false"},
      {"fine", [](auto& c) { c.collective.granularity = collectives::Granularity::fine; },
       "fine granularity"},
      {"polled rounds", [](auto& c) { c.collective.progress = collectives::Progress::polled_rounds; },
       "polled rounds"},
      {"trees across leaves",
       [](auto& c) {
         c.collective.algorithm = collectives::Algorithm::tree;
         c.platform.fabric.topology = platform::FabricTopology::fat_tree;
         c.platform.fabric.switch_radix = 4;
       },
       "the allreduce of 40000000 bytes runs tree/links across fat-tree leaves"},
      {"two nodes", [](auto& c) { c.platform.nodes = 2; }, "2 nodes: nothing to fold"},
      {"oversubscribed",
       [](auto& c) {
         c.platform.fabric.topology = platform::FabricTopology::fat_tree;
         c.platform.fabric.oversubscription = 2;
       },
       "an oversubscribed fat tree: leaf uplinks are shared unequally"},
      {"torus", [](auto& c) { c.platform.fabric.topology = platform::FabricTopology::torus; },
       "a torus fabric: routes differ between node pairs"},
      {"sites", [](auto& c) { c.platform.sites.count = 2; },
       "several sites: the WAN links make node pairs differ"},
  };
  for (const auto& k : cases) {
    auto c = config(8, sgd(false, 1e12));
    EXPECT_TRUE(engine::decide_fold(c).folded()) << k.what;
    k.change(c);
    const auto d = engine::decide_fold(c);
    EXPECT_EQ(d.why_not, k.why) << k.what;
    EXPECT_EQ(d.simulated_nodes, c.platform.nodes) << k.what;
  }
  auto islands = config(8, periodic(schedules::ScheduleKind::local_sgd, 4, 0));
  islands.platform = platform::load_platform(preset("dgx-a100-hdr.json"), 8);
  islands.schedule.island_gpus = 16;
  EXPECT_EQ(engine::decide_fold(islands).why_not, "islands");
  auto dragonfly = config(8, sgd(false, 1e12));
  dragonfly.platform = platform::load_platform(preset("dgx-h100-ndr-dragonfly.json"), 8);
  EXPECT_EQ(engine::decide_fold(dragonfly).why_not, "a dragonfly fabric: routes differ between node pairs");
}

TEST(SymmetricFold, AStragglerRunIsSimulatedOnEveryNode) {
  auto c = config(4, sgd(false, 1e12));
  c.slowdown_by_rank[2] = 1.5;
  const auto r = simulate(c);
  EXPECT_EQ(r.simulated_nodes, 4);
  EXPECT_EQ(r.fold_why_not, "stragglers or gpu_spread");
  // The straggler's 1.5 x compute sets the step: 1.5 x 24 ms of layers + update + the ring.
  EXPECT_GT(r.iter_time_s, 1.4 * kStep);
}

}  // namespace

namespace {

TEST(SymmetricFold, TreesFoldOnAStarOrUnderOneLeaf) {
  // The tree allreduce of the sgd bucket on 8 nodes: folded on the star, and on a fat tree of 8
  // nodes per leaf; on 4 nodes per leaf the trees cross leaves and the run is simulated whole.
  for (auto [topology, radix, folds] : {std::tuple{dasim::platform::FabricTopology::star, 0, true},
                                        std::tuple{dasim::platform::FabricTopology::fat_tree, 8, true},
                                        std::tuple{dasim::platform::FabricTopology::fat_tree, 4, false}}) {
    auto c = dasim::two_layer::config(8, dasim::two_layer::sgd(false, 1e12));
    c.collective.algorithm = dasim::collectives::Algorithm::tree;
    c.platform.fabric.topology = topology;
    if (radix > 0) c.platform.fabric.switch_radix = radix;
    const auto d = dasim::engine::decide_fold(c);
    EXPECT_EQ(d.folded(), folds) << radix << ": " << d.why_not;
    EXPECT_EQ(d.simulated_nodes, folds ? 2 : 8) << radix;
  }
}

TEST(SymmetricFold, TreesAcrossLeavesFoldWhenAskedAndEndNoLater) {
  // collective.fold_trees_across_leaves: the same 8 nodes, 4 a leaf, fold; the folded step is
  // never slower than the whole one (the fold shares each NIC equally among a node's tree edges,
  // the whole run gives the edges to the other leaf less) and within the 3% the collective tests
  // bound (tests/collectives/nccl_tree_test.cpp).
  auto c = dasim::two_layer::config(8, dasim::two_layer::sgd(false, 1e12));
  c.collective.algorithm = dasim::collectives::Algorithm::tree;
  c.platform.fabric.topology = dasim::platform::FabricTopology::fat_tree;
  c.platform.fabric.switch_radix = 4;
  c.collective.fold_trees_across_leaves = true;
  const auto d = dasim::engine::decide_fold(c);
  ASSERT_TRUE(d.folded()) << d.why_not;
  const auto folded = simulate(c);
  c.collective.fold = false;
  const auto whole = simulate(c);
  EXPECT_LE(folded.iter_time_s, whole.iter_time_s * (1 + 1e-9));
  EXPECT_GE(folded.iter_time_s, whole.iter_time_s * 0.97);
}

TEST(SymmetricFold, APeriodicScheduleIsJudgedByItsAveragingNotItsBuckets) {
  // 1 KiB buckets, which NCCL's tuner runs on trees at 32 nodes, on a fat tree of 4 nodes per leaf
  // (trees across leaves do not fold): sgd allreduces those buckets over all ranks; local SGD only
  // averages its 40e6 B of weights, on rings, so it folds (its plan has the buckets too, which it
  // never allreduces over all ranks).
  auto sgd_run = dasim::two_layer::config(32, dasim::two_layer::sgd(false, 1024));
  auto local_sgd = dasim::two_layer::config(
      32, dasim::two_layer::periodic(dasim::schedules::ScheduleKind::local_sgd, 4, 0));
  local_sgd.schedule.bucket_cap_bytes = 1024;
  for (auto* c : {&sgd_run, &local_sgd}) {
    c->platform.fabric.topology = dasim::platform::FabricTopology::fat_tree;
    c->platform.fabric.switch_radix = 4;
    c->collective.algorithm = dasim::collectives::Algorithm::automatic;
    c->collective.protocol = dasim::collectives::Protocol::automatic;
  }
  EXPECT_NE(dasim::engine::decide_fold(sgd_run).why_not.find("across fat-tree leaves"), std::string::npos)
      << dasim::engine::decide_fold(sgd_run).why_not;
  EXPECT_EQ(dasim::engine::decide_fold(local_sgd).why_not, "");
}

}  // namespace
