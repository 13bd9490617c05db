#include "data/format/text_chunks.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <deque>
#include <iterator>

#include "data/source/byte_stream.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"
#include "parsgd/util/memory_limit.hpp"

namespace parsgd::data_internal {
namespace {

uint64_t ChooseChunkBytes(std::size_t text_size, uint64_t requested) {
  if (requested != 0) return requested;
  // Many more chunks than threads (lines vary in length), each large enough that the per-chunk
  // cost (a task, a few vectors) is noise.
  return std::clamp<uint64_t>(text_size / 256, uint64_t{256} << 10, uint64_t{8} << 20);
}

// Chunk boundaries: 0, then the end of the line that crosses each chunk_bytes step, ..., size.
std::vector<std::size_t> ChunkBounds(std::string_view text, uint64_t chunk_bytes,
                                     const MappedFile* file) {
  std::vector<std::size_t> bounds{0};
  std::size_t pos = 0;
  while (pos < text.size()) {
    pos = chunk_bytes >= text.size() - pos ? text.size()
                                           : LineStartFrom(text, pos + chunk_bytes + 1, file);
    bounds.push_back(pos);
  }
  return bounds;
}

}  // namespace

std::size_t LineStartFrom(std::string_view text, std::size_t pos, const MappedFile* file) {
  if (pos == 0) return 0;
  if (pos >= text.size()) return text.size();
  const std::size_t newline = text.find('\n', pos - 1);
  const std::size_t start = newline == std::string_view::npos ? text.size() : newline + 1;
  if (file != nullptr) {  // the search's folios: 2 MB on either side covers them
    constexpr std::size_t kFolio = std::size_t{2} << 20;
    const std::size_t lo = pos > kFolio ? pos - kFolio : 0;
    file->Release(text.data() + lo, std::min(text.size(), start + kFolio) - lo);
  }
  return start;
}

RowsLimit::RowsLimit(uint64_t limit)
    : usable_(UsableMemoryBytes()), limit_(limit != 0 ? limit : usable_ / 8 * 7) {}

void RowsLimit::Parse(const std::function<void(std::string_view, Chunk*)>& parse,
                      std::string_view piece, Chunk* chunk) {
  const uint64_t before = bytes_.load(std::memory_order_relaxed);
  if (before > limit_) {
    constexpr double kMiB = double(uint64_t{1} << 20);
    chunk->error = ChunkError{
        0, 1,
        fmt::format("the rows read before this line need {:.0f} MiB in memory, past the {:.0f} MiB "
                    "they may take of the {:.0f} MiB this process may use (physical memory, its "
                    "cgroup's limit, its address-space limit): convert the text to a binary cache "
                    "(parsgd convert, which streams it) and train from that with --order block, "
                    "which reads a few blocks at a time",
                    before / kMiB, limit_ / kMiB, usable_ / kMiB)};
    return;
  }
  parse(piece, chunk);
  bytes_.fetch_add(RowsBytes(chunk->labels.size(), chunk->indices.size()) +
                       chunk->weights.size() * sizeof(float),
                   std::memory_order_relaxed);
}

std::vector<Chunk> ParseChunks(std::string_view text, uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               const MappedFile* file, uint64_t limit) {
  const std::vector<std::size_t> bounds =
      ChunkBounds(text, ChooseChunkBytes(text.size(), chunk_bytes), file);
  std::vector<Chunk> chunks(bounds.size() - 1);
  RowsLimit rows(limit);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, chunks.size(), 1),
      [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t c = range.begin(); c != range.end(); ++c) {
          const std::string_view piece = text.substr(bounds[c], bounds[c + 1] - bounds[c]);
          rows.Parse(parse, piece, &chunks[c]);
          if (file != nullptr) file->Release(piece.data(), piece.size());
        }
      },
      tbb::simple_partitioner());
  return chunks;
}

std::optional<std::string> LinePieces::Next() {
  while (!end_) {
    std::string piece = std::move(carry_);
    carry_.clear();
    const std::size_t at = piece.size();
    piece.resize(at + step_);
    const std::size_t n = in_.Read(piece.data() + at, step_);
    piece.resize(at + n);
    if (first_ && piece.starts_with("\xEF\xBB\xBF")) piece.erase(0, 3);
    first_ = false;
    end_ = n < step_;
    if (!end_) {
      const std::size_t newline = piece.rfind('\n');
      if (newline == std::string::npos) {  // a line longer than a step: read on
        carry_ = std::move(piece);
        continue;
      }
      carry_.assign(piece, newline + 1);
      piece.resize(newline + 1);
    }
    if (!piece.empty()) return piece;
  }
  return std::nullopt;
}

