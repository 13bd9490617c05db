// Text from a file shown in a message or an output line: its control bytes as \xNN, so that no
// raw control byte reaches a terminal.
#pragma once

#include <string>

namespace parsgd {

inline bool IsControlByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// Appends `c` to `out`, a control byte as \xNN (lower-case hex).
inline void AppendVisible(std::string& out, char c) {
  if (!IsControlByte(c)) {
    out += c;
    return;
  }
  constexpr char kHex[] = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  out.append("\\x").append(1, kHex[u >> 4]).append(1, kHex[u & 15]);
}

}  // namespace parsgd
