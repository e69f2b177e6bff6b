// Unit strings against hand conversions.
#include "common/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace units = dasim::units;

TEST(Units, Bandwidth) {
  EXPECT_DOUBLE_EQ(units::parse_bandwidth_Bps("25GBps"), 25e9);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth_Bps("100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth_Bps("1MiBps"), 1048576.0);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth_Bps("12.5e9"), 12.5e9);
  EXPECT_THROW(units::parse_bandwidth_Bps("25GBq"), std::invalid_argument);
  EXPECT_THROW(units::parse_bandwidth_Bps("fast"), std::invalid_argument);
}

TEST(Units, TimeFlopsBytes) {
  EXPECT_DOUBLE_EQ(units::parse_time_s("1us"), 1e-6);
  EXPECT_DOUBLE_EQ(units::parse_time_s("0.5ms"), 5e-4);
  EXPECT_DOUBLE_EQ(units::parse_flops("15.7Tf"), 15.7e12);
  EXPECT_DOUBLE_EQ(units::parse_bytes("25MB"), 25e6);
  EXPECT_DOUBLE_EQ(units::parse_bytes("1G"), 1073741824.0);
  EXPECT_THROW(units::parse_time_s("1 fortnight"), std::invalid_argument);
}

TEST(Units, CountsTakeTheirNounsNumber) {
  EXPECT_EQ(units::format_count(1, "GPU"), "1 GPU");
  EXPECT_EQ(units::format_count(0, "GPU"), "0 GPUs");
  EXPECT_EQ(units::format_count(1024, "configuration"), "1024 configurations");
}
