// Internal to the binary cache: the on-disk header, the canonical layout and the checksums.
// The format itself is documented in include/parsgd/data/binary_cache.hpp.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace parsgd::cache_internal {

static_assert(std::endian::native == std::endian::little,
              "the binary cache is little-endian and is read in place");

inline constexpr unsigned char kMagic[8] = {0x89, 'P', 'S', 'G', 'D', '\r', '\n', 0x1A};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kHeaderSize = 128;
inline constexpr uint64_t kAlignment = 64;
inline constexpr uint64_t kBlockSize = uint64_t{256} << 10;  // checksum block: stays in L2
inline constexpr std::size_t kHeaderChecksummed = 120;       // bytes covered by header_checksum

// Exactly the first 128 bytes of the file.
struct Header {
  unsigned char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t rows;
  uint64_t features;
  uint64_t nnz;
  uint64_t offsets_at;
  uint64_t indices_at;
  uint64_t values_at;
  uint64_t labels_at;
  uint64_t file_size;
  uint64_t payload_checksum;
  uint64_t zero_based;  // the Dataset's zero_based(): 0 kAuto, 1 kYes, 2 kNo
  uint64_t reserved[3];
  uint64_t header_checksum;
};
static_assert(sizeof(Header) == kHeaderSize);

struct Section {
  uint64_t at;     // byte offset in the file, a multiple of 64
  uint64_t bytes;  // length without padding
};

struct Layout {
  Section offsets, indices, values, labels;  // in file order
  uint64_t file_size;
};

// The canonical layout for rows and nnz; nullopt if the sizes cannot be represented (overflow).
std::optional<Layout> CanonicalLayout(uint64_t rows, uint64_t nnz);

// Number of checksum blocks in a payload of `payload_bytes`.
inline uint64_t BlockCount(uint64_t payload_bytes) {
  return (payload_bytes + kBlockSize - 1) / kBlockSize;
}

// XXH64 of one block of bytes.
uint64_t BlockHash(std::span<const std::byte> block);

// The payload checksum from the block hashes in order.
uint64_t CombineBlockHashes(const std::vector<uint64_t>& block_hashes);

// header_checksum for `header` (its first 120 bytes).
uint64_t HeaderChecksum(const Header& header);

// The header of a cache of this shape and layout (reserved bytes zero, both checksums set).
// `zero_based`: the Dataset's zero_based() as a number (0 kAuto, 1 kYes, 2 kNo).
Header MakeHeader(uint64_t rows, uint64_t features, uint64_t nnz, uint64_t zero_based,
                  const Layout& layout, uint64_t payload_checksum);

}  // namespace parsgd::cache_internal