std::vector<Chunk> ParseStream(ByteStream& in, const std::string& name, uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               std::string head) {
  const std::size_t step = chunk_bytes != 0 ? chunk_bytes : std::size_t{2} << 20;
  std::deque<Chunk> chunks;        // stable addresses for the tasks
  std::deque<std::string> pieces;  // each piece's text, freed once parsed
  RowsLimit rows;
  tbb::task_group group;
  // At most a few pieces a thread read ahead of the parsing: a stream faster than the parsers (a
  // pipe from the page cache) would otherwise pile its text up in memory.
  const auto most_ahead =
      4 * static_cast<std::size_t>(std::max(tbb::this_task_arena::max_concurrency(), 1));
  std::size_t ahead = 0;
  try {
    LinePieces reader(in, step, std::move(head));
    while (std::optional<std::string> piece = reader.Next()) {
      if (++ahead > most_ahead) {
        group.wait();  // this thread parses too meanwhile
        ahead = 1;
      }
      if (rows.over()) {  // the rest is not read: a last chunk says why
        rows.Parse(parse, {}, &chunks.emplace_back());
        break;
      }
      Chunk* chunk = &chunks.emplace_back();
      std::string* text = &pieces.emplace_back(std::move(*piece));
      group.run([chunk, text, &parse, &rows] {
        rows.Parse(parse, *text, chunk);
        std::string().swap(*text);
      });
    }
  } catch (...) {
    group.wait();
    throw;
  }
  group.wait();
  if (in.cut_short() && !rows.over()) {
    throw DataError(name, 0, 0,
                    "the gzip stream ends early, after " + std::to_string(in.offset()) +
                        " bytes: the file is cut short");
  }
  return std::vector<Chunk>(std::make_move_iterator(chunks.begin()),
                            std::make_move_iterator(chunks.end()));
}

std::vector<Chunk> ParseSource(const TextSource& source, const std::string& name,
                               uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               bool* empty) {
  if (source.stream != nullptr) {
    std::vector<Chunk> chunks =
        ParseStream(*source.stream, name, chunk_bytes, parse, std::string(source.text));
    *empty = chunks.empty();  // a piece holds at least a byte past the mark
    return chunks;
  }
  std::string_view text = source.text;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  *empty = text.empty();
  return ParseChunks(text, chunk_bytes, parse, source.file);
}

void ThrowFirstError(const std::vector<Chunk>& chunks, const std::string& name,
                     uint64_t first_line) {
  for (const Chunk& chunk : chunks) {
    if (chunk.error) {
      throw DataError(name, first_line + chunk.error->line, chunk.error->column,
                      chunk.error->message);
    }
    first_line += chunk.lines;
  }
}

Dataset Assemble(std::vector<Chunk> chunks, uint64_t features, const std::string& name,
                 uint32_t index_offset, ZeroBased zero_based, bool empty_ok) {
  std::vector<uint64_t> row_base(chunks.size() + 1, 0);
  std::vector<uint64_t> entry_base(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    row_base[c + 1] = row_base[c] + chunks[c].labels.size();
    entry_base[c + 1] = entry_base[c] + chunks[c].indices.size();
  }
  const uint64_t rows = row_base.back();
  if (rows == 0 && !empty_ok) {
    throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
  }
  AlignedArray<uint64_t> offsets(rows + 1);
  AlignedArray<uint32_t> indices(entry_base.back());
  AlignedArray<float> values(entry_base.back());
  AlignedArray<float> labels(rows);
  bool weighted = false;
  for (const Chunk& chunk : chunks) {
    for (float w : chunk.weights) weighted |= w != 1.f;
  }
  AlignedArray<float> weights(weighted ? rows : 0);
  offsets[0] = 0;
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    Chunk& chunk = chunks[c];
    const uint64_t row0 = row_base[c];
    const uint64_t entry0 = entry_base[c];
    for (std::size_t r = 0; r < chunk.row_ends.size(); ++r) {
      offsets[row0 + r + 1] = entry0 + chunk.row_ends[r];
    }
    std::copy(chunk.labels.begin(), chunk.labels.end(), labels.data() + row0);
    std::transform(chunk.indices.begin(), chunk.indices.end(), indices.data() + entry0,
                   [index_offset](uint32_t index) { return index - index_offset; });
    std::copy(chunk.values.begin(), chunk.values.end(), values.data() + entry0);
    if (weighted) std::copy(chunk.weights.begin(), chunk.weights.end(), weights.data() + row0);
    chunk = Chunk();  // its memory back now, not after every chunk is copied
  });
  Dataset data = Dataset::FromArrays(std::move(offsets), std::move(indices), std::move(values),
                                     std::move(labels), features, name, zero_based);
  if (!weighted) return data;
  Dataset::Parts parts = data.parts();
  parts.weights = SharedArray<float>(std::move(weights));
  return Dataset(std::move(parts));
}

