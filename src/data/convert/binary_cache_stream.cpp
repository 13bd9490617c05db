// StreamToCache: LIBSVM, fastText or VW text to a binary cache in one pass over the text with
// bounded memory (cache_rows.hpp: the text read in pieces, its rows spilled, the cache written
// from the spills). One pass because a stream (gzip, standard input) cannot be read twice.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "data/cache/cache_rows.hpp"
#include "data/format/libsvm_chunk.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "data/format/stream_readers.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd {
namespace {

using data_internal::ByteStream;
using data_internal::CacheRows;
using data_internal::Chunk;
using data_internal::Streamed;

// One file of a line format into `rows`; `expected` says what a line holds (an empty file's
// message).
void StreamLines(ByteStream& in, std::string head, const std::string& name,
                 const std::function<void(std::string_view, Chunk*)>& parse,
                 const std::string& expected, std::size_t step, CacheRows& rows) {
  const Streamed read = StreamFile(in, std::move(head), name, 1, parse, step,
                                   [&](Chunk& chunk) { rows.Take(chunk, name); });
  if (!read.any_text) throw DataError(name, 0, 0, "empty file: expected " + expected);
  if (read.rows == 0) throw DataError(name, 0, 0, "no data rows: every line is blank or a comment");
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
  CacheRows rows(folder.string(), !text.libsvm);
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
      StreamLines(*begun, std::move(head), name_of(inputs[i]), parse, expected, step, rows);
    } else {
      ByteStream in(inputs[i]);
      StreamLines(in, {}, name_of(inputs[i]), parse, expected, step, rows);
    }
  }
  rows.NameClasses(name);
  if (!text.libsvm) {
    cache_internal::Record record;
    record.hashing = text.lines.hashing;
    return data_internal::WriteCache(
        rows, data_internal::FeaturesGiven(name, text.lines.features, text.max_features),
        ZeroBased::kAuto, 0, std::move(record), out, path);
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
  return data_internal::WriteCache(rows, features, zero_based ? ZeroBased::kYes : ZeroBased::kNo,
                                   zero_based ? 0 : 1, {}, out, path);
}

}  // namespace parsgd
