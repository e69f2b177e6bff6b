// The memory layout of a CNN's activations, and what it costs where it is not the one the GPU's
// convolution kernels use. NVIDIA's tensor-core convolutions (fp16, bf16 and TF32) run on NHWC
// ("channels last") tensors; PyTorch's default layout is NCHW, for which cuDNN transposes the
// input of every convolution to NHWC and the result back (NVIDIA, "Convolutional Layers User's
// Guide", Tensor Layouts In Memory: NCHW vs NHWC). Those transposes are memory-bound kernels of
// their own, the time channels-last removes.
#pragma once

#include "common/enum_names.hpp"
#include "workload/workload.hpp"

#include <string>

namespace dasim::workload {

enum class MemoryFormat { channels_last, nchw };
inline constexpr EnumNames<MemoryFormat, 2> kMemoryFormatNames{{{
    {MemoryFormat::channels_last, "channels_last"},
    {MemoryFormat::nchw, "nchw"},
}}};

// Whether the workload's convolutions run on tensor cores (every precision but fp32): the ones
// for which NCHW costs transposes. (A GPU without tensor cores for the precision, a P100 in fp16
// or a V100 asked for tf32, would not transpose; the workload cannot tell.)
bool convolutions_use_tensor_cores(Precision precision);

// With nchw on a tensor-core precision, every convolution computed from its shape is followed by
// a layer "<conv>.layout" of its transposes, each a read and a write of one tensor. Forward: the
// input to NHWC and the output back, 2 x (input + output) elements. Backward: the data-gradient
// convolution transposes the output gradient in and the input gradient back, the weight-gradient
// convolution the input and the output gradient in, 4 x (input + output) elements (2 x for a
// convolution whose input needs no gradient: the first one, on the images). Not counted: the
// weights' transposes, per step rather than per sample (the layers' bytes are per sample): for
// ResNet-50 in amp 307 MB a step (3 calls x 2 passes x 2 bytes x 25.6 M) against 257 MB per
// sample of activation transposes, so 3.7% of the transposes' bytes at batch 32, 0.5% at 256,
// 0.1% at 1,280; nor layers timed by a profile, which include whatever the framework ran.
// channels_last, or fp32: unchanged.
void apply_memory_format(Workload& workload, MemoryFormat format);

std::string to_string(MemoryFormat format);
MemoryFormat parse_memory_format(const std::string& text, const std::string& file = "",
                                 const std::string& json_path = "");

}  // namespace dasim::workload
