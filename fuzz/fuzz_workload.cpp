// Fuzzes the workload file parser (workload::parse_workload) behind the same JSON reading as
// load_workload: malformed JSON is an InputError there, so it is skipped here.
#include "common/errors.hpp"
#include "workload/workload_file.hpp"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto value = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;
  try {
    auto w = dasim::workload::parse_workload(value, "fuzz.json");
    (void)dasim::workload::to_json(w);
  } catch (const dasim::InputError&) {
  }
  return 0;
}
