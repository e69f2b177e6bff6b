// Fuzzes the communication-benchmark log parser (nccl-tests tables, CSV, OSU tables) and the
// alpha-beta fit that `dasim fit-links` runs on what it parsed.
#include "common/errors.hpp"
#include "linkfit/alpha_beta_fit.hpp"
#include "linkfit/log_parser.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto log = dasim::linkfit::parse_log_text(text, "fuzz.log");
    (void)dasim::linkfit::fit_links_report(log, "fuzz.log", {});
  } catch (const dasim::InputError&) {
  }
  return 0;
}
