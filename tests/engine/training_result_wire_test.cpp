// The result of a simulation crosses from the child to the parent as JSON: every double comes back
// bit for bit (the parent's results files would otherwise differ from run to run), and the trace
// events keep their order.
#include "engine/training_result_wire.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace dasim::engine;

TEST(TrainingResultWire, RoundTripsEveryDoubleExactly) {
  TrainingResult r;
  r.iter_time_s = 0.1 + 0.2;  // not representable exactly: shortest round-trip form needed
  r.compute_s = std::nextafter(1.0, 2.0);
  r.compute_slowdown_s = 0.1 / 3.0;
  r.comm_s = 1e-300;
  r.exposed_comm_s = 123456789.123456789;
  r.step_compute_s = 1.0 / 3.0;
  r.measured_iterations = 12;
  r.comm_max_s = 2.5e-3;
  r.exposed_comm_max_s = 1.0 / 9.0;
  r.input_wait_s = 2.0 / 3.0;
  r.algorithms_used = "ring/simple+tree/ll";
  r.simulated_nodes = 2;
  r.fold_why_not = "jitter";
  r.trace = {{3,
              {{"forward", "compute", 0.1, 0.2, 0, {}},
               {"allreduce bucket 0", "comm", 0.15, 1.0 / 7.0, 25.5e6, "tree/ll128"}}}};
  const TrainingResult back = training_result_from_wire(to_wire(r));
  EXPECT_EQ(back.iter_time_s, r.iter_time_s);
  EXPECT_EQ(back.compute_s, r.compute_s);
  EXPECT_EQ(back.compute_slowdown_s, r.compute_slowdown_s);
  EXPECT_EQ(back.comm_s, r.comm_s);
  EXPECT_EQ(back.exposed_comm_s, r.exposed_comm_s);
  EXPECT_EQ(back.comm_max_s, r.comm_max_s);
  EXPECT_EQ(back.exposed_comm_max_s, r.exposed_comm_max_s);
  EXPECT_EQ(back.input_wait_s, r.input_wait_s);
  EXPECT_EQ(back.algorithms_used, r.algorithms_used);
  EXPECT_EQ(back.step_compute_s, r.step_compute_s);
  EXPECT_EQ(back.measured_iterations, 12);
  EXPECT_EQ(back.simulated_nodes, 2);
  EXPECT_EQ(back.fold_why_not, "jitter");
  ASSERT_EQ(back.trace.size(), 1u);
  EXPECT_EQ(back.trace[0].rank, 3);
  ASSERT_EQ(back.trace[0].events.size(), 2u);
  EXPECT_EQ(back.trace[0].events[1].name, "allreduce bucket 0");
  EXPECT_EQ(back.trace[0].events[1].category, "comm");
  EXPECT_EQ(back.trace[0].events[1].end, 1.0 / 7.0);
  EXPECT_EQ(back.trace[0].events[1].bytes, 25.5e6);
  EXPECT_EQ(back.trace[0].events[1].algorithm, "tree/ll128");
}
