#include "parsgd/data/libsvm.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "libsvm_chunk.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using libsvm_internal::Chunk;

uint64_t ChooseChunkBytes(std::size_t text_size, uint64_t requested) {
  if (requested != 0) return requested;
  // Many more chunks than threads (lines vary in length), each large enough that the per-chunk
  // cost (a task, a few vectors) is noise.
  return std::clamp<uint64_t>(text_size / 256, uint64_t{256} << 10, uint64_t{8} << 20);
}

// Chunk boundaries: 0, then the end of the line that crosses each chunk_bytes step, ..., size.
std::vector<std::size_t> ChunkBounds(std::string_view text, uint64_t chunk_bytes) {
  std::vector<std::size_t> bounds{0};
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (chunk_bytes >= text.size() - pos) {
      pos = text.size();
    } else {
      const std::size_t newline = text.find('\n', pos + chunk_bytes);
      pos = newline == std::string_view::npos ? text.size() : newline + 1;
    }
    bounds.push_back(pos);
  }
  return bounds;
}

// Chunks before the first bad one parsed completely, so their line counts place the error exactly.
void ThrowFirstError(const std::vector<Chunk>& chunks, const std::string& name) {
  uint64_t first_line = 1;
  for (const Chunk& chunk : chunks) {
    if (chunk.error) {
      throw DataError(name, first_line + chunk.error->line, chunk.error->column,
                      chunk.error->message);
    }
    first_line += chunk.lines;
  }
}

// Copies the chunks' local rows into one CSR dataset (chunks in parallel).
Dataset Assemble(const std::vector<Chunk>& chunks, uint64_t features, const std::string& name) {
  std::vector<uint64_t> row_base(chunks.size() + 1, 0);
  std::vector<uint64_t> entry_base(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    row_base[c + 1] = row_base[c] + chunks[c].labels.size();
    entry_base[c + 1] = entry_base[c] + chunks[c].indices.size();
  }
  const uint64_t rows = row_base.back();
  if (rows == 0) {
    throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
  }
  AlignedArray<uint64_t> offsets(rows + 1);
  AlignedArray<uint32_t> indices(entry_base.back());
  AlignedArray<float> values(entry_base.back());
  AlignedArray<float> labels(rows);
  offsets[0] = 0;
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    const Chunk& chunk = chunks[c];
    const uint64_t row0 = row_base[c];
    const uint64_t entry0 = entry_base[c];
    for (std::size_t r = 0; r < chunk.row_ends.size(); ++r) {
      offsets[row0 + r + 1] = entry0 + chunk.row_ends[r];
    }
    std::copy(chunk.labels.begin(), chunk.labels.end(), labels.data() + row0);
    std::copy(chunk.indices.begin(), chunk.indices.end(), indices.data() + entry0);
    std::copy(chunk.values.begin(), chunk.values.end(), values.data() + entry0);
  });
  return Dataset::FromArrays(std::move(offsets), std::move(indices), std::move(values),
                             std::move(labels), features, name);
}

}  // namespace

Dataset ParseLibsvm(std::string_view text, const std::string& name, const LibsvmOptions& options) {
  if (options.max_features >= libsvm_internal::kIndexLimit) {
    throw Error(name + ": max_features " + std::to_string(options.max_features) +
                " is too large: expected at most 2^32 - 1");
  }
  if (text.empty()) {
    throw DataError(name, 0, 0, "empty file: expected rows of 'label index:value ...'");
  }
  const std::vector<std::size_t> bounds =
      ChunkBounds(text, ChooseChunkBytes(text.size(), options.chunk_bytes));
  std::vector<Chunk> chunks(bounds.size() - 1);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, chunks.size(), 1),
      [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t c = range.begin(); c != range.end(); ++c) {
          libsvm_internal::ParseChunk(text.substr(bounds[c], bounds[c + 1] - bounds[c]),
                                      options.max_features, &chunks[c]);
        }
      },
      tbb::simple_partitioner());
  ThrowFirstError(chunks, name);
  uint64_t features = options.max_features;
  if (features == 0) {
    for (const Chunk& chunk : chunks) features = std::max(features, chunk.max_index);
  }
  return Assemble(chunks, features, name);
}

Dataset ReadLibsvm(const std::string& path, const LibsvmOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  return ParseLibsvm(std::string_view(file->chars(), file->size()), path, options);
}

}  // namespace parsgd
