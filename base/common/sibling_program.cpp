#include "common/sibling_program.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace dasim {

std::string sibling_program(const std::string& name) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::string path = (self.parent_path() / name).string();
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

std::string replace_process(const std::string& path, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(path.c_str(), argv.data());
  return std::strerror(errno);
}

}  // namespace dasim
