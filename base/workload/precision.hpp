// Training precision of a workload as frameworks run it. It decides three sizes and one rate:
// the bytes per gradient element (what DDP's allreduce moves), per activation element (what the
// memory-bound layers stream), per master-weight element (what the optimizer reads and writes),
// and the compute precision whose FLOP rate the GEMM-like layers get from the calibration.
//
//   mode      compute        activations  weights, gradients   frameworks
//   fp32      fp32 (CUDA)    4 B          4 B                  plain fp32 training
//   tf32      tf32 (tensor)  4 B          4 B                  fp32 storage, TF32 convs/matmuls
//   fp16      fp16 (tensor)  2 B          2 B                  model.half(): everything in fp16
//   bf16      bf16 (tensor)  2 B          2 B                  model.bfloat16()
//   amp       fp16 (tensor)  2 B          4 B                  torch.autocast + GradScaler
//   amp_bf16  bf16 (tensor)  2 B          4 B                  torch.autocast(dtype=bfloat16)
//
// Under autocast the parameters stay fp32 leaves and autograd returns their gradients in fp32, so
// DDP allreduces 4 bytes per parameter (PyTorch AMP docs; a communication hook such as
// fp16_compress_hook changes that: the workload's grad_precision).
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class Precision { fp32, tf32, fp16, bf16, amp, amp_bf16 };
inline constexpr EnumNames<Precision, 6> kPrecisionNames{{{
    {Precision::fp32, "fp32"},
    {Precision::tf32, "tf32"},
    {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"},
    {Precision::amp, "amp"},
    {Precision::amp_bf16, "amp_bf16"},
}}};

int gradient_bytes_per_element(Precision precision);
int activation_bytes_per_element(Precision precision);
int weight_bytes_per_element(Precision precision);  // the master copy the optimizer updates
// The calibration's precision key (fp32 | tf32 | fp16 | bf16) of the GEMM-like layers.
std::string compute_precision(Precision precision);
bool is_mixed_precision(Precision precision);  // amp, amp_bf16: fp32 master weights + casts
// A gradient element type a communication hook can send: fp32, fp16 or bf16.
bool is_storage_precision(Precision precision);

std::string to_string(Precision precision);
// Throws InputError(file, json_path, ...) unless `text` names a mode above.
Precision parse_precision(const std::string& text, const std::string& file = "",
                          const std::string& json_path = "");

}  // namespace dasim::workload
