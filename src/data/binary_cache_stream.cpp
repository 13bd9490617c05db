// StreamToCache: LIBSVM, fastText or VW text to a binary cache in one pass over the text with
// bounded memory. The text is read in pieces of whole lines, a batch of pieces parsed in parallel
// while this thread reads the next batch; each parsed chunk's rows go, in text order, to unnamed
// temporary files in the output's folder (row ends, raw indices, values, labels, class-name ids,
// weights), and the chunk is freed. One pass because a stream (gzip, standard input) cannot be
// read twice; the spill because the cache's sections come in an order (offsets, indices, values,
// labels, weights) whose sizes are known only at the end, and the index base (a one-based file's
// indices are stored minus 1) and the class names' order only once every line is read. What is
// held besides a few pieces: the class names met (at most 65,536) and the distinct numeric labels
// (counted up to 65,536). The cache is then written from the spills twice over: once to checksum
// its blocks, once after the header that holds the checksum.
#include <fcntl.h>
#include <fmt/format.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "byte_stream.hpp"
#include "cache_format.hpp"
#include "libsvm_chunk.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"
#include "stream_readers.hpp"
#include "text_chunks.hpp"

namespace parsgd {
namespace {

using namespace cache_internal;
using data_internal::CheckClassNames;
using data_internal::Chunk;
using data_internal::kMaxLabelTexts;
using data_internal::kNoLabelText;

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

