// A folder under the system's temp directory for the files one test process writes (scenarios,
// platforms, calibrations made up by a test), removed when the process exits, so that running
// the suite leaves nothing behind in /tmp. ctest runs each test in a process of its own.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace dasim::testing {

// `name`-<pid>, created if needed; the same path for the same name within a process.
inline std::filesystem::path scratch_dir(const std::string& name) {
  struct Registry {
    std::vector<std::filesystem::path> dirs;
    ~Registry() {
      for (const auto& dir : dirs) {
        std::error_code ignored;  // at exit: a folder already gone is fine
        std::filesystem::remove_all(dir, ignored);
      }
    }
  };
  static Registry registry;
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  if (std::find(registry.dirs.begin(), registry.dirs.end(), dir) == registry.dirs.end())
    registry.dirs.push_back(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Writes `text` to `name` in scratch_dir(`dir`) and returns the file's path: the input file a test
// makes up for a loader.
inline std::string write_scratch_file(const std::string& dir, const std::string& name,
                                      const std::string& text) {
  const auto path = scratch_dir(dir) / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace dasim::testing
