// Activation checkpointing's workload side: which layers form a block, what a block recomputes and
// where, the file keys, and one test per class of bad input. Expected figures are hand sums of
// the layers' forward times and counts read off the builders' code (base/workload/transformers.cpp).
#include "common/errors.hpp"
#include "support/scratch_dir.hpp"
#include "workload/builtin_models.hpp"
#include "workload/fusion.hpp"
#include "workload/recompute.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

using namespace dasim::workload;

namespace {

std::string write_checkpointing_file(const std::string& name, const std::string& text) {
  return dasim::testing::write_scratch_file("dasim_checkpointing_test", name, text);
}

// emb | b0: a1, a2 | b1: c1 | head, forward 1, 3, 4, 5, 7 ms.
Workload five_layers(ActivationCheckpointing mode) {
  Workload w;
  w.activation_checkpointing = mode;
  for (const char* block : {"", "b0", "b0", "b1", ""}) {
    Layer l;
    l.block = block;
    w.layers.push_back(l);
  }
  return w;
}

const std::vector<double> kForward = {1e-3, 3e-3, 4e-3, 5e-3, 7e-3};

std::map<std::string, int> block_sizes(const Workload& w) {
  std::map<std::string, int> sizes;
  for (const auto& l : w.layers)
    if (!l.block.empty()) ++sizes[l.block];
  return sizes;
}

}  // namespace

TEST(ActivationCheckpointing, EachBlockRecomputesItsForwardBeforeItsLastLayersBackward) {
  auto recompute = recompute_before_backward_s(five_layers(ActivationCheckpointing::blocks), kForward);
  ASSERT_EQ(recompute.size(), 5u);
  const double expected[] = {0, 0, 7e-3, 5e-3, 0};  // b0 = 3 + 4 ms at a2, b1 = 5 ms at c1
  for (size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(recompute[i], expected[i]) << i;
  for (double r : recompute_before_backward_s(five_layers(ActivationCheckpointing::none), kForward))
    EXPECT_EQ(r, 0.0);
}

// GPT-2 XL: 48 blocks h.0..h.47 of 16 layers (ln_1, c_attn, the core's 5 kernels, c_proj,
// resid_dropout, add, ln_2, c_fc, gelu, c_proj, dropout, add); BERT-large 24 of 16 (3
// projections, the core's 5, output dense, dropout, LayerNorm, intermediate dense, gelu, output
// dense, dropout, LayerNorm: 3 + 5 + 8). Embeddings, final norm, head and pooler belong to none.
TEST(ActivationCheckpointing, BuiltInTransformersNameOneBlockPerLayer) {
  for (const auto& [w, blocks, per_block, first] :
       {std::tuple{gpt2_xl(Precision::fp32, 1024), 48, 16, std::string("h.0")},
        std::tuple{bert_large(Precision::fp32, 128), 24, 16, std::string("encoder.layer.0")}}) {
    auto sizes = block_sizes(w);
    EXPECT_EQ(int(sizes.size()), blocks) << w.name;
    for (const auto& [name, size] : sizes) EXPECT_EQ(size, per_block) << name;
    EXPECT_TRUE(sizes.count(first)) << w.name;
    EXPECT_TRUE(w.layers.front().block.empty());
    EXPECT_TRUE(w.layers.back().block.empty());
    EXPECT_EQ(first_split_block_layer(w.layers), -1);
  }
  EXPECT_TRUE(block_sizes(resnet50(Precision::fp32)).empty());
}

// bn_relu fusion merges a norm into the activation after it only inside one block: a fused kernel
// across a checkpointed block's edge would be half recomputed.
TEST(ActivationCheckpointing, FusionStaysInsideABlock) {
  Workload w;
  for (const auto& [kind, block] :
       {std::pair{LayerKind::norm, "b0"}, std::pair{LayerKind::elementwise, "b1"},
        std::pair{LayerKind::norm, "b1"}, std::pair{LayerKind::elementwise, "b1"}}) {
    Layer l;
    l.kind = kind;
    l.block = block;
    l.activation_bytes = 512;
    w.layers.push_back(l);
  }
  apply_fusion(w, Fusion::bn_relu);
  ASSERT_EQ(w.layers.size(), 3u);  // only the pair inside b1 merged
  EXPECT_EQ(w.layers[0].block, "b0");
  EXPECT_EQ(w.layers[2].block, "b1");
}

TEST(ActivationCheckpointing, FileKeysRoundTrip) {
  const std::string text = R"({"name": "two", "precision": "fp32", "activation_checkpointing": "blocks",
    "layers": [{"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2, "block": "b0"},
               {"name": "b", "kind": "linear", "forward_flops": 1, "backward_flops": 2}]})";
  Workload w = load_workload(write_checkpointing_file("two.json", text));
  EXPECT_EQ(w.activation_checkpointing, ActivationCheckpointing::blocks);
  EXPECT_EQ(w.layers[0].block, "b0");
  EXPECT_TRUE(w.layers[1].block.empty());
  auto json = to_json(w);
  EXPECT_EQ(json["activation_checkpointing"], "blocks");
  EXPECT_EQ(json["layers"][0]["block"], "b0");
  EXPECT_FALSE(json["layers"][1].contains("block"));
  // An option overrides the file, both ways.
  WorkloadOptions off;
  off.activation_checkpointing = ActivationCheckpointing::none;
  EXPECT_EQ(load_workload(write_checkpointing_file("two.json", text), off).activation_checkpointing,
            ActivationCheckpointing::none);
}

