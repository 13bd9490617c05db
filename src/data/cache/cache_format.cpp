#include "data/cache/cache_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>

#include "io/csv_record.hpp"
#include "io/reading_fields.hpp"
#include "parsgd/util/error.hpp"
#include "util/xxhash64.hpp"

namespace parsgd::cache_internal {
namespace {

// Sizes past this are refused before any arithmetic can overflow (2^56 bytes is 64 PiB).
constexpr uint64_t kMaxCount = uint64_t{1} << 56;

constexpr uint64_t AlignUp(uint64_t x) { return (x + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

std::optional<Layout> CanonicalLayout(uint64_t rows, uint64_t nnz, bool weighted,
                                      uint64_t record_bytes) {
  if (rows >= kMaxCount || nnz >= kMaxCount || record_bytes > kMaxRecordBytes) return std::nullopt;
  Layout layout;
  layout.offsets = {kHeaderSize, (rows + 1) * sizeof(uint64_t)};
  layout.indices = {AlignUp(layout.offsets.at + layout.offsets.bytes), nnz * sizeof(uint32_t)};
  layout.values = {AlignUp(layout.indices.at + layout.indices.bytes), nnz * sizeof(float)};
  layout.labels = {AlignUp(layout.values.at + layout.values.bytes), rows * sizeof(float)};
  layout.weights = {AlignUp(layout.labels.at + layout.labels.bytes),
                    weighted ? rows * sizeof(float) : 0};
  layout.record = {AlignUp(layout.weights.at + layout.weights.bytes), record_bytes};
  layout.file_size = AlignUp(layout.record.at + layout.record.bytes);
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
                  const Layout& layout, uint64_t payload_checksum, const Extras& extras) {
  Header h{};
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
  h.flags = extras.flags;
  h.record_bytes = extras.record_bytes;
  h.classes = extras.classes;
  h.header_checksum = HeaderChecksum(h);
  return h;
}

void LabelSet::Add(float label) {
  const uint32_t bits = std::bit_cast<uint32_t>(label == 0.f ? 0.f : label);
  if (over_ || (bits == last_ && !seen_.empty())) return;  // runs of one label: one lookup
  last_ = bits;
  seen_.insert(bits);
  if (seen_.size() > kMaxClasses) {
    over_ = true;
    seen_ = {};
  }
}

std::string RecordBytes(const Record& record) {
  if (record.class_names.empty() && !record.hashing && !record.csv_schema) return {};
  std::string out;
  io_internal::PutField<uint32_t>(out, static_cast<uint32_t>(record.class_names.size()));
  io_internal::PutNames(out, record.class_names);
  io_internal::PutHashing(out, record.hashing);
  const CsvReading& csv = record.csv_reading;
  io_internal::PutCsvRecord(out, record.csv_schema.get(), csv.weight_column, csv.missing);
  if (record.csv_schema) io_internal::PutNames(out, {csv.label_column});
  return out;
}

Record ReadRecord(const char* data, uint64_t size, uint64_t classes, uint64_t features,
                  const std::string& path) {
  Record record;
  try {
    io_internal::FieldReader in(data, size, path, "record");
    const auto names = in.Get<uint32_t>("class name count");
    if (names != 0 && names != classes) {
      throw DataError(path, 0, 0, fmt::format("{} class names for {} classes", names, classes));
    }
    record.class_names = io_internal::ReadNames(in, names, path);
    if (std::adjacent_find(record.class_names.begin(), record.class_names.end(),
                           std::greater_equal<>()) != record.class_names.end()) {
      throw DataError(path, 0, 0, "the class names are not in ascending order");
    }
    record.hashing = io_internal::ReadHashing(in, path);
    if (in.left() != 0) {
      CsvReading& csv = record.csv_reading;
      io_internal::ReadCsvRecord(in, record.csv_schema, csv.weight_column, csv.missing, path);
      if (record.csv_schema) {
        csv.label_column = io_internal::ReadNames(in, 1, path).front();
        if (record.csv_schema->Features() > features) {
          throw DataError(path, 0, 0,
                          fmt::format("the CSV columns make {} features, more than the {} of the "
                                      "header",
                                      record.csv_schema->Features(), features));
        }
      }
    }
    if (in.left() != 0) {
      throw DataError(path, 0, 0, fmt::format("{} bytes after its last field", in.left()));
    }
  } catch (const DataError& e) {
    std::string what = e.what();
    if (what.starts_with(path + ": ")) what.erase(0, path.size() + 2);
    throw DataError(path, 0, 0, "invalid: the record: " + what);
  }
  return record;
}

std::vector<float> LabelSet::values() const {
  std::vector<float> out;
  out.reserve(seen_.size());
  for (uint32_t bits : seen_) out.push_back(std::bit_cast<float>(bits));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace parsgd::cache_internal
