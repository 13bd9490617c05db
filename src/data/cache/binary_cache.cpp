// ReadBinaryCache: header checks, then the verification pass, then views into the mapping.
#include "parsgd/data/binary_cache.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "data/cache/cache_format.hpp"
#include "data/cache/cache_verify.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using namespace cache_internal;

[[noreturn]] void Refuse(const std::string& path, const std::string& what) {
  throw DataError(path, 0, 0, what);
}

// The layout the header's shape fixes; nullopt for sizes no file can hold.
std::optional<Layout> LayoutOf(const Header& h) {
  return CanonicalLayout(h.rows, h.nnz, (h.flags & kWeighted) != 0, h.record_bytes);
}

bool SameLayout(const Header& h, const Layout& layout) {
  return h.offsets_at == layout.offsets.at && h.indices_at == layout.indices.at &&
         h.values_at == layout.values.at && h.labels_at == layout.labels.at &&
         h.file_size == layout.file_size;
}

// Every check that needs only the header and the file size, in the order that names the most
// likely cause first: foreign, truncated header, version, damaged header, layout, truncated body.
// The layout is canonical, so rows and nnz fix the file size: a header that declares absurd sizes
// is refused here, before anything is allocated or read from them.
// `bytes`: the file's first min(size, kHeaderSize) bytes.
Header ReadHeader(const std::string& path, const char* bytes, uint64_t size) {
  if (size < sizeof(kMagic) || std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0) {
    Refuse(path, "not a parsgd binary cache (the first 8 bytes are not its magic)");
  }
  if (size < kHeaderSize) {
    Refuse(path,
           fmt::format("truncated: {} bytes, shorter than the {}-byte header", size, kHeaderSize));
  }
  Header h;
  std::memcpy(&h, bytes, sizeof(h));
  if (h.version < kFirstVersion || h.version > kVersion) {
    Refuse(path, fmt::format("unsupported binary cache version {}: this build reads versions {} "
                             "to {}",
                             h.version, kFirstVersion, kVersion));
  }
  if (HeaderChecksum(h) != h.header_checksum) {
    Refuse(path, "corrupted: the header checksum does not match");
  }
  if (h.header_size != kHeaderSize) {
    Refuse(path, fmt::format("invalid: header size {}, expected {}", h.header_size, kHeaderSize));
  }
  if (h.features > (uint64_t{1} << 32)) {
    Refuse(path, fmt::format("invalid: {} features, more than 2^32", h.features));
  }
  if (h.zero_based > static_cast<uint64_t>(ZeroBased::kNo)) {
    Refuse(path, fmt::format("invalid: index base {}, expected 0, 1 or 2", h.zero_based));
  }
  if (h.version == kFirstVersion && (h.flags != 0 || h.record_bytes != 0 || h.classes != 0)) {
    Refuse(path, "invalid: version 1's reserved bytes 96-119 are not zero");
  }
  if ((h.flags & ~kKnownFlags) != 0) {
    Refuse(path, fmt::format("invalid: unknown flags {:#x}", h.flags & ~kKnownFlags));
  }
  if (h.classes > kMaxClasses) {
    Refuse(path, fmt::format("invalid: {} classes, more than {}", h.classes, kMaxClasses));
  }
  if ((h.flags & kNamedClasses) != 0 && h.classes == 0) {
    Refuse(path, "invalid: class names flagged for no class");
  }
  const std::optional<Layout> layout = LayoutOf(h);
  if (!layout) {
    Refuse(
        path,
        fmt::format(
            "invalid: {} rows and {} entries{}: more than any file can hold", h.rows, h.nnz,
            h.record_bytes == 0 ? "" : fmt::format(" and a record of {} bytes", h.record_bytes)));
  }
  if (!SameLayout(h, *layout)) {
    Refuse(path, fmt::format("invalid: the section offsets do not match the layout of {} rows "
                             "and {} entries",
                             h.rows, h.nnz));
  }
  if (size < h.file_size) {
    Refuse(path, fmt::format("truncated: the header declares {} bytes ({} rows, {} entries), "
                             "the file has {}",
                             h.file_size, h.rows, h.nnz, size));
  }
  if (size > h.file_size) {
    Refuse(path, fmt::format("corrupted: {} unexpected bytes after the {} the header declares",
                             size - h.file_size, h.file_size));
  }
  return h;
}

Header ReadHeader(const MappedFile& file) {
  return ReadHeader(file.path(), file.chars(), file.size());
}

template <class T>
SharedArray<T> View(const std::shared_ptr<const MappedFile>& file, uint64_t at, uint64_t count) {
  return SharedArray<T>(reinterpret_cast<const T*>(file->chars() + at), count, file);
}

CacheView ViewOf(const MappedFile& file, const Header& h) {
  return {.file = reinterpret_cast<const std::byte*>(file.chars()),
          .file_size = h.file_size,
          .layout = *LayoutOf(h),
          .rows = h.rows,
          .features = h.features,
          .nnz = h.nnz,
          .label_limit = (h.flags & kNamedClasses) != 0 ? h.classes : 0,
          .mapping = &file};
}

