// Inception-style workloads: asymmetric conv kernels, strides and padding, and the concat kind.
// Every figure is a closed form worked out by hand in the comments (fp32: 4 B per element).
#include "workload/layer_builder.hpp"
#include "workload/shape_key.hpp"
#include "workload/workload_file.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace dasim::workload;
using dasim::load_json_file;

namespace {

const std::string kBlock = std::string(DASIM_SOURCE_DIR) + "/tests/data/workload/inception_block.json";

// Inception v3's 1x7 of a Mixed_6 block: 17x17x768 -> 192 channels, pad (0, 3), stride 1.
ConvShape conv_1x7() {
  ConvShape c{768, 192, 17, 17, 1, 7, 1, 0, 1};
  c.pad_w = 3;
  return c;
}

std::string conv_error_of(const std::string& conv_json) {
  nlohmann::json j = nlohmann::json::parse(R"({"name": "x", "precision": "fp32", "layers": [{"name": "c",
      "kind": "conv", "forward_flops": 1, "backward_flops": 2, "conv": )" +
                                           conv_json + "}]}");
  try {
    parse_workload(j, "f.json");
  } catch (const dasim::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError for " << conv_json;
  return "";
}

}  // namespace

TEST(AsymmetricConv, OneBySevenKeepsTheSizeWithPadZeroThree) {
  ConvShape c = conv_1x7();
  // Height: (17 + 2*0 - 1) / 1 + 1 = 17; width: (17 + 2*3 - 7) / 1 + 1 = 17.
  EXPECT_EQ(conv_out_h(c), 17);
  EXPECT_EQ(conv_out_w(c), 17);
  // MACs per sample: 17 * 17 outputs * 192 channels, each 768 * 1 * 7 = 298,303,488.
  EXPECT_DOUBLE_EQ(conv_macs(c), 17.0 * 17 * 192 * 768 * 7);
  EXPECT_DOUBLE_EQ(conv_macs(c), 298303488.0);
}

TEST(AsymmetricConv, StrideTwoByOneHalvesTheHeightOnly) {
  ConvShape c{64, 64, 35, 35, 3, 3, 2, 1, 1};
  c.stride_w = 1;
  // Height: (35 + 2 - 3) / 2 + 1 = 18; width: (35 + 2 - 3) / 1 + 1 = 35.
  EXPECT_EQ(conv_out_h(c), 18);
  EXPECT_EQ(conv_out_w(c), 35);
}

TEST(AsymmetricConv, BuilderDerivesShapeFlopsAndParams) {
  CnnBuilder b(Precision::fp32, 768, 17, 17);
  b.conv("c", 192, CnnBuilder::Window{1, 7, 1, 1, 0, 3}, false);
  auto layers = b.take();
  const Layer& l = layers.at(0);
  EXPECT_EQ(l.params, 768 * 192 * 7);                  // 1,032,192
  EXPECT_DOUBLE_EQ(l.forward_flops, 2 * 298303488.0);  // 2 x MACs
  // (in 17*17*768 + out 17*17*192) elements * 4 B = (221,952 + 55,488) * 4 = 1,109,760.
  EXPECT_DOUBLE_EQ(l.activation_bytes, 1109760.0);
  ASSERT_TRUE(l.conv);
  EXPECT_FALSE(l.conv->stride_w.has_value());  // equal strides stay in the short form
  EXPECT_EQ(conv_pad_w(*l.conv), 3);
}

TEST(AsymmetricConv, ShapeKeyNamesBothDirectionsOnlyWhenTheyDiffer) {
  EXPECT_EQ(conv_shape_key(conv_1x7()), "c768_k192_h17_w17_r1_s7_u1_v1_p0_q3_g1");
  ConvShape symmetric{64, 128, 56, 56, 3, 3, 2, 1, 1};
  symmetric.stride_w = 2;  // the same value written out: still the historical key
  symmetric.pad_w = 1;
  EXPECT_EQ(conv_shape_key(symmetric), "c64_k128_h56_w56_r3_s3_u2_p1_g1");
}

