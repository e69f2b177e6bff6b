// Fuzzes the calibration file parser (calibration::parse_calibration) and its JSON round trip.
#include "calibration/calibration.hpp"
#include "common/errors.hpp"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto value = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;
  try {
    auto c = dasim::calibration::parse_calibration(value, "fuzz.json");
    (void)dasim::calibration::to_json(c);
  } catch (const dasim::InputError&) {
  }
  return 0;
}
