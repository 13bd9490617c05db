// Software prefetch that the optimiser cannot drop. GCC treats __builtin_prefetch as free of side
// effects, so a helper function made only of prefetches is "pure", returns nothing, and its calls
// are deleted as dead code (seen with g++ 12 at -O2 and -O3). An asm volatile statement stays.
#pragma once

namespace parsgd {

inline void Prefetch(const void* address) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(address));
#else
  __builtin_prefetch(address);
#endif
}

}  // namespace parsgd
