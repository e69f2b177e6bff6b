#include "runtime/interruption.hpp"

#include <csignal>
#include <cstring>
#include <string>

namespace dasim::runtime {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void record_signal(int signal) {
  g_signal = signal;
}

void set_action(int signal, void (*handler)(int)) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll()/read() return EINTR and the loop checks the flag
  sigaction(signal, &action, nullptr);
}

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(std::string("interrupted (") + (signal == SIGTERM ? "SIGTERM" : "SIGINT") + ")"),
      signal_(signal) {}

void install_interrupt_handlers() {
  set_action(SIGINT, record_signal);
  set_action(SIGTERM, record_signal);
}

void reset_interrupt_handlers() {
  set_action(SIGINT, SIG_DFL);
  set_action(SIGTERM, SIG_DFL);
}

int interrupt_signal() {
  return g_signal;
}

void throw_if_interrupted() {
  if (int s = g_signal) throw Interrupted(s);
}

}  // namespace dasim::runtime
