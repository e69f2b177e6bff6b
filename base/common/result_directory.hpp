// The directory a command leaves its result set in (results.csv, results.json, traces, plots),
// written whole or not at all. The directory is checked before any simulation starts (a path that
// cannot be a directory or cannot be written fails in a second, not after an hour); the files are
// written into a staging directory beside it and moved into place by commit(). A directory that
// holds only an earlier dasim result set is replaced as a whole, so no plot or trace of another
// run is left beside the new results; one that holds anything else is refused unless the caller
// allows it (`--force`), in which case only the earlier result files in it are replaced.
#pragma once

#include <filesystem>
#include <string>

namespace dasim {

class ResultDirectory {
 public:
  // Throws InputError (exit 2) for "" or a path that exists and is not a directory, or that holds
  // files other than a dasim result set when !allow_foreign_files; RuntimeFailure when the
  // staging directory cannot be created there.
  ResultDirectory(const std::string& dir, bool allow_foreign_files);
  ~ResultDirectory();  // removes the staging directory unless committed
  ResultDirectory(const ResultDirectory&) = delete;
  ResultDirectory& operator=(const ResultDirectory&) = delete;

  // Where to write the result set now; after commit() the same names lie under final_path().
  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& final_path() const { return final_; }
  // Moves the staged files into place (throws RuntimeFailure naming the path on failure).
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool merge_into_existing_ = false;  // foreign files allowed: replace only result files
  bool committed_ = false;
};

// Whether `name` is a file a dasim command writes into a result directory.
bool is_result_file_name(const std::string& name);

}  // namespace dasim
