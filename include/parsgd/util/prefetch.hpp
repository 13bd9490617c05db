// Software prefetch that the optimiser cannot drop. GCC treats __builtin_prefetch as free of side
// effects, so a helper function made only of prefetches is "pure", returns nothing, and its calls
// are deleted as dead code (seen with g++ 12 at -O2 and -O3). An asm volatile statement stays.
#pragma once

#include <cstdint>

#include "parsgd/util/array.hpp"

namespace parsgd {

inline void Prefetch(const void* address) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(address));
#else
  __builtin_prefetch(address);
#endif
}

// Every cache line of [begin, begin + bytes).
inline void PrefetchBytes(const void* begin, uint64_t bytes) {
  if (bytes == 0) return;
  const auto first = reinterpret_cast<uintptr_t>(begin) & ~uintptr_t{kCacheLine - 1};
  const auto last = reinterpret_cast<uintptr_t>(begin) + bytes - 1;
  for (uintptr_t line = first; line <= last; line += kCacheLine) {
    Prefetch(reinterpret_cast<const void*>(line));
  }
}

}  // namespace parsgd
