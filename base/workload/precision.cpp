// Precision modes and their element sizes (see precision.hpp).
#include "workload/precision.hpp"

namespace dasim::workload {

namespace {

bool is_half_storage(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16;
}

}  // namespace

int gradient_bytes_per_element(Precision precision) {
  return is_half_storage(precision) ? 2 : 4;
}

int activation_bytes_per_element(Precision precision) {
  return precision == Precision::fp32 || precision == Precision::tf32 ? 4 : 2;
}

int weight_bytes_per_element(Precision precision) {
  return is_half_storage(precision) ? 2 : 4;
}

std::string compute_precision(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
    case Precision::amp:
      return "fp16";
    case Precision::bf16:
    case Precision::amp_bf16:
      return "bf16";
  }
  return "fp32";
}

bool is_mixed_precision(Precision precision) {
  return precision == Precision::amp || precision == Precision::amp_bf16;
}

bool is_storage_precision(Precision precision) {
  return precision == Precision::fp32 || is_half_storage(precision);
}

std::string to_string(Precision precision) {
  return std::string(kPrecisionNames.name(precision));
}

Precision parse_precision(const std::string& text, const std::string& file, const std::string& json_path) {
  return parse_named(kPrecisionNames, text, "--precision", file, json_path);
}

}  // namespace dasim::workload
