// How much memory this process can hope to use: the bound against which sizes taken from input
// files (a feature count, a class count) are checked before anything of that size is allocated.
#pragma once

#include <cstdint>

namespace parsgd {

// The smallest of: the machine's physical memory, the cgroup v2 limit of this process's group
// (memory.max, when readable and not "max") and the address-space limit (RLIMIT_AS). Swap is not
// counted. Reads /proc and /sys once per call; thread-safe.
uint64_t UsableMemoryBytes();

}  // namespace parsgd
