// ConvertLibsvmToCache: LIBSVM text to a binary cache in one pass over the text with bounded
// memory. The text is read in pieces of whole lines, a batch of pieces parsed in parallel while
// this thread reads the next batch; each parsed chunk's rows go, in text order, to four unnamed
// temporary files in the output's folder (row ends, raw indices, values, labels), and the chunk is
// freed. One pass because a stream (gzip, standard input) cannot be read twice; the spill because
// the cache's sections come in an order (offsets, indices, values, labels) whose sizes are known
// only at the end, and the index base (a one-based file's indices are stored minus 1) only once
// every line is read. The cache is then written from the spills twice over: once to checksum its
// blocks, once after the header that holds the checksum.
#include <fcntl.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "byte_stream.hpp"
#include "cache_format.hpp"
#include "libsvm_chunk.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "text_chunks.hpp"

namespace parsgd {
namespace {

using namespace cache_internal;
using data_internal::Chunk;

constexpr std::size_t kCopyBytes = std::size_t{1} << 20;  // the spills' buffers

// An unnamed temporary file in `folder`: removed from the folder at once, gone when closed or when
// the process ends, however it ends.
class Spill {
 public:
  explicit Spill(const std::string& folder) {
    std::string name = folder + "/.parsgd-convert-XXXXXX";
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) {
      throw Error(folder + ": cannot create a temporary file: " + std::strerror(errno));
    }
    ::unlink(name.c_str());
    buffer_.reserve(kCopyBytes);
  }
  ~Spill() { ::close(fd_); }
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

  // Every byte appended, in pieces of at most kCopyBytes, to each(bytes, size).
  void ReadBack(const std::function<void(const char*, std::size_t)>& each) {
    Flush();
    std::vector<char> piece(kCopyBytes);
    for (uint64_t at = 0; at < size_;) {
      const ssize_t n = ::pread(fd_, piece.data(), std::min<uint64_t>(kCopyBytes, size_ - at),
                                static_cast<off_t>(at));
      if (n <= 0) throw Error(std::string("cannot read a temporary file: ") + std::strerror(errno));
      each(piece.data(), static_cast<std::size_t>(n));
      at += static_cast<uint64_t>(n);
    }
  }

 private:
  void Flush() {
    for (std::size_t done = 0; done < buffer_.size();) {
      const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw Error(std::string("cannot write a temporary file (is the disk full?): ") +
                    std::strerror(errno));
      }
      done += static_cast<std::size_t>(n);
    }
    size_ += buffer_.size();
    buffer_.clear();
  }

  int fd_ = -1;
  uint64_t size_ = 0;
  std::vector<char> buffer_;
};

// The text's rows as they are parsed: counts, the index base's evidence, the spills.
class Rows {
 public:
  explicit Rows(const std::string& folder)
      : ends_(folder), indices_(folder), values_(folder), labels_(folder) {}

  // The chunks that follow are `name`'s, from its first line.
  void StartFile(std::string name) {
    name_ = std::move(name);
    line_ = 1;
  }

  // A chunk in text order: its first error thrown by line, else its rows spilled; freed after.
  void Take(Chunk& chunk) {
    if (chunk.error) {
      throw DataError(name_, line_ + chunk.error->line, chunk.error->column, chunk.error->message);
    }
    line_ += chunk.lines;
    has_zero_ |= chunk.has_zero;
    largest_ = std::max(largest_, chunk.max_index);
    for (uint64_t& end : chunk.row_ends) end += nnz_;
    ends_.Append(chunk.row_ends);
    indices_.Append(chunk.indices);
    values_.Append(chunk.values);
    labels_.Append(chunk.labels);
    rows_ += chunk.labels.size();
    nnz_ += chunk.indices.size();
    chunk = Chunk();
  }

  // The cache's payload (the file after the header) to sink(bytes, size), in file order.
  void Emit(const Layout& layout, uint32_t index_offset,
            const std::function<void(const char*, std::size_t)>& sink) {
    uint64_t position = kHeaderSize;
    const std::vector<char> zeros(kAlignment, 0);
    auto pad_to = [&](uint64_t at) {
      sink(zeros.data(), at - position);
      position = at;
    };
    auto copy = [&](const char* p, std::size_t n) {
      sink(p, n);
      position += n;
    };
    pad_to(layout.offsets.at);
    const uint64_t zero = 0;
    copy(reinterpret_cast<const char*>(&zero), sizeof(zero));
    ends_.ReadBack(copy);
    pad_to(layout.indices.at);
    std::vector<uint32_t> shifted;
    indices_.ReadBack([&](const char* p, std::size_t n) {
      shifted.resize(n / sizeof(uint32_t));
      std::memcpy(shifted.data(), p, n);
      for (uint32_t& index : shifted) index -= index_offset;
      copy(reinterpret_cast<const char*>(shifted.data()), n);
    });
    pad_to(layout.values.at);
    values_.ReadBack(copy);
    pad_to(layout.labels.at);
    labels_.ReadBack(copy);
    pad_to(layout.file_size);
  }

  uint64_t rows() const { return rows_; }
  uint64_t nnz() const { return nnz_; }
  bool has_zero() const { return has_zero_; }
  uint64_t largest() const { return largest_; }

 private:
  std::string name_;
  uint64_t line_ = 1;  // the first line of the next chunk
  uint64_t rows_ = 0, nnz_ = 0, largest_ = 0;
  bool has_zero_ = false;
  Spill ends_, indices_, values_, labels_;
};

