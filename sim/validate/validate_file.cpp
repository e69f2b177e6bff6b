#include "validate/validate_file.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"
#include "platform/platform_loader.hpp"

#include <fmt/format.h>

namespace dasim::validate {

std::string validate_file(const std::string& file) {
  nlohmann::json root = load_json_file(file);
  if (!root.is_object()) throw InputError(file, "(top level)", "expected a JSON object");
  if (root.contains("fabric") || root.contains("node")) {
    auto spec = platform::load_platform(file);
    return fmt::format("platform {}: {} nodes x {} GPUs, {} fabric", spec.name, spec.nodes, spec.gpus_per_node,
                       platform::to_string(spec.fabric.topology));
  }
  throw InputError(file, "(top level)",
                   "cannot tell what kind of dasim file this is (a platform has \"node\" and \"fabric\")");
}

}  // namespace dasim::validate
