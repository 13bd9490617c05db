// Internal to the binary cache: checksum and structural verification of a mapped payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/cache/cache_format.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd::cache_internal {

// A whole cache file in memory whose header checks passed (canonical layout, size matches).
struct CacheView {
  const std::byte* file;  // the file's first byte (64-byte aligned)
  uint64_t file_size;
  Layout layout;
  uint64_t rows;
  uint64_t features;
  uint64_t nnz;
  // Where the labels are indices of class names: their count (each label an integer below it);
  // 0 otherwise.
  uint64_t label_limit = 0;
  // The mapping `file` lies in, if any: each part's pages are given back once verified, so that
  // verifying a file holds a few blocks of it, not all of it.
  const MappedFile* mapping = nullptr;
};

// The first problem with the payload, or nullopt if it is sound: "corrupted: ..." if the payload
// checksum differs from `expected_checksum`, else "invalid: ..." for the first structural problem
// in file order. Parallel (oneTBB, caller's arena); the answer does not depend on the threads.
std::optional<std::string> VerifyPayload(const CacheView& view, uint64_t expected_checksum);

// VerifyPayload in parts, for ranks that each read a part of the file: the row offsets in full,
// then payload blocks [first, last) of BlockCount(payload bytes): their hashes into
// hashes[first, last) (hashes has a slot per block) and the first problem among them.
struct PartCheck {
  std::optional<std::string> offsets;  // the row offsets' problem (the same for every part)
  std::optional<std::string> blocks;   // the first problem of the part's blocks, in file order
};
PartCheck VerifyBlocks(const CacheView& view, uint64_t first, uint64_t last,
                       std::vector<uint64_t>& hashes);
// The message for a payload whose block hashes combine to `actual`, not `expected`.
std::string ChecksumMismatch(uint64_t expected, uint64_t actual);

}  // namespace parsgd::cache_internal
