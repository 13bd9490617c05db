#include "parsgd/util/array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>

namespace parsgd {
namespace {

// A size whose byte count wraps around 2^64 (2^61 uint64_t are 2^64 bytes, i.e. 0) must fail, not
// become a small block that the caller then fills with 2^61 elements.
TEST(AlignedArray, ASizeWhoseByteCountWrapsIsBadAlloc) {
  EXPECT_THROW(AlignedArray<uint64_t>((SIZE_MAX >> 3) + 1), std::bad_alloc);
  EXPECT_THROW(AlignedArray<float>(SIZE_MAX / 2), std::bad_alloc);
  EXPECT_THROW(AllocateAligned(SIZE_MAX - 8), std::bad_alloc);  // rounding up to 2 MiB would wrap
}

TEST(AlignedArray, ZeroedArraysAreZeroAndCacheLineAligned) {
  const AlignedArray<float> a = AlignedArray<float>::Zeroed(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kCacheLine, 0u);
  for (float v : a) EXPECT_EQ(v, 0.f);
}

}  // namespace
}  // namespace parsgd
