#include "common/result_directory.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <regex>
#include <system_error>

namespace fs = std::filesystem;

namespace dasim {
namespace {

// A hidden sibling of the target, on the same file system so that the final moves are renames.
fs::path sibling(const fs::path& target, const std::string& tag) {
  return target.parent_path() / fmt::format(".{}.dasim-{}-{}", target.filename().string(), tag, ::getpid());
}

bool holds_only_result_files(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (!entry.is_regular_file() || !is_result_file_name(entry.path().filename().string())) return false;
  return true;
}

}  // namespace

bool is_result_file_name(const std::string& name) {
  static const std::regex names(
      R"(results\.(csv|json)|trace-[0-9]+\.json|shard-[0-9]+-of-[0-9]+\.json|[A-Za-z0-9_-]+\.png)");
  return std::regex_match(name, names);
}

ResultDirectory::ResultDirectory(const std::string& dir, bool allow_foreign_files) {
  if (dir.empty()) throw InputError("--out: expected a directory name, got \"\"");
  final_ = fs::absolute(fs::path(dir)).lexically_normal();
  if (final_.filename().empty()) final_ = final_.parent_path();  // "out/" -> "out"
  std::error_code ec;
  const auto status = fs::status(final_, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      throw InputError(fmt::format("--out {}: exists and is not a directory", dir));
    if (!holds_only_result_files(final_)) {
      if (!allow_foreign_files)
        throw InputError(
            fmt::format("--out {}: holds files that are not a dasim result set; refusing to "
                        "mix results with them (choose another directory, or --force to "
                        "replace only the result files in it)",
                        dir));
      merge_into_existing_ = true;
    }
  }
  fs::create_directories(final_.parent_path(), ec);
  staging_ = sibling(final_, "staging");
  fs::remove_all(staging_, ec);
  if (!fs::create_directory(staging_, ec) || ec)
    throw RuntimeFailure(fmt::format("--out {}: cannot create a directory beside it ({}: {})", dir,
                                     staging_.string(), ec ? ec.message() : "exists"));
}

ResultDirectory::~ResultDirectory() {
  std::error_code ec;
  if (!committed_) fs::remove_all(staging_, ec);
}

void ResultDirectory::commit() {
  std::error_code ec;
  auto failed = [&](const std::string& what) {
    throw RuntimeFailure(fmt::format("{}: {}: {}", final_.string(), what, ec.message()));
  };
  if (merge_into_existing_) {
    for (const auto& entry : fs::directory_iterator(final_))
      if (entry.is_regular_file() && is_result_file_name(entry.path().filename().string()))
        fs::remove(entry.path(), ec);
    for (const auto& entry : fs::directory_iterator(staging_)) {
      fs::rename(entry.path(), final_ / entry.path().filename(), ec);
      if (ec) failed("cannot move " + entry.path().filename().string() + " into place");
    }
    fs::remove_all(staging_, ec);
    committed_ = true;
    return;
  }
  const fs::path previous = sibling(final_, "previous");
  const bool replace = fs::exists(final_);
  if (replace) {
    fs::remove_all(previous, ec);
    fs::rename(final_, previous, ec);
    if (ec) failed("cannot move the earlier result set aside");
  }
  fs::rename(staging_, final_, ec);
  if (ec) {
    const std::error_code cause = ec;
    if (replace) fs::rename(previous, final_, ec);  // put the earlier set back
    ec = cause;
    failed("cannot move the new result set into place");
  }
  committed_ = true;
  if (replace) fs::remove_all(previous, ec);
}

}  // namespace dasim
