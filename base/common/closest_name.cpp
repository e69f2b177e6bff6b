#include "common/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace dasim {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// How many edits still make a suggestion for a name of `typed_size` characters.
size_t close_limit(size_t typed_size) {
  return std::min(std::max<size_t>(2, typed_size / 3), typed_size / 2);
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows of the dynamic programme (the swap looks two rows back): memory is linear
  // in |b| however long a key a user (or a fuzzer) typed.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string typed_lower = lowercase(typed);
  const size_t limit = close_limit(typed.size());
  std::optional<std::tuple<size_t, size_t, std::string>> best;  // (distance, case-sensitive, name)
  for (const auto& name : candidates) {
    // Lengths further apart than the limit cannot be close: skips the quadratic work for a long
    // string compared with short names.
    const size_t gap = name.size() > typed.size() ? name.size() - typed.size() : typed.size() - name.size();
    if (gap > limit) continue;
    const size_t distance = edit_distance(typed_lower, lowercase(name));
    if (distance > limit) continue;
    std::tuple<size_t, size_t, std::string> ranked{distance, edit_distance(typed, name), name};
    if (!best || ranked < *best) best = std::move(ranked);
  }
  if (!best) return std::nullopt;
  return std::get<2>(*best);
}

}  // namespace dasim
