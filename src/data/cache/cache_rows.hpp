// Internal to the streaming converts (binary_cache_stream.cpp, csv_stream.cpp, idx.cpp): a text
// read in pieces of whole lines, parsed in parallel (or IDX images read a few MiB at a time), its
// rows spilled in text order to unnamed temporary
// files (row ends, raw indices, values, labels, class-name ids, weights), then the binary cache
// written from the spills twice over: once to checksum its blocks, once after the header that
// holds the checksum. The spill is there because the cache's sections come in an order (offsets,
// indices, values, labels, weights) whose sizes are known only at the end, and the index base and
// the class names' order only once every line is read. What is held besides a few pieces: the
// class names met (at most 65,536) and the distinct numeric labels (counted up to 65,536).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/cache/cache_format.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd::data_internal {

class ByteStream;

constexpr std::size_t kCopyBytes = std::size_t{1} << 20;  // the spills' buffers

// An unnamed temporary file in `folder`: removed from the folder at once, gone when closed or when
// the process ends, however it ends.
class Spill {
 public:
  explicit Spill(const std::string& folder);
  ~Spill();
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;

  template <class T>
  void Append(const std::vector<T>& items) {
    const auto* p = reinterpret_cast<const char*>(items.data());
    std::size_t left = items.size() * sizeof(T);
    while (left > 0) {
      const std::size_t n = std::min(left, kCopyBytes - buffer_.size());
      buffer_.insert(buffer_.end(), p, p + n);
      p += n;
      left -= n;
      if (buffer_.size() == kCopyBytes) Flush();
    }
  }

  // `size` bytes from byte `at` of what was appended (flushed first) into dst.
  void ReadAt(uint64_t at, void* dst, std::size_t size);

  // Every byte appended, in pieces of at most kCopyBytes, to each(bytes, size).
  void ReadBack(const std::function<void(const char*, std::size_t)>& each);

  // A path that opens what was appended (flushed first), as long as the spill lives:
  // /proc/self/fd/N.
  std::string Reread();

 private:
  void Flush();

  int fd_ = -1;
  uint64_t size_ = 0;
  std::vector<char> buffer_;
};

// Class names met in the text, in the order met (bounded: at most kMaxLabelTexts + 1 of them).
class Names {
 public:
  uint32_t Id(const std::string& text, const std::string& where);
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> texts_;
};

// The text's rows as they are parsed: counts, the index base's evidence, the label set, the
// spills.
class CacheRows {
 public:
  CacheRows(const std::string& folder, bool weighted)
      : weighted_(weighted),
        ends_(folder),
        indices_(folder),
        values_(folder),
        labels_(folder),
        label_ids_(folder),
        weights_(folder) {}

  // A chunk of `name` in text order (without an error): its rows spilled; freed after.
  void Take(Chunk& chunk, const std::string& name);

  // Once every row is taken: the class names (empty where every label is a number), sorted, as
  // the in-memory readers name them (text_chunks.hpp, NameClasses), and each label's place among
  // them.
  void NameClasses(const std::string& name);

  // The cache's payload (the file after the header) to sink(bytes, size), in file order.
  void Emit(const cache_internal::Layout& layout, uint32_t index_offset, const std::string& record,
            const std::function<void(const char*, std::size_t)>& sink);

  uint64_t rows() const { return rows_; }
  uint64_t nnz() const { return nnz_; }
  bool has_zero() const { return has_zero_; }
  uint64_t largest() const { return largest_; }
  // Whether the rows keep their weights: some weight is not 1 (as Assemble decides).
  bool weighted() const { return weighted_ && !all_one_; }
  const std::vector<std::string>& class_names() const { return class_names_; }
  // The label set's size (cache_format.hpp, Header::classes).
  uint64_t classes() const {
    return class_names_.empty() ? numbers_.classes() : class_names_.size();
  }

 private:
  bool weighted_;
  uint64_t rows_ = 0, nnz_ = 0, largest_ = 0;
  bool has_zero_ = false, all_one_ = true;
  Names names_;
  cache_internal::LabelSet numbers_;  // the labels that are numbers
  std::vector<std::string> class_names_;
  std::vector<float> text_place_;                     // a name met's place among class_names_
  std::unordered_map<uint32_t, float> number_place_;  // a number's (its bits) place
  Spill ends_, indices_, values_, labels_, label_ids_, weights_;
};

// What StreamFile read: whether the text held anything, and its rows.
struct Streamed {
  bool any_text = false;
  uint64_t rows = 0;
};

// One file's text (`in`, `head` what was read of it first; `first_line` the line it starts at) in
// text order to take(chunk), each piece of about `step` bytes parsed by `parse`, a few batches of
// pieces in memory at a time; a chunk's error thrown as "name:line:column: ...". Throws the
// stream's errors (a gzip stream cut short, named by `name`).
Streamed StreamFile(ByteStream& in, std::string head, const std::string& name, uint64_t first_line,
                    const std::function<void(std::string_view, Chunk*)>& parse, std::size_t step,
                    const std::function<void(Chunk&)>& take);

// The cache of `rows` at `path` (through `out`, committed): the checksum pass over the spills,
// then the header and the payload; `record` holds what the rows' text records beyond the class
// names (the hashing, a CSV table's reading). Returns its shape.
CacheShape WriteCache(CacheRows& rows, uint64_t features, ZeroBased zero_based,
                      uint32_t index_offset, cache_internal::Record record, AtomicFileWriter& out,
                      const std::string& path);

}  // namespace parsgd::data_internal
