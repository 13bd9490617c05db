// The streaming converts' shared machinery: a text's chunks spilled to temporary files and the
// binary cache written from the spills.
#include "data/cache/cache_rows.hpp"

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

#include "data/source/byte_stream.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"

namespace parsgd::data_internal {

using namespace cache_internal;

Spill::Spill(const std::string& folder) {
  std::string name = folder + "/.parsgd-convert-XXXXXX";
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) {
    throw Error(folder + ": cannot create a temporary file: " + std::strerror(errno));
  }
  ::unlink(name.c_str());
  buffer_.reserve(kCopyBytes);
}

Spill::~Spill() { ::close(fd_); }

void Spill::ReadAt(uint64_t at, void* dst, std::size_t size) {
  Flush();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n =
        ::pread(fd_, static_cast<char*>(dst) + done, size - done, static_cast<off_t>(at + done));
    if (n <= 0) throw Error(std::string("cannot read a temporary file: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void Spill::ReadBack(const std::function<void(const char*, std::size_t)>& each) {
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

std::string Spill::Reread() {
  Flush();
  return "/proc/self/fd/" + std::to_string(fd_);
}

void Spill::Flush() {
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

uint32_t Names::Id(const std::string& text, const std::string& where) {
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

void CacheRows::Take(Chunk& chunk, const std::string& name) {
  has_zero_ |= chunk.has_zero;
  largest_ = std::max(largest_, chunk.max_index);
  for (uint64_t& end : chunk.row_ends) end += nnz_;
  ends_.Append(chunk.row_ends);
  indices_.Append(chunk.indices);
  values_.Append(chunk.values);
  labels_.Append(chunk.labels);
  // Each row's class name as its place among the names met (kNoLabelText: a number).
  std::vector<uint32_t> global(chunk.label_texts.size());  // the chunk's names' places
  for (std::size_t t = 0; t < global.size(); ++t) global[t] = names_.Id(chunk.label_texts[t], name);
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

void CacheRows::NameClasses(const std::string& name) {
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

void CacheRows::Emit(const cache_internal::Layout& layout, uint32_t index_offset,
                     const std::string& record,
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

// One file's text (`in`, `head` what was read of it first; `first_line` the line it starts at) in
// text order to take(chunk), each piece parsed by `parse` (a few batches of pieces in memory at
// a time); a chunk's error thrown as "name:line:column: ...". Throws the stream's errors (a gzip
// stream cut short).
Streamed StreamFile(ByteStream& in, std::string head, const std::string& name, uint64_t first_line,
                    const std::function<void(std::string_view, Chunk*)>& parse, std::size_t step,
                    const std::function<void(Chunk&)>& take) {
  // Two batches in memory: one parsed while the next is read. A piece a thread, at most 16 (32 MiB
  // of text a batch, about 100 MiB in all with the parsed chunks: 16 threads parse faster than a
  // disk reads).
  const auto batch =
      static_cast<std::size_t>(std::clamp(tbb::this_task_arena::max_concurrency(), 2, 16));
  LinePieces pieces(in, step, std::move(head));
  std::vector<std::string> texts = NextPieces(pieces, batch);
  Streamed out{.any_text = !texts.empty()};
  uint64_t line = first_line;
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
    bool stop = false;
    for (Chunk& chunk : chunks) {
      if (chunk.error) {
        if (next.empty() && in.cut_short()) {  // the last line, cut with the stream
          stop = true;
          break;
        }
        throw DataError(name, line + chunk.error->line, chunk.error->column, chunk.error->message);
      }
      line += chunk.lines;
      out.rows += chunk.labels.size();
      take(chunk);
    }
    if (stop) break;
    texts = std::move(next);
  }
  if (in.cut_short()) {
    throw DataError(name, 0, 0,
                    "the gzip stream ends early, after " + std::to_string(in.offset()) +
                        " bytes: the file is cut short");
  }
  return out;
}

// The cache of `rows` at `path` (through `out`): the checksum pass over the spills, then the
// header and the payload.
CacheShape WriteCache(CacheRows& rows, uint64_t features, ZeroBased zero_based,
                      uint32_t index_offset, Record record_fields, AtomicFileWriter& out,
                      const std::string& path) {
  record_fields.class_names = rows.class_names();
  const std::string record = RecordBytes(record_fields);
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

}  // namespace parsgd::data_internal
