#include "build_info.hpp"

#include <fstream>
#include <string_view>

namespace parsgd::cli {

std::string ProgramVersion() {
  const std::string_view commit = PARSGD_COMMIT;
  std::string out = "parsgd " PARSGD_VERSION_TEXT;
  if (!commit.empty()) out += " (commit " + std::string(commit) + ")";
  return out;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace parsgd::cli
