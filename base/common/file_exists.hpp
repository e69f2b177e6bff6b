// Whether a path an input file names is an existing regular file, without throwing.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace dasim {

// A path the OS cannot even look up (a component longer than NAME_MAX, a "directory" that is a
// file) is not an existing input file either: std::filesystem's throwing overloads would turn it
// into an internal error instead of the input error it is.
inline bool is_existing_file(const std::string& path) {
  std::error_code ignored;
  return std::filesystem::is_regular_file(path, ignored);
}

}  // namespace dasim
