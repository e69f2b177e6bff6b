// A scenario's "schedules" entries (docs/file-formats.md): each schedule's keys, range-checked
// against what the schedule allows, so a bad one fails at load time with its JSON path.
#pragma once

#include "collectives/collective_types.hpp"
#include "common/json_reader.hpp"
#include "platform/platform_spec.hpp"
#include "schedules/schedule_spec.hpp"
#include "workload/workload.hpp"

#include <string>
#include <vector>

namespace dasim::scenario {

schedules::ScheduleSpec read_schedule(ObjectReader s);

// Hierarchical data parallelism: islands of whole nodes that split every configuration's GPUs
// (a configuration with fewer GPUs than an island is one island). InputError at `path`.island_gpus.
void check_islands_fit(const schedules::ScheduleSpec& spec, const platform::PlatformSpec& platform,
                       const std::vector<int>& node_counts, const std::string& file, const std::string& path);

// Streaming DiLoCo cuts a workload into whole-layer fragments: refuses (InputError at
// `path`.fragments) a fragment count above the layers with parameters of `workload`.
void check_fragments_fit(const schedules::ScheduleSpec& spec, const workload::Workload& workload,
                         const std::string& file, const std::string& path);

// Top-k's pairs are all-gathered (on rings, whatever algorithm the allreduces use) and fsdp's
// units all-gathered and reduce-scattered, which progress polled_rounds cannot replay (it replays
// allreduces): InputError at `path`.compression.top_k or `path`.data_parallel.
void check_collectives_replayable(const schedules::ScheduleSpec& spec,
                                  const collectives::CollectiveOptions& options, const std::string& file,
                                  const std::string& path);

}  // namespace dasim::scenario
