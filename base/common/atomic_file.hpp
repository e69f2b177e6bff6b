// Outputs are written to a temporary name beside the target and renamed into place, so a reader
// (or an interrupted run) never sees a half-written results, trace or calibration file.
#pragma once

#include <string>

namespace dasim {

// Writes `content` to `path` atomically (temp file + fsync + rename). Creates missing parent
// directories. Throws RuntimeFailure naming the path on any I/O error.
void write_file_atomically(const std::string& path, const std::string& content);

// Before a long run: throws InputError `FLAG PATH: why` unless a file can be written at `path`
// (it is not a directory, its parent exists or can be created, a file can be created there).
// Creates the parent directories as write_file_atomically would.
void check_can_write(const std::string& path, const std::string& flag);

}  // namespace dasim
