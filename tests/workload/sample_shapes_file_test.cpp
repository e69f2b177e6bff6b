// Workload files whose micro-batches take several shapes (workload.hpp `shapes`): the layer's own
// figures become the share-weighted means (hand sums below), the file round-trips, fusion leaves
// such layers apart, and one test per class of bad input, each naming the file and JSON path.
#include "common/errors.hpp"
#include "support/input_error.hpp"
#include "support/scratch_dir.hpp"
#include "workload/fusion.hpp"
#include "workload/parameter_tensors.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace dasim::workload;

namespace {

std::string write_shapes_workload(const std::string& name, const std::string& text) {
  return dasim::testing::write_scratch_file("dasim_sample_shapes_test", name, text);
}

// A norm + activation pair that varies and one layer that does not; 64 tokens in 1/4 of the
// micro-batches, 128 in 3/4.
const char* kTwoShapesWorkload = R"({
  "name": "two-bins", "precision": "fp32", "sample_name": "sequence", "sequence_length": 128,
  "shapes": [{"share": 0.25, "sequence_length": 64}, {"share": 0.75, "sequence_length": 128}],
  "layers": [
    {"name": "q", "kind": "linear", "params": 1049600, "block": "b0", "shapes": [
      {"forward_flops": 1.0e8, "backward_flops": 2.0e8, "activation_bytes": 4.0e5,
       "gemm": {"rows_per_sample": 64, "n": 1024, "k": 1024}},
      {"forward_flops": 2.0e8, "backward_flops": 4.0e8, "activation_bytes": 8.0e5,
       "gemm": {"rows_per_sample": 128, "n": 1024, "k": 1024}}]},
    {"name": "ln", "kind": "norm", "params": 2048, "shapes": [
      {"forward_flops": 4.0e5, "backward_flops": 8.0e5, "activation_bytes": 2.0e5},
      {"forward_flops": 8.0e5, "backward_flops": 1.6e6, "activation_bytes": 4.0e5}]},
    {"name": "act", "kind": "elementwise", "shapes": [
      {"forward_flops": 4.0e5, "backward_flops": 4.0e5, "activation_bytes": 2.0e5},
      {"forward_flops": 8.0e5, "backward_flops": 8.0e5, "activation_bytes": 4.0e5}]},
    {"name": "nsp", "kind": "linear", "params": 2050, "forward_flops": 4096, "backward_flops": 8192,
     "activation_bytes": 4104}
  ]})";

std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string shapes_error_of(const std::string& text) {
  return dasim::testing::input_error_after_file(write_shapes_workload("bad.json", text),
                                                [](const std::string& f) { load_workload(f); });
}

}  // namespace

