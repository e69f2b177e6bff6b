// Reads a platform JSON file into a validated PlatformSpec. Every problem (malformed JSON,
// unknown keys, a bandwidth <= 0, a NIC under a switch that does not exist, a GPU no NIC serves,
// a fabric that cannot hold the node count) is an InputError `FILE: json.path: what`.
// The file format is documented in docs/file-formats.md.
#pragma once

#include "platform/platform_spec.hpp"

#include <optional>
#include <string>

namespace dasim::platform {

// `nodes_override` replaces the file's node count (scenario sweeps, --nodes).
PlatformSpec load_platform(const std::string& file, std::optional<int> nodes_override = std::nullopt);

// Checks the cross-field rules (also run by load_platform); exposed so that code which edits a
// spec (sweeps) can re-check it.
void validate_platform(const PlatformSpec& spec);

// Torus dimensions for `nodes` nodes: the explicit ones, or `rank` near-equal factors.
std::vector<int> torus_dimensions(const FabricSpec& fabric, int nodes);

}  // namespace dasim::platform
