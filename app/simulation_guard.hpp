// What every command that simulates a platform does before it starts (`dasim collective`,
// `dasim platform show`, as `dasim run` does for scenarios): refuse a size beyond the limits or
// beyond the machine's memory with the estimate (unless --force), and turn SIGINT / SIGTERM into
// a clean stop (the simulation child killed and reaped, exit 130 / 143).
#pragma once

#include "platform/platform_spec.hpp"

#include <string>

namespace dasim::cli {

// `nodes_override`: the --nodes value (0: the file's own count), named in the error.
void guard_simulation(const platform::PlatformSpec& spec, const std::string& file, int nodes_override,
                      bool force);

}  // namespace dasim::cli