  // `size` bytes from byte `at` of what was appended (flushed first) into dst.
  void ReadAt(uint64_t at, void* dst, std::size_t size) {
    Flush();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n =
          ::pread(fd_, static_cast<char*>(dst) + done, size - done, static_cast<off_t>(at + done));
      if (n <= 0) throw Error(std::string("cannot read a temporary file: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
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

// Class names met in the text, in the order met (bounded: at most kMaxLabelTexts + 1 of them).
class Names {
 public:
  uint32_t Id(const std::string& text, const std::string& where) {
    auto [it, added] = ids_.try_emplace(text, static_cast<uint32_t>(texts_.size()));
    if (added) {
      texts_.push_back(text);
      if (texts_.size() > kMaxLabelTexts) {
        try {
          CheckClassNames(texts_);
        } catch (const Error& e) {
          throw DataError(where, 0, 0, e.what());
        }
      }
    }
    return it->second;
  }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> texts_;
};

// The text's rows as they are parsed: counts, the index base's evidence, the label set, the
// spills.
class Rows {
 public:
  Rows(const std::string& folder, bool weighted)
      : weighted_(weighted),
        ends_(folder),
        indices_(folder),
        values_(folder),
        labels_(folder),
        label_ids_(folder),
        weights_(folder) {}

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
    // Each row's class name as its place among the names met (kNoLabelText: a number).
    std::vector<uint32_t> global(chunk.label_texts.size());  // the chunk's names' places
    for (std::size_t t = 0; t < global.size(); ++t)
      global[t] = names_.Id(chunk.label_texts[t], name_);
    std::vector<uint32_t> ids(chunk.labels.size(), kNoLabelText);
    for (std::size_t r = 0; r < ids.size(); ++r) {
      if (chunk.text_labels && chunk.label_ids[r] != kNoLabelText) {
        ids[r] = global[chunk.label_ids[r]];
      } else {
        numbers_.Add(chunk.labels[r]);
      }
    }
    label_ids_.Append(ids);
    if (weighted_) {
      if (chunk.weights.size() != chunk.labels.size()) chunk.weights.assign(ids.size(), 1.f);
      for (float w : chunk.weights) all_one_ &= w == 1.f;
      weights_.Append(chunk.weights);
    }
    rows_ += chunk.labels.size();
    nnz_ += chunk.indices.size();
    chunk = Chunk();
  }

  // Once every row is taken: the class names (empty where every label is a number), sorted, as
  // the in-memory readers name them (text_chunks.hpp, NameClasses), and each label's place among
  // them.
  void NameClasses(const std::string& name) {
    if (names_.texts().empty()) return;
    if (numbers_.over()) {
      throw DataError(name, 0, 0,
                      fmt::format("the labels have more than {} distinct names: more than the "
                                  "classes a model may have",
                                  kMaxLabelTexts));
    }
    class_names_ = names_.texts();
    for (float v : numbers_.values()) class_names_.push_back(ShortestText(v));
    std::sort(class_names_.begin(), class_names_.end());
    class_names_.erase(std::unique(class_names_.begin(), class_names_.end()), class_names_.end());
    try {
      CheckClassNames(class_names_);
    } catch (const Error& e) {
      throw DataError(name, 0, 0, e.what());
    }
    auto place = [&](const std::string& text) {
      return static_cast<float>(std::lower_bound(class_names_.begin(), class_names_.end(), text) -
                                class_names_.begin());
    };
    for (const std::string& text : names_.texts()) text_place_.push_back(place(text));
    for (float v : numbers_.values())
      number_place_[std::bit_cast<uint32_t>(v)] = place(ShortestText(v));
  }

  // The cache's payload (the file after the header) to sink(bytes, size), in file order.
  void Emit(const Layout& layout, uint32_t index_offset, const std::string& record,
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
    if (class_names_.empty()) {
      labels_.ReadBack(copy);
    } else {
      std::vector<uint32_t> ids;
      std::vector<float> labels;
      uint64_t row = 0;
      label_ids_.ReadBack([&](const char* p, std::size_t n) {
        ids.resize(n / sizeof(uint32_t));
        std::memcpy(ids.data(), p, n);
        labels.resize(ids.size());
        labels_.ReadAt(row * sizeof(float), labels.data(), n);
        for (std::size_t r = 0; r < ids.size(); ++r) {
          const float v = labels[r] == 0.f ? 0.f : labels[r];  // -0 is 0
          labels[r] = ids[r] != kNoLabelText ? text_place_[ids[r]]
                                             : number_place_.at(std::bit_cast<uint32_t>(v));
        }
        copy(reinterpret_cast<const char*>(labels.data()), n);
        row += ids.size();
      });
    }
    if (weighted()) {
      pad_to(layout.weights.at);
      weights_.ReadBack(copy);
    }
    pad_to(layout.record.at);
    copy(record.data(), record.size());
    pad_to(layout.file_size);
  }

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
  std::string name_;
  uint64_t line_ = 1;  // the first line of the next chunk
  uint64_t rows_ = 0, nnz_ = 0, largest_ = 0;
  bool has_zero_ = false, all_one_ = true;
  Names names_;
  LabelSet numbers_;  // the labels that are numbers
  std::vector<std::string> class_names_;
  std::vector<float> text_place_;                     // a name met's place among class_names_
  std::unordered_map<uint32_t, float> number_place_;  // a number's (its bits) place
  Spill ends_, indices_, values_, labels_, label_ids_, weights_;
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

// One file's text (`in`, `head` what was read of it first) into `rows`, each piece parsed by
// `parse`; `expected` says what a line holds (for an empty file's message).
void StreamFile(data_internal::ByteStream& in, std::string head, const std::string& name,
                const std::function<void(std::string_view, Chunk*)>& parse,
                const std::string& expected, std::size_t step, Rows& rows) {
  rows.StartFile(name);
  // Two batches in memory: one parsed while the next is read. A piece a thread, at most 16 (32 MiB
  // of text a batch, about 100 MiB in all with the parsed chunks: 16 threads parse faster than a
  // disk reads).
  const auto batch =
      static_cast<std::size_t>(std::clamp(tbb::this_task_arena::max_concurrency(), 2, 16));
  data_internal::LinePieces pieces(in, step, std::move(head));
  std::vector<std::string> texts = NextPieces(pieces, batch);
  const bool any = !texts.empty();
  const uint64_t rows_before = rows.rows();
  while (!texts.empty()) {
    std::vector<Chunk> chunks(texts.size());
    std::vector<std::string> next;
    tbb::task_group parsing;
    parsing.run([&] {
      tbb::parallel_for(std::size_t{0}, texts.size(), [&](std::size_t i) {
        parse(texts[i], &chunks[i]);
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
  if (!any) throw DataError(name, 0, 0, "empty file: expected " + expected);
  if (rows.rows() == rows_before) {
    throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
  }
}

// The cache of `rows` at `path` (through `out`): the checksum pass over the spills, then the
// header and the payload.
CacheShape WriteCache(Rows& rows, uint64_t features, ZeroBased zero_based, uint32_t index_offset,
                      const std::optional<TextHashing>& hashing, AtomicFileWriter& out,
                      const std::string& path) {
  const std::string record = RecordBytes({rows.class_names(), hashing});
  const std::optional<Layout> layout =
      CanonicalLayout(rows.rows(), rows.nnz(), rows.weighted(), record.size());
  if (!layout) throw Error(path + ": dataset too large for the binary cache");
  // The checksum: the payload's blocks hashed in order as they pass.
  std::vector<uint64_t> hashes;
  std::vector<char> block;
  block.reserve(kBlockSize);
  rows.Emit(*layout, index_offset, record, [&](const char* p, std::size_t n) {
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
  const Extras extras{
      .flags = (rows.weighted() ? kWeighted : 0) | (rows.class_names().empty() ? 0 : kNamedClasses),
      .record_bytes = record.size(),
      .classes = rows.classes()};
  const Header header =
      MakeHeader(rows.rows(), features, rows.nnz(), static_cast<uint64_t>(zero_based), *layout,
                 CombineBlockHashes(hashes), extras);
  out.Write(&header, sizeof(header));
  rows.Emit(*layout, index_offset, record, [&](const char* p, std::size_t n) { out.Write(p, n); });
  out.Commit();
  return {rows.rows(), rows.nnz(), features, rows.classes()};
}

}  // namespace

CacheShape data_internal::StreamToCache(const std::vector<std::string>& inputs,
                                        const CachedText& text, const std::string& path,
                                        ByteStream* begun, std::string head) {
  if (inputs.empty()) throw Error(path + ": no input to convert");
  auto name_of = [](const std::string& input) {
    return input == data_internal::kStdin ? std::string("standard input") : input;
  };
  const std::string name = inputs.size() == 1 ? name_of(inputs[0]) : inputs[0] + ",...";
  if (text.libsvm) libsvm_internal::CheckMaxFeatures(name, *text.libsvm);
  AtomicFileWriter out(path);  // an unwritable destination fails before any reading
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  Rows rows(folder.string(), !text.libsvm);
  const std::size_t step = text.chunk_bytes != 0 ? text.chunk_bytes : std::size_t{2} << 20;
  std::function<void(std::string_view, Chunk*)> parse = text.lines.parse;
  std::string expected = text.lines.expected;
  if (text.libsvm) {
    parse = [rules = libsvm_internal::RulesFor(*text.libsvm)](std::string_view piece, Chunk* c) {
      libsvm_internal::ParseChunk(piece, rules, c);
    };
    expected = "rows of 'label index:value ...'";
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i == 0 && begun != nullptr) {
      StreamFile(*begun, std::move(head), name_of(inputs[i]), parse, expected, step, rows);
    } else {
      data_internal::ByteStream in(inputs[i]);
      StreamFile(in, {}, name_of(inputs[i]), parse, expected, step, rows);
    }
  }
  rows.NameClasses(name);
  if (!text.libsvm) {
    if (text.max_features != 0 && text.max_features < text.lines.features) {
      throw Error(
          fmt::format("{}: the dataset has {} features, more than the feature count "
                      "given (--features) {}",
                      name, text.lines.features, text.max_features));
    }
    return WriteCache(rows, std::max(text.max_features, text.lines.features), ZeroBased::kAuto, 0,
                      text.lines.hashing, out, path);
  }
  // The index base, as the in-memory reader decides it (libsvm.cpp).
  const LibsvmOptions& options = *text.libsvm;
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
  return WriteCache(rows, features, zero_based ? ZeroBased::kYes : ZeroBased::kNo,
                    zero_based ? 0 : 1, std::nullopt, out, path);
}

}  // namespace parsgd
