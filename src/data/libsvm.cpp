#include "parsgd/data/libsvm.hpp"

#include <algorithm>
#include <vector>

#include "libsvm_chunk.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using libsvm_internal::Chunk;
using libsvm_internal::IndexRules;
using libsvm_internal::kIndexLimit;

constexpr const char* kZeroNote =
    "indices are 1-based under zero-based no: read the file with zero-based yes or auto if its "
    "indices start at 0";

IndexRules RulesFor(const LibsvmOptions& options) {
  IndexRules rules;
  rules.zero_based = options.zero_based == ZeroBased::kYes;
  rules.zero_allowed = options.zero_based != ZeroBased::kNo;
  rules.max_features = options.max_features;
  if (options.max_features != 0) {
    rules.largest = options.max_features - (rules.zero_based ? 1 : 0);
  } else {
    rules.largest = kIndexLimit - (rules.zero_based ? 2 : 1);
  }
  rules.zero_note = options.zero_based_note.empty() ? kZeroNote : options.zero_based_note;
  return rules;
}

// ParseLibsvm, with the mapping `text` lies in when it is a file's (its pages given back as parsed).
Dataset Parse(std::string_view text, const std::string& name, const LibsvmOptions& options,
              const MappedFile* file) {
  if (options.max_features >= kIndexLimit) {
    throw Error(name + ": max_features " + std::to_string(options.max_features) +
                " is too large: expected at most 2^32 - 1");
  }
  if (text.empty()) {
    throw DataError(name, 0, 0, "empty file: expected rows of 'label index:value ...'");
  }
  const IndexRules rules = RulesFor(options);
  std::vector<Chunk> chunks = data_internal::ParseChunks(
      text, options.chunk_bytes,
      [&](std::string_view piece, Chunk* c) { libsvm_internal::ParseChunk(piece, rules, c); }, file);
  data_internal::ThrowFirstError(chunks, name);
  bool zero_based = options.zero_based == ZeroBased::kYes;
  bool any_entry = false;
  uint64_t largest = 0;
  for (const Chunk& chunk : chunks) {
    zero_based |= chunk.has_zero;
    any_entry |= !chunk.indices.empty();
    largest = std::max(largest, chunk.max_index);
  }
  LibsvmOptions as_zero_based = options;
  as_zero_based.zero_based = ZeroBased::kYes;
  if (options.zero_based == ZeroBased::kAuto && zero_based &&
      largest > RulesFor(as_zero_based).largest) {
    // Decided zero-based, and some index was accepted only under the one-based bound: read the
    // text again as zero-based, which reports the first such index exactly.
    return Parse(text, name, as_zero_based, file);
  }
  uint64_t features = options.max_features;
  if (features == 0 && any_entry) features = largest + (zero_based ? 1 : 0);
  return data_internal::Assemble(std::move(chunks), features, name, zero_based ? 0 : 1,
                                 zero_based ? ZeroBased::kYes : ZeroBased::kNo);
}

}  // namespace

Dataset ParseLibsvm(std::string_view text, const std::string& name, const LibsvmOptions& options) {
  return Parse(text, name, options, nullptr);
}

Dataset ReadLibsvm(const std::string& path, const LibsvmOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  return Parse(std::string_view(file->chars(), file->size()), path, options, file.get());
}

}  // namespace parsgd
