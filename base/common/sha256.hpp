// SHA-256 (FIPS 180-4) of a byte string or a file, as lowercase hex: results name the calibration
// they were computed with by its content, so a user can check it with `sha256sum FILE`.
#pragma once

#include <string>
#include <string_view>

namespace dasim {

std::string sha256_hex(std::string_view bytes);
// The file's bytes; InputError `FILE: cannot read` when it cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace dasim
