// `dasim validate FILE...`: checks input files; exit 0 when all are valid, 2 at the first bad one.
#include "commands.hpp"
#include "validate/validate_file.hpp"

#include <fmt/format.h>

#include <memory>

namespace dasim::cli {

void add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate = app.add_subcommand("validate", "Check platform, scenario, workload and calibration files");
  validate->add_option("files", *files, "JSON files to check")->required();
  validate->callback([files] {
    for (const auto& file : *files) fmt::print("{}: ok ({})\n", file, validate::validate_file(file));
  });
}

}  // namespace dasim::cli
