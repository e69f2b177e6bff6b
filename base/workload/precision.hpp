// Training precision of a workload: decides the bytes per gradient / weight element, which is what
// the allreduce moves. fp16 and bf16 are 2 bytes, fp32 is 4.
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class Precision { fp32, fp16, bf16 };
inline constexpr EnumNames<Precision, 3> kPrecisionNames{{{
    {Precision::fp32, "fp32"},
    {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"},
}}};

int bytes_per_element(Precision precision);
std::string to_string(Precision precision);
// Throws InputError(file, json_path, ...) unless `text` is fp32, fp16 or bf16.
Precision parse_precision(const std::string& text, const std::string& file = "",
                          const std::string& json_path = "");

}  // namespace dasim::workload
