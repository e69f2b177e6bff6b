// Precision names and element sizes (see precision.hpp).
#include "workload/precision.hpp"

#include "common/errors.hpp"

namespace dasim::workload {

int bytes_per_element(Precision precision) {
  return precision == Precision::fp32 ? 4 : 2;
}

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return "fp32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
  }
  return "?";
}

Precision parse_precision(const std::string& text, const std::string& file, const std::string& json_path) {
  if (text == "fp32") return Precision::fp32;
  if (text == "fp16") return Precision::fp16;
  if (text == "bf16") return Precision::bf16;
  throw InputError(file.empty() ? "--precision" : file, json_path,
                   "expected one of fp32, fp16, bf16, got \"" + text + "\"");
}

}  // namespace dasim::workload
