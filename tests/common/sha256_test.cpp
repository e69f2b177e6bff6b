// SHA-256 against the FIPS 180-2 appendix examples and coreutils' sha256sum (an independent
// implementation), including the lengths where the padding needs a second block.
#include "common/sha256.hpp"
#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using dasim::sha256_hex;

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padded block.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

namespace {
std::string sha256sum(const std::string& path) {
  std::string command = "sha256sum '" + path + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::array<char, 65> hex{};
  const size_t n = fread(hex.data(), 1, 64, pipe);
  pclose(pipe);
  return std::string(hex.data(), n);
}
}  // namespace

TEST(Sha256, FileHashMatchesSha256sumAtEveryPaddingBoundary) {
  const auto dir = std::filesystem::temp_directory_path() / ("dasim-sha256-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (size_t length : {0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 4097}) {
    std::string bytes;
    for (size_t i = 0; i < length; ++i) bytes.push_back(static_cast<char>((i * 131 + 7) & 0xff));
    const auto path = (dir / ("f" + std::to_string(length))).string();
    std::ofstream(path, std::ios::binary) << bytes;
    EXPECT_EQ(dasim::sha256_of_file(path), sha256sum(path)) << length << " bytes";
  }
  std::filesystem::remove_all(dir);
}

TEST(Sha256, AMissingFileIsAnInputError) {
  EXPECT_THROW(dasim::sha256_of_file("/nonexistent/cal.json"), dasim::InputError);
}
