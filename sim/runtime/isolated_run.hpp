// SimGrid allows one Engine per process, and a simulation may abort the process on an internal
// error. Every simulation therefore runs in a forked child: the child builds the platform, runs,
// and sends its result back as a string; InputError / RuntimeFailure cross the boundary intact.
// This is also how `dasim run --jobs N` runs configurations in parallel.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dasim::runtime {

// Runs `body` in a child process and returns what it returned. Rethrows the child's InputError or
// RuntimeFailure; a child killed by a signal becomes a RuntimeFailure naming the signal.
std::string run_isolated(const std::function<std::string()>& body);

// Runs `bodies` with at most `jobs` children at a time; results in input order. `on_done(i)` is
// called in the parent as each finishes (progress reporting). The first failure is rethrown at
// once, the other running children killed and reaped; a RuntimeFailure (a child that died or
// failed) is prefixed with `name_of(i)` when given. Children die with the parent
// (PR_SET_PDEATHSIG). `on_progress(in_flight)`, when given, is called at each wake-up of the wait
// (at least every 200 ms) with the sum over running children of the fraction of their work they
// report done (child_progress.hpp).
std::vector<std::string> run_isolated_parallel(const std::vector<std::function<std::string()>>& bodies,
                                               int jobs, const std::function<void(size_t)>& on_done = {},
                                               const std::function<std::string(size_t)>& name_of = {},
                                               const std::function<void(double)>& on_progress = {});

}  // namespace dasim::runtime
