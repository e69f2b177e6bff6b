#include "child_process.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

namespace dasim::sweep {
namespace {

void redirect(const std::string& file, int fd) {
  if (file.empty()) return;
  const int out = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || ::dup2(out, fd) < 0) ::_exit(127);
  ::close(out);
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& stdout_file,
                       const std::string& stderr_file) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return {false, fmt::format("fork failed: {}", std::strerror(errno))};
  if (pid == 0) {
    redirect(stdout_file, STDOUT_FILENO);
    redirect(stderr_file, STDERR_FILENO);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "%s: cannot run: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return {false, fmt::format("waitpid failed: {}", std::strerror(errno))};
  if (WIFEXITED(status))
    return {WEXITSTATUS(status) == 0, fmt::format("exit status {}", WEXITSTATUS(status))};
  if (WIFSIGNALED(status))
    return {false, fmt::format("killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)))};
  return {false, "ended abnormally"};
}

std::string last_line(const std::string& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace dasim::sweep
