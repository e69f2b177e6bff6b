#include "runtime/simulation.hpp"

#include <string>
#include <vector>

namespace dasim::runtime {

Simulation::Simulation(const platform::PlatformSpec& spec) : spec_(spec) {
  // SimGrid reads its options from argv. Its own INFO lines (configuration changes) would drown
  // dasim's output, so only warnings and errors are shown; many actors need small stacks.
  std::vector<std::string> args{"dasim", "--log=root.thres:warning", "--cfg=contexts/stack-size:32",
                                "--cfg=contexts/guard-size:0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  platform::configure_network_model(spec_);
  platform_ = platform::build_platform(spec_);
}

}  // namespace dasim::runtime
