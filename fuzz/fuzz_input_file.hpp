// Helpers shared by the fuzz targets: the loaders that only take a path get the fuzz input as a
// file. One file per process, rewritten each execution, in a private temporary directory.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace dasim::fuzz {

// A fresh directory under TMPDIR for this process, e.g. /tmp/dasim-fuzz-1234.
inline const std::filesystem::path& private_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("dasim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes the input to `path` (replacing it) and returns the path.
inline std::string write_input(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace dasim::fuzz
