// Internal to the binary cache: the on-disk header, the canonical layout and the checksums.
// The format itself is documented in include/parsgd/data/binary_cache.hpp.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "parsgd/data/csv_schema.hpp"
#include "parsgd/data/hashing.hpp"

namespace parsgd::cache_internal {

static_assert(std::endian::native == std::endian::little,
              "the binary cache is little-endian and is read in place");

inline constexpr unsigned char kMagic[8] = {0x89, 'P', 'S', 'G', 'D', '\r', '\n', 0x1A};
inline constexpr uint32_t kVersion = 2;
inline constexpr uint32_t kFirstVersion = 1;  // still read: no weights, record or label set
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
  // Version 2 (zero in version 1):
  uint64_t flags;         // kWeighted | kNamedClasses
  uint64_t record_bytes;  // the record's length (0: none)
  uint64_t classes;       // distinct labels, where at most kMaxClasses; 0 where more
  uint64_t header_checksum;
};
static_assert(sizeof(Header) == kHeaderSize);

inline constexpr uint64_t kWeighted = 1;      // a weights section follows the labels
inline constexpr uint64_t kNamedClasses = 2;  // labels are indices of the record's class names
inline constexpr uint64_t kKnownFlags = kWeighted | kNamedClasses;
inline constexpr uint64_t kMaxClasses = uint64_t{1} << 16;  // the most classes a model may have
inline constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;

struct Section {
  uint64_t at;     // byte offset in the file, a multiple of 64
  uint64_t bytes;  // length without padding
};

struct Layout {
  Section offsets, indices, values, labels, weights, record;  // in file order; the last two may
                                                              // be empty (bytes 0)
  uint64_t file_size;
};

// The canonical layout for rows and nnz, with a weights section or not and a record of
// `record_bytes`; nullopt if the sizes cannot be represented (overflow).
std::optional<Layout> CanonicalLayout(uint64_t rows, uint64_t nnz, bool weighted = false,
                                      uint64_t record_bytes = 0);

// What version 2 adds to the header: the flags, the record's length and the label set's size.
struct Extras {
  uint64_t flags = 0;
  uint64_t record_bytes = 0;
  uint64_t classes = 0;
};

// Counts distinct labels up to kMaxClasses (+0 and -0 one label); past that, classes() is 0.
class LabelSet {
 public:
  void Add(float label);
  void Add(const float* labels, uint64_t n) {
    for (uint64_t i = 0; i < n && !over_; ++i) Add(labels[i]);
  }
  uint64_t classes() const { return over_ ? 0 : seen_.size(); }
  bool over() const { return over_; }  // more than kMaxClasses labels
  // The labels counted, ascending (empty past kMaxClasses).
  std::vector<float> values() const;

 private:
  std::unordered_set<uint32_t> seen_;  // the labels' bits
  uint32_t last_ = 0;                  // the last label added
  bool over_ = false;
};

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

// The header of a cache of this shape and layout (both checksums set).
// `zero_based`: the Dataset's zero_based() as a number (0 kAuto, 1 kYes, 2 kNo).
Header MakeHeader(uint64_t rows, uint64_t features, uint64_t nnz, uint64_t zero_based,
                  const Layout& layout, uint64_t payload_checksum, const Extras& extras);

// The record: what the text the rows came from says beyond them. 4 bytes N (uint32), the class
// names' count (0: the labels are numbers), N names (4 bytes of length, at most 4096, and the
// bytes; strictly ascending), the hashing field of model files (io/reading_fields.hpp), then the
// CSV record of model files (io/csv_record.hpp; 4 bytes 0: not CSV text) and, where it holds a
// schema, the label column as given (4 bytes of length, at most 4096, and its bytes). A record
// that ends after the hashing field has no CSV record.
struct Record {
  std::vector<std::string> class_names;
  std::optional<TextHashing> hashing;
  std::shared_ptr<const CsvSchema> csv_schema = nullptr;
  CsvReading csv_reading = {};  // with csv_schema
};
// The record's bytes; empty where it says nothing (no names, no hashing, no CSV schema). Throws
// parsgd::Error for a name, interactions text, column name or value past the limit.
std::string RecordBytes(const Record& record);
// The record in [data, data + size); throws DataError naming `path` ("invalid: the record ...")
// for one that does not parse to the end, names out of order, a count other than `classes`, or a
// schema of more features than `features`.
Record ReadRecord(const char* data, uint64_t size, uint64_t classes, uint64_t features,
                  const std::string& path);

}  // namespace parsgd::cache_internal
