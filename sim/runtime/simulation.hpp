// One simulation: a SimGrid engine with dasim's configuration and the platform built on it.
// Create at most one per process (run it inside runtime::run_isolated).
#pragma once

#include "platform/network_model.hpp"
#include "platform/platform_builder.hpp"
#include "platform/platform_spec.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <memory>

namespace dasim::runtime {

class Simulation {
 public:
  explicit Simulation(const platform::PlatformSpec& spec);

  simgrid::s4u::Engine& engine() { return *engine_; }
  const platform::BuiltPlatform& platform() const { return platform_; }
  const platform::PlatformSpec& spec() const { return spec_; }

 private:
  platform::PlatformSpec spec_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  platform::BuiltPlatform platform_;
};

}  // namespace dasim::runtime
