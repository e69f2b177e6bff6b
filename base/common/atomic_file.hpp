// Outputs are written to a temporary name beside the target and renamed into place, so a reader
// (or an interrupted run) never sees a half-written results, trace or calibration file.
#pragma once

#include <string>

namespace dasim {

// Writes `content` to `path` atomically (temp file + fsync + rename). Creates missing parent
// directories. Throws RuntimeFailure naming the path on any I/O error.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace dasim
