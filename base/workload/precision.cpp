// Precision names and element sizes (see precision.hpp).
#include "workload/precision.hpp"

#include "common/errors.hpp"

namespace dasim::workload {

int bytes_per_element(Precision precision) {
  return precision == Precision::fp32 ? 4 : 2;
}

std::string to_string(Precision precision) {
  return std::string(kPrecisionNames.name(precision));
}

Precision parse_precision(const std::string& text, const std::string& file, const std::string& json_path) {
  if (auto precision = kPrecisionNames.parse(text)) return *precision;
  throw InputError(file.empty() ? "--precision" : file, json_path,
                   "expected one of " + kPrecisionNames.listed() + ", got \"" + text + "\"");
}

}  // namespace dasim::workload
