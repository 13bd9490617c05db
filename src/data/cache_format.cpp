#include "cache_format.hpp"

#include <cstring>

#include "util/xxhash64.hpp"

namespace parsgd::cache_internal {
namespace {

// Sizes past this are refused before any arithmetic can overflow (2^56 bytes is 64 PiB).
constexpr uint64_t kMaxCount = uint64_t{1} << 56;

constexpr uint64_t AlignUp(uint64_t x) { return (x + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

std::optional<Layout> CanonicalLayout(uint64_t rows, uint64_t nnz) {
  if (rows >= kMaxCount || nnz >= kMaxCount) return std::nullopt;
  Layout layout;
  layout.offsets = {kHeaderSize, (rows + 1) * sizeof(uint64_t)};
  layout.indices = {AlignUp(layout.offsets.at + layout.offsets.bytes), nnz * sizeof(uint32_t)};
  layout.values = {AlignUp(layout.indices.at + layout.indices.bytes), nnz * sizeof(float)};
  layout.labels = {AlignUp(layout.values.at + layout.values.bytes), rows * sizeof(float)};
  layout.file_size = AlignUp(layout.labels.at + layout.labels.bytes);
  return layout;
}

uint64_t BlockHash(std::span<const std::byte> block) {
  return Xxh64(block.data(), block.size(), 0);
}

uint64_t CombineBlockHashes(const std::vector<uint64_t>& block_hashes) {
  // The host is little-endian (static_assert in the header), so the array is the byte sequence.
  return Xxh64(block_hashes.data(), block_hashes.size() * sizeof(uint64_t), 0);
}

uint64_t HeaderChecksum(const Header& header) {
  unsigned char bytes[kHeaderChecksummed];
  std::memcpy(bytes, &header, kHeaderChecksummed);
  return Xxh64(bytes, kHeaderChecksummed, 0);
}

Header MakeHeader(uint64_t rows, uint64_t features, uint64_t nnz, uint64_t zero_based,
                  const Layout& layout, uint64_t payload_checksum) {
  Header h{};  // reserved bytes zero
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.header_size = kHeaderSize;
  h.rows = rows;
  h.features = features;
  h.nnz = nnz;
  h.offsets_at = layout.offsets.at;
  h.indices_at = layout.indices.at;
  h.values_at = layout.values.at;
  h.labels_at = layout.labels.at;
  h.file_size = layout.file_size;
  h.payload_checksum = payload_checksum;
  h.zero_based = zero_based;
  h.header_checksum = HeaderChecksum(h);
  return h;
}

}  // namespace parsgd::cache_internal
