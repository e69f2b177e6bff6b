// Data sources: synthetic shards are disjoint, cover the data set and do not depend on the number of
// ranks; the IDX loader reads a tiny hand-written file and rejects malformed ones naming the file.
#include "dataset.hpp"
#include "common/errors.hpp"
#include "support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace dasim::executor;

namespace {

std::string write_bytes(const std::string& name, const std::vector<unsigned char>& bytes) {
  const auto path = dasim::testing::scratch_dir("dasim_executor_test") / name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path.string();
}

// 3 images of 2x2 and their labels, big-endian headers as in the MNIST distribution.
std::vector<unsigned char> images() {
  return {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, 8};
}
std::vector<unsigned char> labels() {
  return {0, 0, 8, 1, 0, 0, 0, 3, 7, 0, 9};
}

}  // namespace

TEST(Dataset, SyntheticShardsPartitionTheDataSet) {
  SyntheticSpec spec{3, 4, 10, 0.5, 2};
  const auto whole = make_synthetic_shard(spec, 0, 1);
  const auto r0 = make_synthetic_shard(spec, 0, 2), r1 = make_synthetic_shard(spec, 1, 2);
  ASSERT_EQ(whole.samples(), 10);
  EXPECT_EQ(r0.samples() + r1.samples(), 10);
  for (int i = 0; i < 10; ++i) {  // sample i is the same whichever rank holds it
    const auto& shard = i % 2 ? r1 : r0;
    EXPECT_EQ(shard.y[i / 2], whole.y[i]);
    for (int f = 0; f < 3; ++f) EXPECT_EQ(shard.x[(i / 2) * 3 + f], whole.x[i * 3 + f]);
  }
}

TEST(Dataset, SyntheticNoiseZeroPutsSamplesOnTheirClassCentre) {
  const auto d = make_synthetic_shard({2, 3, 50, 0.0, 4}, 0, 1);
  for (int i = 0; i < 50; ++i)
    for (int j = 0; j < 50; ++j)
      if (d.y[i] == d.y[j]) {
        EXPECT_EQ(d.x[i * 2], d.x[j * 2]);
      }
}

TEST(Dataset, BatchesWrapAroundTheShard) {
  const auto d = make_synthetic_shard({2, 3, 5, 1.0, 4}, 0, 1);
  std::vector<float> x;
  std::vector<int32_t> y;
  fill_batch(d, 1, 3, x, y);  // samples 3, 4, 0
  EXPECT_EQ(y[0], d.y[3]);
  EXPECT_EQ(y[2], d.y[0]);
  EXPECT_EQ(x[4], d.x[0]);
}

TEST(Dataset, IdxLoaderReadsAndShards) {
  const auto img = write_bytes("img", images()), lab = write_bytes("lab", labels());
  const auto d = load_idx_shard(img, lab, 0, 1);
  EXPECT_EQ(d.features, 4);
  EXPECT_EQ(d.classes, 10);
  ASSERT_EQ(d.samples(), 3);
  EXPECT_EQ(d.y[0], 7);
  EXPECT_FLOAT_EQ(d.x[1], 1.0f);
  EXPECT_FLOAT_EQ(d.x[2], 0.2f);
  const auto r1 = load_idx_shard(img, lab, 1, 2);
  ASSERT_EQ(r1.samples(), 1);
  EXPECT_EQ(r1.y[0], 0);
  EXPECT_FLOAT_EQ(r1.x[3], 4 / 255.0f);  // rank 1 of 2 holds image 1: pixels 1, 2, 3, 4
}

TEST(Dataset, IdxLoaderRejectsMalformedFiles) {
  const auto img = write_bytes("img2", images()), lab = write_bytes("lab2", labels());
  auto truncated = images();
  truncated.pop_back();
  auto wrong_magic = images();
  wrong_magic[3] = 1;
  auto few_labels = labels();
  few_labels[7] = 2;
  const auto t = write_bytes("trunc", truncated), m = write_bytes("magic", wrong_magic),
             f = write_bytes("few", few_labels);
  EXPECT_THROW(load_idx_shard("/nonexistent/images", lab, 0, 1), dasim::InputError);
  EXPECT_THROW(load_idx_shard(t, lab, 0, 1), dasim::InputError);
  EXPECT_THROW(load_idx_shard(m, lab, 0, 1), dasim::InputError);
  EXPECT_THROW(load_idx_shard(img, f, 0, 1), dasim::InputError);
  EXPECT_THROW(load_idx_shard(img, lab, 0, 4), dasim::InputError);  // more ranks than images
  try {
    load_idx_shard(t, lab, 0, 1);
  } catch (const dasim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(t), std::string::npos);
  }
}

// A header whose count x rows x cols wraps around 2^64 to the file's size: 4 images of
// 2^31 x 2^31 pixels = 2^64 bytes, which wraps to 0, so a 16-byte file "matched" and the loader
// read past its end. Refused by the pixel count, before any size arithmetic.
TEST(Dataset, AnImageSizeThatWrapsIsRefused) {
  const std::vector<unsigned char> images{0, 0, 8, 3, 0, 0, 0, 4, 0x80, 0, 0, 0, 0x80, 0, 0, 0};
  const std::vector<unsigned char> labels{0, 0, 8, 1, 0, 0, 0, 4, 0, 1, 2, 3};
  try {
    parse_idx_shard(images, "img", labels, "lab", 0, 1);
    FAIL() << "accepted";
  } catch (const dasim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("IDX images of 2147483648x2147483648 pixels are too large"),
              std::string::npos)
        << e.what();
  }
}
