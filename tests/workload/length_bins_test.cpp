// Length bins of a built-in transformer: the bins' shares and top lengths from hand-counted
// sequences, BERT-large built in two bins against the same model built at each length on its own,
// and one test per class of bad input (the counts file's own errors name the file and JSON path;
// the combinations are LengthBinsError, which the caller locates).
#include "workload/length_bins.hpp"
#include "common/errors.hpp"
#include "support/input_error.hpp"
#include "support/scratch_dir.hpp"
#include "workload/builtin_models.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

using namespace dasim::workload;

namespace {

std::string write_counts_file(const std::string& name, const std::string& text) {
  return dasim::testing::write_scratch_file("dasim_length_bins_test", name, text);
}

// 512 lengths: one sequence of 100 tokens and three of 500.
std::string two_lengths_counts_file() {
  std::string counts;
  for (int length = 1; length <= 512; ++length)
    counts += std::string(length > 1 ? ", " : "") + (length == 100 ? "1" : length == 500 ? "3" : "0");
  return write_counts_file("two.json",
                           R"({"comment": "test", "max_sequence_length": 512, "counts": [)" + counts + "]}");
}

std::string counts_error_of(const std::string& text) {
  return dasim::testing::input_error_after_file(write_counts_file("bad.json", text),
                                                [](const std::string& f) { read_length_counts(f); });
}

}  // namespace

TEST(LengthBins, SharesAndTopsOfTheBinsThatHoldSequences) {
  // 8 lengths: 1 + 2 + 1 sequences of 2-4 tokens, 3 + 1 of 7-8.
  const std::vector<int64_t> counts{0, 1, 2, 1, 0, 0, 3, 1};
  const auto four = bin_shapes(counts, 4);
  ASSERT_EQ(four.size(), 2u);
  EXPECT_DOUBLE_EQ(four[0].share, 0.5);
  EXPECT_EQ(four[0].sequence_length, 4);
  EXPECT_EQ(four[1].sequence_length, 8);
  const auto two = bin_shapes(counts, 2);  // 1-2: 1, 3-4: 3, 5-6: none (no shape), 7-8: 4
  ASSERT_EQ(two.size(), 3u);
  EXPECT_DOUBLE_EQ(two[0].share, 1.0 / 8);
  EXPECT_DOUBLE_EQ(two[1].share, 3.0 / 8);
  EXPECT_EQ(two[2].sequence_length, 8);
  try {
    bin_shapes(counts, 3);  // 3 does not divide 8
    ADD_FAILURE() << "bin size 3 over 8 lengths";
  } catch (const LengthBinsError& e) {
    EXPECT_EQ(e.key(), "bin_size");
  }
  // 1025 one-token bins that hold sequences: more than a step times.
  EXPECT_THROW(bin_shapes(std::vector<int64_t>(1025, 1), 1), LengthBinsError);
}

TEST(LengthBins, BertLargeInTwoBinsCarriesEachLengthsFigures) {
  WorkloadOptions options;
  options.length_bins = LengthBins{two_lengths_counts_file(), 128};  // 100 -> the 128 bin, 500 -> the 512 one
  const Workload w = load_workload("bert-large", options);
  ASSERT_EQ(w.shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(w.shapes[0].share, 0.25);
  EXPECT_EQ(w.shapes[0].sequence_length, 128);
  EXPECT_EQ(w.shapes[1].sequence_length, 512);
  EXPECT_EQ(w.sequence_length, 512);
  const Workload short_one = bert_large(Precision::fp32, 128), long_one = bert_large(Precision::fp32, 512);
  ASSERT_EQ(w.layers.size(), long_one.layers.size());
  size_t varying = 0;
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    if (l.shapes.empty()) {  // the pooler: one row per sequence whatever its length
      EXPECT_DOUBLE_EQ(l.forward_flops, long_one.layers[i].forward_flops) << l.name;
      EXPECT_DOUBLE_EQ(l.forward_flops, short_one.layers[i].forward_flops) << l.name;
      continue;
    }
    ++varying;
    EXPECT_DOUBLE_EQ(l.shapes[0].forward_flops, short_one.layers[i].forward_flops) << l.name;
    EXPECT_DOUBLE_EQ(l.shapes[1].backward_flops, long_one.layers[i].backward_flops) << l.name;
    EXPECT_DOUBLE_EQ(l.forward_flops,
                     0.25 * short_one.layers[i].forward_flops + 0.75 * long_one.layers[i].forward_flops)
        << l.name;
  }
  EXPECT_EQ(varying, w.layers.size() - 2);  // all but pooler.dense and pooler.tanh
  EXPECT_EQ(w.total_params(), long_one.total_params());
}

TEST(LengthBins, OneBinIsTheModelAtItsTop) {
  WorkloadOptions options;
  options.length_bins = LengthBins{two_lengths_counts_file(), 512};
  const Workload w = load_workload("bert-large", options);
  EXPECT_TRUE(w.shapes.empty());
  EXPECT_EQ(w.sequence_length, 512);
}

TEST(LengthBins, RefusesWhatTheModelCannotTake) {
  WorkloadOptions options;
  options.length_bins = LengthBins{two_lengths_counts_file(), 128};
  EXPECT_THROW(load_workload("resnet50", options), LengthBinsError);
  WorkloadOptions both = options;
  both.sequence_length = 128;
  EXPECT_THROW(load_workload("bert-large", both), LengthBinsError);
  const std::string file = write_counts_file("workload.json", R"({"name": "w", "precision": "fp32",
    "layers": [{"name": "fc", "kind": "linear", "forward_flops": 1, "backward_flops": 2}]})");
  EXPECT_THROW(load_workload(file, options), LengthBinsError);
  // A sequence of 1000 tokens: beyond BERT-large's 512 positions, within GPT-2 XL's 1024.
  std::string counts = "0";
  for (int length = 2; length <= 1024; ++length) counts += length == 1000 ? ", 1" : ", 0";
  WorkloadOptions long_bins;
  long_bins.length_bins = LengthBins{write_counts_file("long.json", R"({"counts": [)" + counts + "]}"), 512};
  try {
    load_workload("bert-large", long_bins);
    ADD_FAILURE() << "bert-large took a bin of 1024 tokens";
  } catch (const LengthBinsError& e) {
    EXPECT_EQ(std::string(e.what()),
              "the bin of 1024 tokens: bert-large takes a sequence length in [1, 512], got 1024");
  }
  EXPECT_EQ(load_workload("gpt2-xl", long_bins).sequence_length, 1024);
}

TEST(LengthBins, RefusesACountsFileThatDoesNotCount) {
  EXPECT_EQ(counts_error_of(R"({"counts": [1, 2, -3]})"), "counts[2]: expected a count >= 0, got -3");
  EXPECT_EQ(counts_error_of(R"({"counts": [0, 0]})"),
            "counts: expected at least one sequence (every count is 0)");
  EXPECT_EQ(counts_error_of(R"({"counts": [1, 2], "max_sequence_length": 3})"),
            "max_sequence_length: expected the number of counts (2: counts[i] is of i + 1 tokens), got 3");
  EXPECT_EQ(counts_error_of(R"({"counts": [1, 2], "lengths": 3})").rfind("lengths: ", 0), 0u);
  EXPECT_EQ(counts_error_of(R"({"counts": [1, 2.5]})").rfind("counts[1]: ", 0), 0u);
}
