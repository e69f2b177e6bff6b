// `dasim validate FILE...`: checks every input file given; exit 0 when all are valid, 2 when any
// is not (one line per bad file).
#include "commands.hpp"
#include "common/errors.hpp"
#include "validate/validate_file.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace dasim::cli {

void add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate = app.add_subcommand("validate", "Check platform, scenario, workload and calibration files");
  validate->add_option("files", *files, "JSON files to check")->required();
  validate->callback([files] {
    std::vector<std::string> errors;
    for (const auto& file : *files) try {
        fmt::print("{}: ok ({})\n", file, validate::validate_file(file));
      } catch (const InputError& e) {
        errors.push_back(e.what());
      }
    if (errors.empty()) return;
    std::fflush(stdout);
    // All but the last here; the last as any command's error (main prints it and exits 2).
    for (size_t i = 0; i + 1 < errors.size(); ++i) fmt::print(stderr, "dasim: error: {}\n", errors[i]);
    throw InputError(errors.back());
  });
}

}  // namespace dasim::cli
