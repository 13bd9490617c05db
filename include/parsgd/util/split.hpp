// Comma-separated lists as flags and settings give them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parsgd {

// "a,b,c" -> {"a", "b", "c"}; an empty item stays one ("a,,b" has three), "" is {""}.
inline std::vector<std::string> SplitAtCommas(std::string_view list) {
  std::vector<std::string> items;
  for (std::size_t at = 0;;) {
    const std::size_t comma = list.find(',', at);
    items.emplace_back(list.substr(at, comma == std::string_view::npos ? comma : comma - at));
    if (comma == std::string_view::npos) return items;
    at = comma + 1;
  }
}

}  // namespace parsgd
