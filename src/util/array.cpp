#include "parsgd/util/array.hpp"

#include <sys/mman.h>

namespace parsgd {

void* AllocateAligned(std::size_t bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t alignment = bytes >= kHugePage ? kHugePage : kCacheLine;
  bytes = (bytes + alignment - 1) / alignment * alignment;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(alignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off, this fails harmlessly.
  if (alignment == kHugePage) ::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

}  // namespace parsgd
