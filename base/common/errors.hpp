// Error types that map to dasim's exit statuses: InputError (bad user input, exit 2) and
// RuntimeFailure (a valid request that could not be carried out, exit 1). Both carry a message
// that is printed as one line, so every error a user sees has the shape `FILE: json.path: what`.
#pragma once

#include <stdexcept>
#include <string>

namespace dasim {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& json_path, const std::string& what)
      : std::runtime_error(format(file, json_path, what)) {}
  explicit InputError(const std::string& what) : std::runtime_error(what) {}

 private:
  static std::string format(const std::string& file, const std::string& json_path, const std::string& what) {
    std::string line = file.empty() ? std::string("<input>") : file;
    if (!json_path.empty()) line += ": " + json_path;
    return line + ": " + what;
  }
};

class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kExitOk = 0;
constexpr int kExitRuntimeFailure = 1;
constexpr int kExitBadInput = 2;

}  // namespace dasim
