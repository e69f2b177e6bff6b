// dasim-train's argument validation: one InputError per class of bad argument, defaults that
// follow ALGORITHMS.md (sgd: tau 1, d 0; dasgd default d 1 <= tau).
#include "options.hpp"
#include "common/errors.hpp"

#include <gtest/gtest.h>

using namespace dasim::executor;
using dasim::schedules::ScheduleKind;

namespace {

ParsedOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "dasim-train");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_train_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST(Options, Defaults) {
  const auto o = *parse({}).options;
  EXPECT_EQ(o.schedule.kind, ScheduleKind::sgd);
  EXPECT_EQ(o.schedule.tau, 1);
  EXPECT_EQ(o.schedule.delay, 0);
  EXPECT_EQ(o.csv, "dasim-train.csv");
  EXPECT_EQ(o.blas_threads, 1);
}

TEST(Options, DasgdAndSizes) {
  const auto o = *parse({"--schedule", "dasgd", "--tau", "8", "--delay", "3", "--hidden", "32,16", "--bucket",
                         "1MiB", "-o", "out/run.json"})
                      .options;
  EXPECT_EQ(o.schedule.kind, ScheduleKind::dasgd);
  EXPECT_EQ(o.schedule.tau, 8);
  EXPECT_EQ(o.schedule.delay, 3);
  EXPECT_EQ(o.hidden, (std::vector<int>{32, 16}));
  EXPECT_DOUBLE_EQ(o.schedule.bucket_cap_bytes, 1048576);
  EXPECT_EQ(o.csv, "out/run.csv");
}

TEST(Options, TopKOnTheDilocoFamily) {
  const auto o = *parse({"--schedule", "streaming_diloco", "--H", "4", "--top-k", "0.05"}).options;
  EXPECT_DOUBLE_EQ(o.schedule.top_k.density, 0.05);
  EXPECT_FALSE(dasim::schedules::has_top_k(parse({"--schedule", "diloco"}).options->schedule));
}

TEST(Options, FsdpForSgdAndInsideIslands) {
  using dasim::schedules::DataParallel;
  EXPECT_EQ(parse({}).options->schedule.data_parallel, DataParallel::ddp);
  const auto sgd = *parse({"--data-parallel", "fsdp"}).options;
  EXPECT_TRUE(dasim::schedules::has_sharded_steps(sgd.schedule));
  const auto islands =
      *parse({"--schedule", "diloco", "--island-ranks", "2", "--data-parallel", "fsdp"}).options;
  EXPECT_TRUE(dasim::schedules::has_sharded_steps(islands.schedule));
}

TEST(Options, HelpIsNotAnError) {
  EXPECT_FALSE(parse({"--help"}).options.has_value());
}

TEST(Options, RejectsEachClassOfBadArgument) {
  const std::vector<std::vector<std::string>> bad{
      {"--schedule", "adam"},                                               // unknown schedule
      {"--bogus"},                                                          // unknown flag
      {"--steps", "abc"},                                                   // not a number
      {"--steps", "0"},                                                     // out of range
      {"--batch", "-1"},                                                    // out of range
      {"--lr", "0"},                                                        // out of range
      {"--tau", "4"},                                                       // sgd takes no tau
      {"--schedule", "local_sgd", "--delay", "1"},                          // local_sgd takes no delay
      {"--schedule", "dasgd", "--tau", "2", "--delay", "3"},                // delay > tau
      {"--schedule", "dasgd", "--tau", "0"},                                // tau < 1
      {"--hidden", "32,x"},                                                 // bad widths
      {"--bucket", "lots"},                                                 // bad size
      {"--mnist-images", "a.idx"},                                          // labels missing
      {"--mnist-images", "a", "--mnist-labels", "b", "--noise", "1"},       // synthetic flag ignored by MNIST
      {"--warmup-steps", "10", "--steps", "10"},                            // nothing left to time
      {"--schedule", "local_sgd", "--steps", "11", "--warmup-steps", "5"},  // warm-up 8 + no whole tau 4
      {"--classes", "1"},                                                   // a single class
      {"--device", "tpu"},                                                  // unknown device
      {"--device", "cuda", "--verify"},                                     // reference is CPU-only
      {"--comm-timeout", "0"},                                              // no time to communicate
      {"--schedule", "diloco", "--top-k", "1"},                             // dense is not top-k
      {"--schedule", "diloco", "--eager", "--top-k", "0.1"},                // eager combines dense sums
      {"--schedule", "local_sgd", "--top-k", "0.1"},                        // the DiLoCo family only
      {"--device", "cuda", "--schedule", "diloco", "--top-k", "0.1"},       // the MPI trainer only
      {"--schedule", "diloco", "--island-ranks", "2", "--top-k", "0.1"},    // no sharded selection
      {"--schedule", "diloco", "--bits", "12"},                             // not 32, 16, 8 or 4
      {"--schedule", "diloco", "--eager", "--bits", "8"},                   // eager sums are dense fp32
      {"--schedule", "dasgd", "--bits", "8"},                               // the DiLoCo family only
      {"--device", "cuda", "--schedule", "diloco", "--bits", "8"},          // the MPI trainer only
      {"--data-parallel", "zero3"},                                         // unknown sharding
      {"--schedule", "dasgd", "--data-parallel", "fsdp"},                   // no island to shard in
      {"--device", "cuda", "--data-parallel", "fsdp"},                      // the MPI trainer only
  };
  for (const auto& args : bad) EXPECT_THROW(parse(args), dasim::InputError) << args[0] << " " << args.back();
}