TEST(AsymmetricConv, LoaderReadsTheFourKeys) {
  nlohmann::json j = nlohmann::json::parse(R"({"name": "x", "precision": "fp32", "layers": [{"name": "c",
      "kind": "conv", "forward_flops": 1, "backward_flops": 2, "conv": {"in_channels": 64, "out_channels": 64,
      "in_h": 35, "in_w": 35, "kernel_h": 3, "kernel_w": 3, "stride_h": 2, "stride_w": 1, "pad": 1}}]})");
  const ConvShape c = *parse_workload(j, "f.json").layers.at(0).conv;
  EXPECT_EQ(c.stride, 2);
  EXPECT_EQ(conv_stride_w(c), 1);
  EXPECT_EQ(c.pad, 1);
  EXPECT_EQ(conv_pad_w(c), 1);
  EXPECT_EQ(conv_out_h(c), 18);
  EXPECT_EQ(conv_out_w(c), 35);
}

TEST(AsymmetricConv, StrideAndStrideHTogetherAreRefused) {
  const std::string shape = R"({"in_channels": 8, "out_channels": 8, "in_h": 9, "in_w": 9, "kernel_h": 3,
      "kernel_w": 3)";
  EXPECT_EQ(
      conv_error_of(shape + R"(, "stride": 1, "stride_h": 2})"),
      "f.json: layers[0].conv.stride_h: expected either stride (both directions) or stride_h / stride_w, "
      "not both");
  EXPECT_EQ(conv_error_of(shape + R"(, "pad": 1, "pad_w": 0})"),
            "f.json: layers[0].conv.pad_w: expected either pad (both directions) or pad_h / pad_w, not both");
  EXPECT_EQ(conv_error_of(shape + R"(, "pad_h": -1})"),
            "f.json: layers[0].conv.pad_h: expected a padding >= 0, got -1");
}

TEST(Concat, BuilderCopiesTheBranchesOnceEachWay) {
  // Inception v3 Mixed_5b at 35x35: branches of 64, 64, 96 and 32 channels -> 256 channels.
  CnnBuilder b(Precision::fp32, 192, 35, 35);
  b.concat("mixed_5b", {64, 64, 96, 32});
  EXPECT_EQ(b.shape().channels, 256);
  auto layers = b.take();
  const Layer& l = layers.at(0);
  EXPECT_EQ(l.kind, LayerKind::concat);
  EXPECT_EQ(l.params, 0);
  EXPECT_EQ(l.forward_flops, 0);
  EXPECT_EQ(l.backward_flops, 0);
  // Branch outputs 256 * 35 * 35 = 313,600 elements * 4 B = 1,254,400 B, read once and written once.
  EXPECT_DOUBLE_EQ(l.activation_bytes, 2 * 1254400.0);
  EXPECT_DOUBLE_EQ(*l.backward_activation_bytes, 2 * 1254400.0);  // the split moves the same bytes
}

TEST(Concat, RefusesParametersAndFlops) {
  auto error = [](const std::string& extra) -> std::string {
    nlohmann::json j = nlohmann::json::parse(R"({"name": "x", "precision": "fp32", "layers": [{"name": "cat",
        "kind": "concat", "activation_bytes": 8)" +
                                             extra + "}]}");
    try {
      parse_workload(j, "f.json");
    } catch (const dasim::InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(""), "");  // no FLOP pair needed
  EXPECT_EQ(error(R"(, "params": 3)"),
            "f.json: layers[0].params: expected 0: a concat has no parameters, got 3");
  EXPECT_EQ(error(R"(, "forward_flops": 1, "backward_flops": 0)"),
            "f.json: layers[0].forward_flops: expected 0: a concat copies bytes, got 1");
}