// Up to `count` pieces of whole lines from `pieces`.
std::vector<std::string> NextPieces(data_internal::LinePieces& pieces, std::size_t count) {
  std::vector<std::string> out;
  while (out.size() < count) {
    std::optional<std::string> piece = pieces.Next();
    if (!piece) break;
    out.push_back(std::move(*piece));
  }
  return out;
}

// One file's text (`input`, kStdin for standard input) into `rows`.
void StreamFile(const std::string& input, const libsvm_internal::IndexRules& rules,
                std::size_t step, Rows& rows) {
  const std::string name = input == data_internal::kStdin ? "standard input" : input;
  data_internal::ByteStream in(input);
  rows.StartFile(name);
  // Two batches in memory: one parsed while the next is read. A piece a thread, at most 16 (32 MiB
  // of text a batch, about 100 MiB in all with the parsed chunks: 16 threads parse faster than a
  // disk reads).
  const auto batch =
      static_cast<std::size_t>(std::clamp(tbb::this_task_arena::max_concurrency(), 2, 16));
  data_internal::LinePieces pieces(in, step);
  std::vector<std::string> texts = NextPieces(pieces, batch);
  const bool any = !texts.empty();
  const uint64_t rows_before = rows.rows();
  while (!texts.empty()) {
    std::vector<Chunk> chunks(texts.size());
    std::vector<std::string> next;
    tbb::task_group parsing;
    parsing.run([&] {
      tbb::parallel_for(std::size_t{0}, texts.size(), [&](std::size_t i) {
        libsvm_internal::ParseChunk(texts[i], rules, &chunks[i]);
        std::string().swap(texts[i]);
      });
    });
    try {
      next = NextPieces(pieces, batch);
    } catch (...) {
      parsing.wait();
      throw;
    }
    parsing.wait();
    try {
      for (Chunk& chunk : chunks) rows.Take(chunk);
    } catch (const DataError&) {
      if (next.empty() && in.cut_short()) break;  // the last line, cut with the stream
      throw;
    }
    texts = std::move(next);
  }
  if (in.cut_short()) {
    throw DataError(name, 0, 0,
                    "the gzip stream ends early, after " + std::to_string(in.offset()) +
                        " bytes: the file is cut short");
  }
  if (!any) throw DataError(name, 0, 0, "empty file: expected rows of 'label index:value ...'");
  if (rows.rows() == rows_before) {
    throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
  }
}

}  // namespace

CacheShape ConvertLibsvmToCache(const std::string& input, const LibsvmOptions& options,
                                const std::string& path) {
  return ConvertLibsvmToCache(std::vector<std::string>{input}, options, path);
}

CacheShape ConvertLibsvmToCache(const std::vector<std::string>& inputs,
                                const LibsvmOptions& options, const std::string& path) {
  if (inputs.empty()) throw Error(path + ": no input to convert");
  const std::string name = inputs.size() == 1
                               ? (inputs[0] == data_internal::kStdin ? "standard input" : inputs[0])
                               : inputs[0] + ",...";
  libsvm_internal::CheckMaxFeatures(name, options);
  AtomicFileWriter out(path);  // an unwritable destination fails before any reading
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  Rows rows(folder.string());
  const libsvm_internal::IndexRules rules = libsvm_internal::RulesFor(options);
  const std::size_t step = options.chunk_bytes != 0 ? options.chunk_bytes : std::size_t{2} << 20;
  for (const std::string& input : inputs) StreamFile(input, rules, step, rows);
  // The index base, as the in-memory reader decides it (libsvm.cpp).
  const bool zero_based = options.zero_based == ZeroBased::kYes || rows.has_zero();
  LibsvmOptions as_zero_based = options;
  as_zero_based.zero_based = ZeroBased::kYes;
  const uint64_t zero_largest = libsvm_internal::RulesFor(as_zero_based).largest;
  if (options.zero_based == ZeroBased::kAuto && zero_based && rows.largest() > zero_largest) {
    throw DataError(name, 0, 0,
                    "index " + std::to_string(rows.largest()) +
                        " is past the last zero-based index " + std::to_string(zero_largest) +
                        " (the indices are zero-based: an index 0 appears)");
  }
  uint64_t features = options.max_features;
  if (features == 0 && rows.nnz() > 0) features = rows.largest() + (zero_based ? 1 : 0);
  const std::optional<Layout> layout = CanonicalLayout(rows.rows(), rows.nnz());
  if (!layout) throw Error(path + ": dataset too large for the binary cache");
  const uint32_t index_offset = zero_based ? 0 : 1;
  // The checksum: the payload's blocks hashed in order as they pass.
  std::vector<uint64_t> hashes;
  std::vector<char> block;
  block.reserve(kBlockSize);
  rows.Emit(*layout, index_offset, [&](const char* p, std::size_t n) {
    while (n > 0) {
      const std::size_t take = std::min<std::size_t>(n, kBlockSize - block.size());
      block.insert(block.end(), p, p + take);
      p += take;
      n -= take;
      if (block.size() == kBlockSize) {
        hashes.push_back(
            BlockHash({reinterpret_cast<const std::byte*>(block.data()), block.size()}));
        block.clear();
      }
    }
  });
  if (!block.empty()) {
    hashes.push_back(BlockHash({reinterpret_cast<const std::byte*>(block.data()), block.size()}));
  }
  const Header header =
      MakeHeader(rows.rows(), features, rows.nnz(),
                 static_cast<uint64_t>(zero_based ? ZeroBased::kYes : ZeroBased::kNo), *layout,
                 CombineBlockHashes(hashes));
  out.Write(&header, sizeof(header));
  rows.Emit(*layout, index_offset, [&](const char* p, std::size_t n) { out.Write(p, n); });
  out.Commit();
  return {rows.rows(), rows.nnz(), features};
}

}  // namespace parsgd
