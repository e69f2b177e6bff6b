#include "runtime/isolated_run.hpp"

#include "common/errors.hpp"
#include "runtime/child_progress.hpp"
#include "runtime/interruption.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace dasim::runtime {
namespace {

// Wire format: one status byte ('0' ok, '1' runtime failure, '2' input error, '3' other) + text.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string data;
};

// The status byte followed by the text. (Built by appending: GCC 12 at -O3 reports a false
// -Wrestrict overlap for `"0" + string`.)
std::string tagged(char kind, std::string_view text) {
  std::string message;
  message.reserve(text.size() + 1);
  message.push_back(kind);
  message.append(text);
  return message;
}

Child start_child(const std::function<std::string()>& body, const std::function<void()>& in_child = {}) {
  const pid_t parent = ::getpid();
  int fds[2];
  if (::pipe(fds) != 0) throw RuntimeFailure(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) throw RuntimeFailure(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    // Die with the parent: a `kill -9` of dasim must not leave simulations running (and holding
    // their memory) until their configuration ends. The check closes the window in which the
    // parent died before prctl.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    reset_interrupt_handlers();
    if (in_child) in_child();
    std::string message;
    try {
      message = tagged('0', body());
    } catch (const InputError& e) {
      message = tagged('2', e.what());
    } catch (const RuntimeFailure& e) {
      message = tagged('1', e.what());
    } catch (const std::exception& e) {
      message = tagged('3', e.what());
    }
    size_t off = 0;
    while (off < message.size()) {
      ssize_t n = ::write(fds[1], message.data() + off, message.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);  // skip atexit handlers and static destructors of the parent's state
  }
  ::close(fds[1]);
  return Child{pid, fds[0], {}};
}

// Reads what is available; returns false at end of stream.
bool pump(Child& child) {
  char buffer[65536];
  ssize_t n = ::read(child.fd, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  child.data.append(buffer, static_cast<size_t>(n));
  return true;
}

// Waits for the child and converts its message into a result or an exception object.
std::string finish_child(Child& child) {
  ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    // Nothing in dasim sends its own children SIGKILL except on interruption (handled before),
    // so a SIGKILL is almost always the kernel's out-of-memory killer.
    const bool killed = WTERMSIG(status) == SIGKILL;
    throw RuntimeFailure(fmt::format("simulation process died with signal {} ({}){}", WTERMSIG(status),
                                     strsignal(WTERMSIG(status)),
                                     killed ? ": killed, likely by the out-of-memory killer (see the "
                                              "kernel log; the estimate is in docs/hardening.md)"
                                            : ""));
  }
  if (child.data.empty())
    throw RuntimeFailure(fmt::format("simulation process exited with status {} without a result",
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  char kind = child.data[0];
  std::string text = child.data.substr(1);
  switch (kind) {
    case '0':
      return text;
    case '2':
      throw InputError(text);
    case '1':
      throw RuntimeFailure(text);
    default:
      throw RuntimeFailure("simulation failed: " + text);
  }
}

void kill_and_reap(std::map<size_t, Child>& running) {
  for (auto& [index, child] : running) ::kill(child.pid, SIGKILL);
  for (auto& [index, child] : running) {
    ::close(child.fd);
    while (::waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  running.clear();
}

// On SIGINT/SIGTERM (interruption.hpp): the children are killed and reaped, then Interrupted.
void stop_children_if_interrupted(std::map<size_t, Child>& running) {
  if (!interrupt_signal()) return;
  kill_and_reap(running);
  throw_if_interrupted();
}

}  // namespace

std::string run_isolated(const std::function<std::string()>& body) {
  std::map<size_t, Child> running{{0, start_child(body)}};
  while (pump(running.at(0))) stop_children_if_interrupted(running);
  return finish_child(running.at(0));
}

std::vector<std::string> run_isolated_parallel(const std::vector<std::function<std::string()>>& bodies,
                                               int jobs, const std::function<void(size_t)>& on_done,
                                               const std::function<std::string(size_t)>& name_of,
                                               const std::function<void(double)>& on_progress) {
  std::vector<std::string> results(bodies.size());
  ProgressSlots progress(on_progress ? bodies.size() : 0);
  std::map<size_t, Child> running;
  size_t next = 0;
  if (jobs < 1) jobs = 1;
  while (next < bodies.size() || !running.empty()) {
    stop_children_if_interrupted(running);
    while (next < bodies.size() && running.size() < static_cast<size_t>(jobs)) {
      running.emplace(next, start_child(bodies[next], [&progress, next] { progress.attach_child(next); }));
      ++next;
    }
    std::vector<pollfd> fds;
    std::vector<size_t> order;
    for (auto& [index, child] : running) {
      fds.push_back({child.fd, POLLIN, 0});
      order.push_back(index);
    }
    // A bounded wait, so an interruption that lands just before poll() is still seen promptly.
    int ready = ::poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) throw RuntimeFailure(std::string("poll: ") + std::strerror(errno));
    stop_children_if_interrupted(running);
    if (on_progress) {  // how far the running children are, at most every 200 ms
      double in_flight = 0;
      for (const auto& [index, child] : running) in_flight += progress.read(index);
      on_progress(in_flight);
    }
    if (ready <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& child = running.at(order[i]);
      if (pump(child)) continue;
      try {
        results[order[i]] = finish_child(child);
      } catch (const RuntimeFailure& e) {
        // Reported at once: the siblings' results are of no use without this one, and they may
        // run for hours. The failure names the job.
        running.erase(order[i]);
        kill_and_reap(running);
        if (!name_of) throw;
        throw RuntimeFailure(fmt::format("{}: {}", name_of(order[i]), e.what()));
      } catch (...) {
        running.erase(order[i]);
        kill_and_reap(running);
        throw;
      }
      if (on_done) on_done(order[i]);
      running.erase(order[i]);
    }
  }
  return results;
}

}  // namespace dasim::runtime