TEST(ActivationCheckpointing, BadInput) {
  auto error_of = [](const std::string& text, const WorkloadOptions& options = {}) -> std::string {
    const std::string file = write_checkpointing_file("bad.json", text);
    try {
      load_workload(file, options);
    } catch (const dasim::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string split = R"({"name": "s", "precision": "fp32", "layers": [
    {"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2, "block": "b0"},
    {"name": "b", "kind": "linear", "forward_flops": 1, "backward_flops": 2, "block": "b1"},
    {"name": "c", "kind": "linear", "forward_flops": 1, "backward_flops": 2, "block": "b0"}]})";
  EXPECT_NE(error_of(split).find("bad.json: layers[2].block: block \"b0\" again after other layers"),
            std::string::npos)
      << error_of(split);
  const std::string empty = R"({"name": "e", "precision": "fp32", "layers": [
    {"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2, "block": ""}]})";
  EXPECT_NE(error_of(empty).find("bad.json: layers[0].block: expected a block name"), std::string::npos);
  const std::string mode = R"({"name": "m", "precision": "fp32", "activation_checkpointing": "all",
    "layers": [{"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2}]})";
  EXPECT_NE(error_of(mode).find("bad.json: activation_checkpointing: "), std::string::npos) << error_of(mode);
  // A file asking for blocks its layers do not name: its own key is at fault.
  const std::string asks = R"({"name": "a", "precision": "fp32", "activation_checkpointing": "blocks",
    "layers": [{"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2}]})";
  EXPECT_NE(
      error_of(asks).find("bad.json: activation_checkpointing: \"blocks\" recomputes the layers' blocks"),
      std::string::npos)
      << error_of(asks);
  // An option asking it of layers that name none: nothing to recompute, said as such.
  const std::string none = R"({"name": "n", "precision": "fp32",
    "layers": [{"name": "a", "kind": "linear", "forward_flops": 1, "backward_flops": 2}]})";
  WorkloadOptions blocks;
  blocks.activation_checkpointing = ActivationCheckpointing::blocks;
  EXPECT_THROW(load_workload(write_checkpointing_file("none.json", none), blocks), CheckpointingError);
  EXPECT_THROW(load_workload("resnet50", blocks), CheckpointingError);
}
