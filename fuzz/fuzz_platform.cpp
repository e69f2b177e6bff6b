// Fuzzes the platform loader (platform::load_platform): any input must load or be refused with an
// InputError. Anything else (another exception, a crash, a sanitizer report) is a finding.
#include "common/errors.hpp"
#include "fuzz_input_file.hpp"
#include "platform/platform_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = (dasim::fuzz::private_dir() / "platform.json").string();
  dasim::fuzz::write_input(file, data, size);
  try {
    auto spec = dasim::platform::load_platform(file);
    // Node-count overrides go through the same validation (torus factoring, NIC rails).
    (void)dasim::platform::load_platform(file, 3);
    (void)spec;
  } catch (const dasim::InputError&) {
  }
  return 0;
}
