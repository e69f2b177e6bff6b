// Activation checkpointing modes (see activation_checkpointing.hpp).
#include "workload/activation_checkpointing.hpp"

namespace dasim::workload {

std::string to_string(ActivationCheckpointing mode) {
  return std::string(kActivationCheckpointingNames.name(mode));
}

ActivationCheckpointing parse_activation_checkpointing(const std::string& text, const std::string& file,
                                                       const std::string& json_path) {
  return parse_named(kActivationCheckpointingNames, text, "--activation-checkpointing", file, json_path);
}

}  // namespace dasim::workload
