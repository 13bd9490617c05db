// Prefetching for rows visited in random order: each row's first bytes miss every cache, so the
// loops fetch a row's offsets kOffsetsAhead samples ahead and its entries and target kRowAhead
// samples ahead (distances tuned on the RCV1-shaped set: bench/README.md).
#pragma once

#include <cstdint>
#include <span>

#include "parsgd/data/dataset.hpp"
#include "parsgd/util/prefetch.hpp"

namespace parsgd {

constexpr uint64_t kOffsetsAhead = 32;
constexpr uint64_t kRowAhead = 8;

inline void PrefetchRow(const Dataset& data, const float* targets, uint32_t r) {
  const uint64_t begin = data.offsets()[r];
  const uint64_t end = data.offsets()[r + 1];
  const char* idx = reinterpret_cast<const char*>(data.indices().data() + begin);
  const char* val = reinterpret_cast<const char*>(data.values().data() + begin);
  const uint64_t bytes = (end - begin) * 4;
  for (uint64_t b = 0; b < bytes; b += kCacheLine) {
    Prefetch(idx + b);
    Prefetch(val + b);
  }
  Prefetch(targets + r);
}

// Prefetches for visiting indices[i] now.
inline void PrefetchAhead(const Dataset& data, const float* targets,
                          std::span<const uint32_t> indices, uint64_t i) {
  if (i + kOffsetsAhead < indices.size()) Prefetch(data.offsets().data() + indices[i + kOffsetsAhead]);
  if (i + kRowAhead < indices.size()) PrefetchRow(data, targets, indices[i + kRowAhead]);
}

}  // namespace parsgd
