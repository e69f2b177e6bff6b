// "Did you mean": the allowed name nearest to a misspelt one. The JSON readers use it for unknown
// keys and enumeration values, the command line for unknown options and subcommands, so a typo
// gets the same answer wherever it is made.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dasim {

// Damerau-Levenshtein distance in its optimal-string-alignment form: the fewest insertions,
// deletions, substitutions and swaps of two adjacent characters that turn `a` into `b` (no
// substring edited twice). A swap counts one, the commonest typo ("ndoes" -> "nodes").
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `typed`, compared case-insensitively, or nullopt when none is close.
// Close: at most 2 edits, or a third of a long name, and never more than half of what was typed
// (so "lr" is not "corrected" to "H"). Ties go to the smaller case-sensitive distance, then to the
// alphabetically first name, so the answer does not depend on the candidates' order.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace dasim
