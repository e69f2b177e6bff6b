// Programs installed beside the running one: dasim and dasim-train hand --device cuda to their CUDA
// siblings (dasim-calibrate-cuda, dasim-train-cuda), which alone link the CUDA libraries.
#pragma once

#include <string>
#include <vector>

namespace dasim {

// NAME in the running program's directory, or "" when it is not there as an executable.
std::string sibling_program(const std::string& name);

// Replaces this process with PATH run with ARGS as its argv (ARGS[0] included), stdout and stderr
// flushed first. Returns only when the exec failed, with the reason.
std::string replace_process(const std::string& path, std::vector<std::string> args);

}  // namespace dasim
