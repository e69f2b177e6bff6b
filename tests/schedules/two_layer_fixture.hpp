// The two-layer workload the schedules' closed-form tests simulate. Two layers of 5 M fp32
// parameters with measured times (forward 4 ms, backward 8 ms each at batch 32); calibration with
// 1e12 B/s memory and no launch overhead. So per step: compute = 8 + 16 + update 0.2 ms
// (5 x 10 M x 4 B / 1e12) = 24.2 ms; weights = 40e6 B; DaSGD snapshot 2 x 40e6 / 1e12 = 0.08 ms,
// apply 4 x 40e6 / 1e12 = 0.16 ms. flat-100gbe: ring allreduce(S) = 2(P-1)/P x S / B + 2(P-1) x 2 us.
#pragma once

#include "engine/training_result_wire.hpp"
#include "engine/training_simulation.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"

#include <string>

namespace dasim::two_layer {

inline constexpr double kStep = 24.2e-3;
inline constexpr double kWeights = 40e6;
inline constexpr double kSnapshot = 0.08e-3, kApply = 0.16e-3;

inline workload::Workload two_layers() {
  workload::Workload w;
  w.name = "two-layer";
  w.measured_batch = 32;
  for (const char* name : {"a", "b"}) {
    workload::Layer l;
    l.name = name;
    l.kind = workload::LayerKind::linear;
    l.params = 5'000'000;
    l.forward_time_s = 4e-3;
    l.backward_time_s = 8e-3;
    l.measured_batch = 32;
    w.layers.push_back(l);
  }
  return w;
}

inline calibration::Calibration test_calibration() {
  calibration::Calibration c;
  c.device.name = "test";
  c.device.kind = "cpu";
  c.fitted.flops["fp32"] = 1e13;
  c.fitted.memory_bandwidth_Bps = 1e12;
  c.fitted.launch_overhead_s = 0;
  return c;
}

inline engine::TrainingConfig config(int nodes, schedules::ScheduleSpec schedule, double link_Bps = 12.5e9) {
  engine::TrainingConfig c;
  c.platform =
      platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json", nodes);
  c.platform.nics[0].link.bandwidth_Bps = link_Bps;
  c.platform.fabric.link.bandwidth_Bps = link_Bps;
  c.workload = two_layers();
  c.calibration = test_calibration();
  c.batch_per_gpu = 32;
  c.schedule = schedule;
  c.warmup_iterations = 4;
  c.measured_iterations = 8;
  return c;
}

inline engine::TrainingResult simulate(const engine::TrainingConfig& c) {
  return engine::simulate_training_isolated(c);
}

inline double ring(int p, double bytes, double link_Bps = 12.5e9) {
  return 2.0 * (p - 1) / p * bytes / link_Bps + 2.0 * (p - 1) * 2e-6;
}

// The closed forms of the communication leave DDP's bucket copies out (bucket_view, as the
// trainers allreduce the gradients in place); bucket_copies_test.cpp puts them back.
inline schedules::ScheduleSpec sgd(bool overlap, double cap = 25.0 * 1024 * 1024) {
  schedules::ScheduleSpec s;
  s.overlap = overlap;
  s.bucket_cap_bytes = cap;
  s.bucket_view = true;
  return s;
}

inline schedules::ScheduleSpec periodic(schedules::ScheduleKind kind, int tau, int delay) {
  schedules::ScheduleSpec s;
  s.kind = kind;
  s.tau = tau;
  s.delay = delay;
  s.bucket_view = true;  // with islands
  return s;
}

}  // namespace dasim::two_layer
