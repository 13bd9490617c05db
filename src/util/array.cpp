#include "parsgd/util/array.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace parsgd {

void* AllocateAligned(std::size_t bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t alignment = bytes >= kHugePage ? kHugePage : kCacheLine;
  if (bytes > SIZE_MAX - alignment) throw std::bad_alloc();  // rounding up would wrap
  bytes = (bytes + alignment - 1) / alignment * alignment;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(alignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off, this fails harmlessly.
  if (alignment == kHugePage) ::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

}  // namespace parsgd
