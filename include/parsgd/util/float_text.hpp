// The text of a float as labels are written back: the shortest that reads back as the same float
// ("1" for 1.0f and +1, "0.5", "1e+20").
#pragma once

#include <charconv>
#include <string>

namespace parsgd {

inline std::string ShortestText(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
  return std::string(text, end);
}

}  // namespace parsgd
