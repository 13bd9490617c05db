#include "parsgd/data/libsvm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "data/format/stream_readers.hpp"

#include "data/format/libsvm_chunk.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using libsvm_internal::CheckMaxFeatures;
using libsvm_internal::Chunk;
using libsvm_internal::IndexRules;
using libsvm_internal::kIndexLimit;
using libsvm_internal::RulesFor;

// The data set of the chunks of LIBSVM text parsed under `options`, over the ranks of `comm`: rank
// r's chunks are its share of the file's lines, the shares in rank order (one rank: the whole
// text). The first error, the zero-based decision and the feature count are the whole file's,
// agreed by every rank. `again` parses the text again under other options; null where the text
// is gone (a stream).
Dataset Finish(std::vector<Chunk> chunks, const std::string& name, const LibsvmOptions& options,
               Communicator& comm,
               const std::function<Dataset(const LibsvmOptions&)>& again) {
  const bool solo = comm.size() == 1;
  data_internal::ThrowFirstErrorOfRanks(chunks, name, comm);
  bool zero_based = false;
  bool any_entry = false;
  uint64_t largest = 0;
  uint64_t rows = 0;
  for (const Chunk& chunk : chunks) {
    zero_based |= chunk.has_zero;
    any_entry |= !chunk.indices.empty();
    largest = std::max(largest, chunk.max_index);
    rows += chunk.labels.size();
  }
  zero_based = options.zero_based == ZeroBased::kYes || comm.Max(zero_based) != 0;
  any_entry = comm.Max(any_entry) != 0;
  largest = comm.Max(largest);
  LibsvmOptions as_zero_based = options;
  as_zero_based.zero_based = ZeroBased::kYes;
  if (options.zero_based == ZeroBased::kAuto && zero_based &&
      largest > RulesFor(as_zero_based).largest) {
    // Decided zero-based, and some index was accepted only under the one-based bound: read the
    // text again as zero-based, which reports the first such index exactly.
    if (again) return again(as_zero_based);
    throw DataError(name, 0, 0,
                    fmt::format("index {} is past the last zero-based index {} (the indices are "
                                "zero-based: an index 0 appears)",
                                largest, RulesFor(as_zero_based).largest));
  }
  uint64_t features = options.max_features;
  if (features == 0 && any_entry) features = largest + (zero_based ? 1 : 0);
  if (!solo && comm.Sum(rows) == 0) {
    throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
  }
  return data_internal::Assemble(std::move(chunks), features, name, zero_based ? 0 : 1,
                                 zero_based ? ZeroBased::kYes : ZeroBased::kNo, /*empty_ok=*/!solo);
}

// ParseLibsvm over the ranks of `comm` (see Finish); with `file`, the mapping `text` lies in (its
// pages given back as parsed).
Dataset Parse(std::string_view text, const std::string& name, const LibsvmOptions& options,
              const MappedFile* file, Communicator& comm) {
  CheckMaxFeatures(name, options);
  // A UTF-8 byte order mark (only the first rank's share can start with one: the others start
  // at a line).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (comm.Sum(text.size()) == 0) {
    throw DataError(name, 0, 0, "empty file: expected rows of 'label index:value ...'");
  }
  const IndexRules rules = RulesFor(options);
  std::vector<Chunk> chunks = data_internal::ParseChunks(
      text, options.chunk_bytes,
      [&](std::string_view piece, Chunk* c) { libsvm_internal::ParseChunk(piece, rules, c); },
      file);
  return Finish(std::move(chunks), name, options, comm, [&](const LibsvmOptions& other) {
    return Parse(text, name, other, file, comm);
  });
}

}  // namespace

Dataset ParseLibsvm(std::string_view text, const std::string& name, const LibsvmOptions& options) {
  SoloCommunicator solo;
  return Parse(text, name, options, nullptr, solo);
}

Dataset ReadLibsvm(const std::string& path, const LibsvmOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  SoloCommunicator solo;
  return Parse(std::string_view(file->chars(), file->size()), path, options, file.get(), solo);
}

Dataset ReadLibsvmStream(const std::string& path, const LibsvmOptions& options) {
  data_internal::ByteStream in(path);
  return data_internal::ReadLibsvmFrom(
      in, {}, path == data_internal::kStdin ? "standard input" : path, options);
}

Dataset data_internal::ReadLibsvmFrom(ByteStream& in, std::string head, const std::string& name,
                                      const LibsvmOptions& options) {
  CheckMaxFeatures(name, options);
  const IndexRules rules = RulesFor(options);
  std::vector<Chunk> chunks = data_internal::ParseStream(
      in, name, options.chunk_bytes,
      [&](std::string_view piece, Chunk* c) { libsvm_internal::ParseChunk(piece, rules, c); },
      std::move(head));
  if (chunks.empty()) {  // nothing but, at most, a byte order mark (a piece holds a byte past it)
    throw DataError(name, 0, 0, "empty file: expected rows of 'label index:value ...'");
  }
  SoloCommunicator solo;
  return Finish(std::move(chunks), name, options, solo, nullptr);
}

Dataset ReadLibsvmShard(const std::string& path, const LibsvmOptions& options, Communicator& comm) {
  const data_internal::TextShare share = data_internal::MapTextShare(path, comm);
  return Parse(share.text, path, options, share.file.get(), comm);
}

}  // namespace parsgd