std::vector<std::string> NameClasses(std::vector<Chunk>& chunks) {
  SoloCommunicator solo;
  return NameClasses(chunks, solo);
}

namespace {

// The union of every rank's sorted `names`, sorted, on every rank. Collective.
std::vector<std::string> UnionOverRanks(const std::vector<std::string>& names, Communicator& comm) {
  std::vector<std::string> all;
  for (int root = 0; root < comm.size(); ++root) {
    std::string packed;  // each name as its length (8 bytes) and its bytes
    if (comm.rank() == root) {
      for (const std::string& n : names) {
        const uint64_t length = n.size();
        packed.append(reinterpret_cast<const char*>(&length), sizeof length).append(n);
      }
    }
    comm.Broadcast(packed, root);
    for (std::size_t at = 0; at < packed.size();) {
      uint64_t length = 0;
      std::memcpy(&length, packed.data() + at, sizeof length);
      all.emplace_back(packed, at + sizeof length, length);
      at += sizeof length + length;
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

std::vector<std::string> NameClasses(std::vector<Chunk>& chunks, Communicator& comm) {
  bool text = false;
  for (const Chunk& chunk : chunks) text |= chunk.text_labels;
  if (comm.size() > 1) text = comm.Max(text ? 1 : 0) != 0;  // a share may hold numbers only
  if (!text) return {};
  std::vector<std::string> names;
  for (const Chunk& chunk : chunks) {
    names.insert(names.end(), chunk.label_texts.begin(), chunk.label_texts.end());
    std::vector<float> numbers;
    for (std::size_t r = 0; r < chunk.labels.size(); ++r) {
      if (!chunk.text_labels || chunk.label_ids[r] == kNoLabelText) {
        numbers.push_back(chunk.labels[r] == 0.f ? 0.f : chunk.labels[r]);  // -0 is 0
      }
    }
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    for (float v : numbers) names.push_back(ShortestText(v));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (comm.size() > 1) names = UnionOverRanks(names, comm);
  auto index_of = [&](const std::string& name) {
    return static_cast<float>(std::lower_bound(names.begin(), names.end(), name) - names.begin());
  };
  for (Chunk& chunk : chunks) {
    std::vector<float> index(chunk.label_texts.size());
    for (std::size_t t = 0; t < index.size(); ++t) index[t] = index_of(chunk.label_texts[t]);
    for (std::size_t r = 0; r < chunk.labels.size(); ++r) {
      const bool named = chunk.text_labels && chunk.label_ids[r] != kNoLabelText;
      const float number = chunk.labels[r] == 0.f ? 0.f : chunk.labels[r];
      chunk.labels[r] = named ? index[chunk.label_ids[r]] : index_of(ShortestText(number));
    }
    chunk.label_ids = {};
    chunk.label_texts = {};
  }
  CheckClassNames(names);
  return names;
}

void CheckClassNames(const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n.size() > kMaxClassNameBytes) {
      throw Error(fmt::format("a class name of {} bytes ('{}...'): at most {}", n.size(),
                              n.substr(0, 40), kMaxClassNameBytes));
    }
  }
  if (names.size() > kMaxLabelTexts) {
    throw Error(fmt::format("the labels have {} distinct names: more than the {} classes a model "
                            "may have (CSV: is it the label column?)",
                            names.size(), kMaxLabelTexts));
  }
}

}  // namespace parsgd::data_internal
