// WriteBinaryCache: the checksum pass, then the header and the sections in file order.
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "data/cache/cache_format.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

using namespace cache_internal;

// A section of the file and the memory that holds its bytes.
struct Source {
  Section section;
  const void* data;
};
using Sources = std::array<Source, 6>;

// File bytes [from, from + size) into dst: section bytes where a section lies, zeros elsewhere.
void CopyFileRange(const Sources& sources, uint64_t from, uint64_t size, std::byte* dst) {
  std::memset(dst, 0, size);
  for (const Source& s : sources) {
    const uint64_t lo = std::max(from, s.section.at);
    const uint64_t hi = std::min(from + size, s.section.at + s.section.bytes);
    if (lo < hi) {
      std::memcpy(dst + (lo - from), static_cast<const std::byte*>(s.data) + (lo - s.section.at),
                  hi - lo);
    }
  }
}

// Each block is assembled in a per-thread buffer and hashed; block hashes combine in order.
uint64_t PayloadChecksum(const Sources& sources, uint64_t file_size) {
  std::vector<uint64_t> hashes(BlockCount(file_size - kHeaderSize));
  tbb::enumerable_thread_specific<std::vector<std::byte>> buffers(
      [] { return std::vector<std::byte>(kBlockSize); });
  tbb::parallel_for(uint64_t{0}, static_cast<uint64_t>(hashes.size()), [&](uint64_t b) {
    std::vector<std::byte>& buffer = buffers.local();
    const uint64_t from = kHeaderSize + b * kBlockSize;
    const uint64_t size = std::min(kBlockSize, file_size - from);
    CopyFileRange(sources, from, size, buffer.data());
    hashes[b] = BlockHash({buffer.data(), size});
  });
  return CombineBlockHashes(hashes);
}

// Zero bytes up to `to` (less than one alignment unit).
void PadTo(AtomicFileWriter& out, uint64_t& position, uint64_t to) {
  static constexpr std::byte kZeros[kAlignment] = {};
  out.Write(kZeros, to - position);
  position = to;
}

}  // namespace

void WriteBinaryCache(const Dataset& data, const std::string& path) {
  if (data.offsets().size() != data.rows() + 1) {
    throw Error(path + ": the dataset has no row offsets (a default-constructed Dataset)");
  }
  if (data.csv_schema() && !data.csv_schema()->centres.empty()) {
    // A cache holds a table's rows as its text has them: centring is training's.
    throw Error(path + ": the rows' number columns are centred; a binary cache holds them as read");
  }
  const bool weighted = !data.weights().empty();
  const std::string record =
      RecordBytes({data.class_names(), data.hashing(), data.csv_schema(), data.csv_reading()});
  const std::optional<Layout> layout =
      CanonicalLayout(data.rows(), data.nnz(), weighted, record.size());
  if (!layout) throw Error(path + ": dataset too large for the binary cache");
  const Sources sources = {Source{layout->offsets, data.offsets().data()},
                           Source{layout->indices, data.indices().data()},
                           Source{layout->values, data.values().data()},
                           Source{layout->labels, data.labels().data()},
                           Source{layout->weights, data.weights().data()},
                           Source{layout->record, record.data()}};
  AtomicFileWriter out(path);  // fails early if the folder is not writable
  Extras extras{
      .flags = (weighted ? kWeighted : 0) | (data.class_names().empty() ? 0 : kNamedClasses),
      .record_bytes = record.size()};
  if (data.class_names().empty()) {
    LabelSet labels;
    labels.Add(data.labels().data(), data.rows());
    extras.classes = labels.classes();
  } else {
    extras.classes = data.class_names().size();
  }
  const Header header =
      MakeHeader(data.rows(), data.features(), data.nnz(), static_cast<uint64_t>(data.zero_based()),
                 *layout, PayloadChecksum(sources, layout->file_size), extras);
  out.Write(&header, sizeof(header));
  uint64_t position = sizeof(header);
  for (const Source& s : sources) {
    PadTo(out, position, s.section.at);
    if (s.section.bytes > 0) out.Write(s.data, s.section.bytes);
    position += s.section.bytes;
  }
  PadTo(out, position, layout->file_size);
  out.Commit();
}

}  // namespace parsgd
