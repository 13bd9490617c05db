#include "parsgd/util/memory_limit.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace parsgd {
namespace {

constexpr uint64_t kUnlimited = ~uint64_t{0};

// The files that may hold this process's cgroup memory limit: cgroup v2 ("0::/group" in
// /proc/self/cgroup -> memory.max) and v1 ("N:memory:/group" -> memory.limit_in_bytes). Inside a
// container the group path may not exist under /sys/fs/cgroup, so the mount's root is tried too.
std::vector<std::string> CgroupLimitFiles() {
  std::vector<std::string> files = {"/sys/fs/cgroup/memory.max",
                                    "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.find(':');
    const std::size_t second = line.find(':', colon + 1);
    if (colon == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(colon + 1, second - colon - 1);
    const std::string group = line.substr(second + 1);
    if (controllers.empty()) files.push_back("/sys/fs/cgroup" + group + "/memory.max");
    if (controllers == "memory") {
      files.push_back("/sys/fs/cgroup/memory" + group + "/memory.limit_in_bytes");
    }
  }
  return files;
}

uint64_t CgroupLimit() {
  uint64_t limit = kUnlimited;
  for (const std::string& file : CgroupLimitFiles()) {
    std::ifstream in(file);
    uint64_t value = 0;
    if (in >> value) limit = std::min(limit, value);  // "max" (no limit) does not parse
  }
  return limit;
}

}  // namespace

uint64_t UsableMemoryBytes() {
  uint64_t bytes = kUnlimited;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) bytes = static_cast<uint64_t>(pages) * page_size;
  bytes = std::min(bytes, CgroupLimit());
  rlimit address_space{};
  if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    bytes = std::min<uint64_t>(bytes, address_space.rlim_cur);
  }
  return bytes;
}

}  // namespace parsgd