TEST(InceptionWorkload, AsymmetricConvAndConcatRoundTrip) {
  Workload a = parse_workload(load_json_file(kBlock), kBlock);
  nlohmann::json written = to_json(a);
  // The asymmetric pad is written as pad_h / pad_w, the equal strides as `stride`.
  const auto& conv = written["layers"][1]["conv"];
  EXPECT_EQ(
      conv.dump(),
      R"({"groups":1,"in_channels":768,"in_h":17,"in_w":17,"kernel_h":1,"kernel_w":7,"out_channels":192,)"
      R"("pad_h":0,"pad_w":3,"stride":1})");
  EXPECT_EQ(written["layers"][5]["kind"], "concat");
  Workload b = parse_workload(written, "written.json");
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].kind, b.layers[i].kind);
    EXPECT_EQ(a.layers[i].params, b.layers[i].params);
    EXPECT_EQ(a.layers[i].activation_bytes, b.layers[i].activation_bytes);
    EXPECT_EQ(a.layers[i].backward_activation_bytes, b.layers[i].backward_activation_bytes);
    if (a.layers[i].conv) {
      EXPECT_EQ(conv_shape_key(*a.layers[i].conv), conv_shape_key(*b.layers[i].conv));
    }
  }
  EXPECT_EQ(to_json(b).dump(), written.dump());
}

TEST(InceptionWorkload, FileMatchesTheBuilder) {
  // The block of the file, built from its definition: every forward figure must agree.
  CnnBuilder b(Precision::fp32, 768, 17, 17);
  b.conv("branch1x1", 192, 1, 1, 0, false);
  b.set_shape({768, 17, 17});
  b.conv("branch7x7.1x7", 192, CnnBuilder::Window{1, 7, 1, 1, 0, 3}, false);
  b.conv("branch7x7.7x1", 192, CnnBuilder::Window{7, 1, 1, 1, 3, 0}, false);
  b.set_shape({768, 17, 17});
  b.max_pool("branch_pool.avg", 3, 1, 1);  // an average pool counts the same: 9 per output
  b.conv("branch_pool.1x1", 192, 1, 1, 0, false);
  b.concat("concat", {192, 192, 192});
  std::vector<Layer> built = b.take();
  Workload file = parse_workload(load_json_file(kBlock), kBlock);
  ASSERT_EQ(file.layers.size(), built.size());
  for (size_t i = 0; i < built.size(); ++i) {
    SCOPED_TRACE(built[i].name);
    EXPECT_EQ(file.layers[i].name, built[i].name);
    EXPECT_EQ(file.layers[i].params, built[i].params);
    EXPECT_DOUBLE_EQ(file.layers[i].forward_flops, built[i].forward_flops);
    EXPECT_DOUBLE_EQ(file.layers[i].activation_bytes, built[i].activation_bytes);
    // The block sits inside a network: its input needs a gradient, so every conv's backward is
    // 2 x forward (the builder's first layer reads images and has 1 x; not the case here).
    double factor = file.layers[i].kind == LayerKind::conv ? 2 : 1;
    EXPECT_DOUBLE_EQ(file.layers[i].backward_flops, factor * file.layers[i].forward_flops);
  }
  // Parameters: 768*192 + 768*192*7 + 192*192*7 + 768*192 = 147,456 + 1,032,192 + 258,048 + 147,456.
  EXPECT_EQ(file.total_params(), 1585152);
  // MACs: 289 * (147,456 + 1,032,192 + 258,048 + 147,456) = 289 * 1,585,152 = 458,108,928.
  EXPECT_DOUBLE_EQ(file.conv_linear_macs(), 458108928.0);
}

TEST(InceptionWorkload, SymmetricFileWritesTheSameJson) {
  // fuzz/seeds/workload/conv.json writes `stride` and `pad` as before: the conv object is the same
  // text, key for key, as the file's (in nlohmann's sorted key order).
  const std::string seed = std::string(DASIM_SOURCE_DIR) + "/fuzz/seeds/workload/conv.json";
  nlohmann::json original = load_json_file(seed);
  nlohmann::json written = to_json(parse_workload(original, seed));
  EXPECT_EQ(written["layers"][0]["conv"].dump(), original["layers"][0]["conv"].dump());
  EXPECT_EQ(
      written["layers"][0]["conv"].dump(),
      R"({"groups":1,"in_channels":3,"in_h":224,"in_w":224,"kernel_h":3,"kernel_w":3,"out_channels":64,)"
      R"("pad":1,"stride":1})");
  // And the whole written file is a fixed point: parse + write again gives the same bytes.
  EXPECT_EQ(to_json(parse_workload(written, "again.json")).dump(), written.dump());
}
