// One name list per enum: parsing, printing and the "expected one of" lists of error messages all
// come from the same table, so a name added or renamed in one place is right everywhere.
// An entry may be an alias: it parses but is never printed or listed (old spellings kept working).
#pragma once

#include "common/errors.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dasim {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
  bool alias = false;
};

template <class E, size_t N>
struct EnumNames {
  std::array<EnumName<E>, N> entries;

  // The canonical name of `value`.
  constexpr std::string_view name(E value) const {
    for (const auto& e : entries)
      if (!e.alias && e.value == value) return e.name;
    return "?";
  }
  // `text` as a value, aliases included; nullopt for an unknown name.
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& e : entries)
      if (e.name == text) return e.value;
    return std::nullopt;
  }
  // The canonical names in table order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries)
      if (!e.alias) out.emplace_back(e.name);
    return out;
  }
  // "a, b, c" for "expected one of a, b, c".
  std::string listed() const { return fmt::format("{}", fmt::join(names(), ", ")); }
};

// `text` as a value of `names`, or an InputError "expected one of a, b, got "x"": at `file`:
// `json_path` where a file gave it, or at the command-line `flag` when `file` is empty.
template <class E, size_t N>
E parse_named(const EnumNames<E, N>& names, const std::string& text, const std::string& flag,
              const std::string& file, const std::string& json_path) {
  if (auto value = names.parse(text)) return *value;
  throw InputError(file.empty() ? flag : file, json_path,
                   "expected one of " + names.listed() + ", got \"" + text + "\"");
}

}  // namespace dasim