TEST(SampleShapesFile, LayerFiguresAreTheShareWeightedMeans) {
  const Workload w = load_workload(write_shapes_workload("two.json", kTwoShapesWorkload));
  ASSERT_EQ(w.shapes.size(), 2u);
  EXPECT_EQ(w.shapes[0].sequence_length, 64);
  ASSERT_EQ(w.layers[0].shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(w.layers[0].shapes[1].share, 0.75);  // the workload's share, copied per layer
  EXPECT_DOUBLE_EQ(w.layers[0].forward_flops, 0.25 * 1e8 + 0.75 * 2e8);
  EXPECT_DOUBLE_EQ(w.layers[0].backward_flops, 0.25 * 2e8 + 0.75 * 4e8);
  EXPECT_DOUBLE_EQ(w.layers[0].activation_bytes, 0.25 * 4e5 + 0.75 * 8e5);
  EXPECT_EQ(w.layers[0].shapes[0].gemm->rows_per_sample, 64);
  EXPECT_EQ(w.layers[0].block, "b0");
  EXPECT_TRUE(w.layers[3].shapes.empty());
  EXPECT_DOUBLE_EQ(w.forward_flops(), 1.75e8 + 7e5 + 7e5 + 4096);
  EXPECT_EQ(w.total_params(), 1049600 + 2048 + 2050);
}

TEST(SampleShapesFile, RoundTripsThroughItsJson) {
  const Workload w = load_workload(write_shapes_workload("two.json", kTwoShapesWorkload));
  const Workload back = parse_workload(to_json(w), "again.json");
  ASSERT_EQ(back.shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(back.shapes[1].share, 0.75);
  ASSERT_EQ(back.layers[0].shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(back.layers[0].shapes[1].forward_flops, 2e8);
  EXPECT_DOUBLE_EQ(back.layers[0].forward_flops, w.layers[0].forward_flops);
  EXPECT_EQ(to_json(back), to_json(w));
}

TEST(SampleShapesFile, FusionLeavesVaryingLayersApart) {
  Workload w = load_workload(write_shapes_workload("two.json", kTwoShapesWorkload));
  apply_fusion(w, Fusion::bn_relu);  // ln + act would fuse were their figures single
  EXPECT_EQ(w.layers.size(), 4u);
}

TEST(SampleShapesFile, AVaryingLinearKeepsItsWeightAndBiasTensors) {
  // q: 1024 x 1024 weight (from its shapes' GEMM) + 1024 bias, as an unshaped linear layer has.
  const Workload w = load_workload(write_shapes_workload("two.json", kTwoShapesWorkload));
  const auto tensors = parameter_tensors(w.layers[0]);
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].elements, 1024 * 1024);
  EXPECT_EQ(tensors[1].elements, 1024);
}

TEST(SampleShapesFile, RefusesAGemmWhoseWeightChangesWithTheShape) {
  EXPECT_EQ(shapes_error_of(with_replaced(kTwoShapesWorkload,
                                          R"("gemm": {"rows_per_sample": 128, "n": 1024, "k": 1024})",
                                          R"("gemm": {"rows_per_sample": 128, "n": 1024, "k": 512})")),
            "layers[0].shapes[1].gemm: expected n 1024 and k 1024 as in shapes[0] (the weight is the same in "
            "every shape; only rows_per_sample may change)");
}

TEST(SampleShapesFile, RefusesShapesOnAConcat) {
  EXPECT_EQ(
      shapes_error_of(with_replaced(kTwoShapesWorkload, R"("kind": "elementwise")", R"("kind": "concat")")),
      "layers[2].shapes: expected no shapes on a concat (it copies its branches' bytes: give "
      "activation_bytes)");
}

TEST(SampleShapesFile, RefusesMoreShapesThanItTimes) {
  std::ostringstream shapes;
  for (int i = 0; i < 1025; ++i) shapes << (i ? ", " : "") << R"({"share": 0.0009765625})";
  EXPECT_EQ(shapes_error_of(with_replaced(
                kTwoShapesWorkload,
                R"([{"share": 0.25, "sequence_length": 64}, {"share": 0.75, "sequence_length": 128}])",
                "[" + shapes.str() + "]")),
            "shapes: expected at most 1024 shapes, got 1025");
}

TEST(SampleShapesFile, RefusesSharesThatDoNotSumToOne) {
  EXPECT_EQ(shapes_error_of(with_replaced(kTwoShapesWorkload, R"("share": 0.75)", R"("share": 0.7)")),
            "shapes: expected shares summing to 1 (every micro-batch has a shape), got 0.95");
}

TEST(SampleShapesFile, RefusesAShareOutsideZeroToOne) {
  EXPECT_EQ(shapes_error_of(with_replaced(kTwoShapesWorkload, R"("share": 0.25)", R"("share": 0)")),
            "shapes[0].share: expected the share of the micro-batches in (0, 1], got 0");
}

TEST(SampleShapesFile, RefusesAnEmptyShapeList) {
  EXPECT_EQ(
      shapes_error_of(with_replaced(
          kTwoShapesWorkload,
          R"("shapes": [{"share": 0.25, "sequence_length": 64}, {"share": 0.75, "sequence_length": 128}])",
          R"("shapes": [])")),
      "shapes: expected at least one shape (leave the key out for one)");
}

TEST(SampleShapesFile, RefusesLayerShapesWithoutTheWorkloads) {
  EXPECT_EQ(
      shapes_error_of(with_replaced(
          kTwoShapesWorkload,
          R"("shapes": [{"share": 0.25, "sequence_length": 64}, {"share": 0.75, "sequence_length": 128}],)",
          "")),
      "layers[0].shapes: a layer's shapes follow the workload's \"shapes\", and the workload gives none");
}

TEST(SampleShapesFile, RefusesALayerWithTheWrongNumberOfShapes) {
  EXPECT_EQ(shapes_error_of(with_replaced(
                kTwoShapesWorkload,
                R"({"forward_flops": 4.0e5, "backward_flops": 8.0e5, "activation_bytes": 2.0e5},)", "")),
            "layers[1].shapes: expected 2 shapes, one per shape of the workload, got 1");
}

TEST(SampleShapesFile, RefusesALayersOwnFigureBesideItsShapes) {
  EXPECT_EQ(shapes_error_of(with_replaced(kTwoShapesWorkload, R"("params": 2048, "shapes")",
                                          R"("params": 2048, "forward_flops": 1, "shapes")")),
            "layers[1].forward_flops: given per shape in the layer's \"shapes\" (the layer's own figures are "
            "their share-weighted means)");
}

TEST(SampleShapesFile, RefusesShapesOnAConv) {
  EXPECT_EQ(shapes_error_of(with_replaced(kTwoShapesWorkload, R"("kind": "norm")", R"("kind": "conv")")),
            "layers[1].shapes: expected no shapes on a conv layer (its shape is its conv object)");
}

TEST(SampleShapesFile, RefusesANegativeFigureInAShape) {
  EXPECT_EQ(
      shapes_error_of(with_replaced(kTwoShapesWorkload, R"({"forward_flops": 8.0e5, "backward_flops": 1.6e6)",
                                    R"({"forward_flops": -8.0e5, "backward_flops": 1.6e6)")),
      "layers[1].shapes[1].forward_flops: expected a number >= 0, got -800000");
}

TEST(SampleShapesFile, RefusesAKeyAShapeDoesNotTake) {
  const std::string what =
      shapes_error_of(with_replaced(kTwoShapesWorkload, R"("forward_flops": 1.0e8,)",
                                    R"("forward_time_s": 0.001, "forward_flops": 1.0e8,)"));
  EXPECT_EQ(what.rfind("layers[0].shapes[0].forward_time_s: ", 0), 0u) << what;
}

TEST(SampleShapesFile, RefusesWorkloadShapesNoLayerFollows) {
  std::string plain = kTwoShapesWorkload;
  const auto first = plain.find(R"({"name": "q")");
  const auto last = plain.find(R"({"name": "nsp")");
  plain.erase(first, last - first);
  EXPECT_EQ(shapes_error_of(plain),
            "shapes: no layer gives its figures per shape (a layer's \"shapes\"): leave the key out");
}
