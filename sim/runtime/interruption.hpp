// SIGINT / SIGTERM during a long `dasim run`: the handler only records the signal; the parent's
// wait loop (isolated_run.cpp) notices it, kills the simulation children and throws Interrupted,
// so no results file is written (outputs are only written, atomically, after every configuration
// has finished). main() turns Interrupted into "dasim: interrupted (SIGINT)" and exit 128 + signal.
#pragma once

#include <stdexcept>

namespace dasim::runtime {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }
  int exit_status() const { return 128 + signal_; }  // the shell's convention: 130 SIGINT, 143 SIGTERM

 private:
  int signal_;
};

// Records SIGINT and SIGTERM instead of dying (no SA_RESTART, so blocking calls return EINTR).
void install_interrupt_handlers();
// In a forked child: back to the default actions, so a terminal's Ctrl-C also stops children.
void reset_interrupt_handlers();
// The signal received since install_interrupt_handlers(), or 0.
int interrupt_signal();
// Throws Interrupted if a signal was received.
void throw_if_interrupted();

}  // namespace dasim::runtime
