// Name tables for the enums of the four axes: each choice is declared once, with its name and a
// one-line help, and the command line, the help text, the metrics and the experiment runner all
// read the same table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace parsgd {

template <class Enum>
struct Named {
  Enum value;
  const char* name;
  const char* help;
};

template <class Enum>
std::optional<Enum> FindByName(std::span<const Named<Enum>> table, std::string_view name) {
  for (const auto& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

template <class Enum>
const char* NameOf(std::span<const Named<Enum>> table, Enum value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// "a|b|c": the names of a table, for messages and help.
template <class Enum>
std::string JoinNames(std::span<const Named<Enum>> table, std::string_view separator = "|") {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += separator;
    out += entry.name;
  }
  return out;
}

}  // namespace parsgd
