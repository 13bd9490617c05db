// Internal to the binary cache: checksum and structural verification of a mapped payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cache_format.hpp"

namespace parsgd::cache_internal {

// A whole cache file in memory whose header checks passed (canonical layout, size matches).
struct CacheView {
  const std::byte* file;  // the file's first byte (64-byte aligned)
  uint64_t file_size;
  Layout layout;
  uint64_t rows;
  uint64_t features;
  uint64_t nnz;
};

// The first problem with the payload, or nullopt if it is sound: "corrupted: ..." if the payload
// checksum differs from `expected_checksum`, else "invalid: ..." for the first structural problem
// in file order. Parallel (oneTBB, caller's arena); the answer does not depend on the threads.
std::optional<std::string> VerifyPayload(const CacheView& view, uint64_t expected_checksum);

}  // namespace parsgd::cache_internal