// What the rows' arrays do not hold, from the header and the record (verified): the index base,
// the class names, the hashing and the CSV reading, and the rows' weights [first, last) as views.
void AddReading(Dataset::Parts& parts, const std::shared_ptr<const MappedFile>& file,
                const Header& h, uint64_t first, uint64_t last) {
  const Layout layout = *LayoutOf(h);
  parts.zero_based = static_cast<ZeroBased>(h.zero_based);
  if ((h.flags & kWeighted) != 0) {
    parts.weights = View<float>(file, layout.weights.at, h.rows).Slice(first, last - first);
  }
  if (h.record_bytes != 0) {
    Record record =
        ReadRecord(file->chars() + layout.record.at, h.record_bytes,
                   (h.flags & kNamedClasses) != 0 ? h.classes : 0, h.features, file->path());
    parts.class_names = std::move(record.class_names);
    parts.hashing = std::move(record.hashing);
    parts.csv_schema = std::move(record.csv_schema);
    parts.csv_reading = std::move(record.csv_reading);
  }
}

}  // namespace

Dataset ReadBinaryCache(const std::string& path) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  const Header h = ReadHeader(*file);
  const CacheView view = ViewOf(*file, h);
  if (std::optional<std::string> problem = VerifyPayload(view, h.payload_checksum)) {
    Refuse(path, *problem);
  }
  Dataset::Parts parts;
  parts.offsets = View<uint64_t>(file, h.offsets_at, h.rows + 1);
  parts.indices = View<uint32_t>(file, h.indices_at, h.nnz);
  parts.values = View<float>(file, h.values_at, h.nnz);
  parts.labels = View<float>(file, h.labels_at, h.rows);
  parts.features = h.features;
  parts.source = path;
  parts.mapping = file;
  AddReading(parts, file, h, 0, h.rows);
  return Dataset(std::move(parts));
}

Dataset ReadBinaryCacheShard(const std::string& path, Communicator& comm) {
  std::shared_ptr<const MappedFile> file;
  Header h{};
  comm.AgreeOn([&] {  // a file missing or foreign on one host ends every rank
    file = MappedFile::Open(path);
    h = ReadHeader(*file);
  });
  const CacheView view = ViewOf(*file, h);
  // Each rank verifies a share of the blocks; the hashes are summed (each slot has one writer).
  const uint64_t blocks = BlockCount(h.file_size - kHeaderSize);
  const auto [first_block, last_block] = ShardRange(blocks, comm.rank(), comm.size());
  std::vector<uint64_t> hashes(blocks, 0);
  const PartCheck check = VerifyBlocks(view, first_block, last_block, hashes);
  const uint64_t from = kHeaderSize + first_block * kBlockSize;
  const uint64_t to = std::min(h.file_size, kHeaderSize + last_block * kBlockSize);
  file->Release(file->chars() + from, to - from);  // the rows it keeps are copied later
  comm.SumAll(hashes);
  const uint64_t actual = CombineBlockHashes(hashes);
  // The same on every rank, as VerifyPayload orders them: the checksum, the offsets, the entries.
  if (actual != h.payload_checksum) Refuse(path, ChecksumMismatch(h.payload_checksum, actual));
  if (check.offsets) Refuse(path, *check.offsets);
  comm.AgreeOn([&] {
    if (check.blocks) Refuse(path, *check.blocks);
  });
  const auto [first, last] = ShardRange(h.rows, comm.rank(), comm.size());
  const SharedArray<uint64_t> offsets = View<uint64_t>(file, h.offsets_at, h.rows + 1);
  AlignedArray<uint64_t> own(last - first + 1);
  for (uint64_t r = first; r <= last; ++r) own[r - first] = offsets[r] - offsets[first];
  const uint64_t entries = offsets[last] - offsets[first];
  Dataset::Parts parts;
  parts.offsets = SharedArray<uint64_t>(std::move(own));
  parts.indices = View<uint32_t>(file, h.indices_at, h.nnz).Slice(offsets[first], entries);
  parts.values = View<float>(file, h.values_at, h.nnz).Slice(offsets[first], entries);
  parts.labels = View<float>(file, h.labels_at, h.rows).Slice(first, last - first);
  parts.features = h.features;
  parts.source = path;
  parts.mapping = file;
  AddReading(parts, file, h, first, last);
  return Dataset(std::move(parts));
}

CacheShape ReadBinaryCacheShape(const std::string& path) {
  // Read, not mapped: a file larger than the address space this process may use has a header too.
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  char bytes[kHeaderSize] = {};
  in.read(bytes, sizeof(bytes));
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (error) throw Error(path + ": cannot stat: " + error.message());
  const Header h = ReadHeader(path, bytes, size);
  return {h.rows, h.nnz, h.features, h.classes};
}

bool HasBinaryCacheMagic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof(kMagic)];
  return in.read(magic, sizeof(magic)) && std::memcmp(magic, kMagic, sizeof(kMagic)) == 0;
}

}  // namespace parsgd
