#include "common/atomic_file.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dasim {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw RuntimeFailure(path + ": cannot create directory: " + ec.message());

  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw RuntimeFailure(path + ": cannot write: " + std::strerror(errno));
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw RuntimeFailure(path + ": write failed: " + std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    throw RuntimeFailure(path + ": cannot rename into place: " + std::strerror(err));
  }
}

void check_can_write(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string what = flag + " " + path;
  std::error_code ec;
  if (path.empty()) throw InputError(flag + ": expected a file name, got \"\"");
  if (fs::is_directory(target, ec)) throw InputError(what + ": is a directory, expected a file name");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw InputError(what + ": cannot create its directory: " + ec.message());
  // A probe beside it: the same rename-into-place write_file_atomically does must be possible.
  const fs::path probe = parent / ("." + target.filename().string() + ".probe." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw InputError(what + ": cannot write there: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace dasim
