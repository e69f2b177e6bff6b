// Lists written as one string with a separator ("ring/simple+tree/ll", "sha+sha"): the pieces back.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace dasim {

// The pieces of `joined` between `separator`s, in order (none for an empty string).
inline std::vector<std::string> split_joined(std::string_view joined, char separator) {
  std::vector<std::string> pieces;
  for (size_t begin = 0, end; begin < joined.size(); begin = end + 1) {
    end = std::min(joined.find(separator, begin), joined.size());
    pieces.emplace_back(joined.substr(begin, end - begin));
  }
  return pieces;
}

}  // namespace dasim
