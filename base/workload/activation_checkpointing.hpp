// Activation checkpointing (torch.utils.checkpoint, FSDP's checkpoint_wrapper): a checkpointed
// block keeps only its input through the forward pass and runs its forward again, under autograd,
// when the backward reaches it, so every block costs a second forward right before its backward.
//   none    the forward runs once (the default)
//   blocks  every block (a layer's `block`: a transformer layer of the built-ins, what a workload
//           file names) is recomputed: the sum of its layers' forward times is charged once,
//           before the backward of its last layer, whose gradient is thus ready that much later.
//           Layers outside every block (embeddings, the final norm, the head) run once.
// Memory is not modelled, so what checkpointing saves does not appear; what it costs does.
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class ActivationCheckpointing { none, blocks };
inline constexpr EnumNames<ActivationCheckpointing, 2> kActivationCheckpointingNames{{{
    {ActivationCheckpointing::none, "none"},
    {ActivationCheckpointing::blocks, "blocks"},
}}};

std::string to_string(ActivationCheckpointing mode);
ActivationCheckpointing parse_activation_checkpointing(const std::string& text, const std::string& file = "",
                                                       const std::string& json_path = "");

}  // namespace dasim::workload
