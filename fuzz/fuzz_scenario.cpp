// Fuzzes the scenario loader (scenario::load_scenario), its expansion into configurations and the
// limits check. The input is written as <tmp>/scenarios/input.json next to a link to the shipped
// platforms/ folder, so "../platforms/x.json" references in seeds resolve as in the repository.
#include "common/errors.hpp"
#include "fuzz_input_file.hpp"
#include "scenario/limits.hpp"
#include "scenario/scenario.hpp"

#include <filesystem>

namespace {

std::string scenario_path() {
  namespace fs = std::filesystem;
  const fs::path root = dasim::fuzz::private_dir();
  fs::create_directories(root / "scenarios");
  std::error_code ignored;
  fs::create_directory_symlink(fs::path(DASIM_SOURCE_DIR) / "platforms", root / "platforms", ignored);
  return (root / "scenarios" / "input.json").string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = scenario_path();
  dasim::fuzz::write_input(file, data, size);
  try {
    auto sc = dasim::scenario::load_scenario(file);
    auto configs = dasim::scenario::expand(sc);
    (void)dasim::scenario::check_limits(sc, configs);
  } catch (const dasim::InputError&) {
  }
  return 0;
}
