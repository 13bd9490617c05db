#include "parsgd/data/fasttext.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_map>
#include <vector>

#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"
#include "data/format/stream_readers.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd {
namespace {

using data_internal::Chunk;
using data_internal::ChunkError;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

// The rows of `piece` into `chunk`; stops at the first malformed line.
void ParseChunk(std::string_view piece, const FasttextOptions& options, Chunk* chunk) {
  RowHasher hasher(options.hashing);
  std::vector<std::string_view> words;
  std::unordered_map<std::string_view, uint32_t> ids;  // views into the piece
  chunk->text_labels = !options.labels_optional;
  data_internal::ForEachLine(piece, chunk, [&](const char* begin, const char* end) {
    words.clear();
    std::optional<std::string_view> label;
    const char* label_at = nullptr;
    for (const char* p = begin; p < end;) {
      while (p < end && IsSpace(*p)) ++p;
      const char* token_end = p;
      while (token_end < end && !IsSpace(*token_end)) ++token_end;
      if (p == token_end) break;
      const std::string_view token(p, static_cast<std::size_t>(token_end - p));
      if (!token.starts_with(kFasttextLabelPrefix)) {
        words.push_back(token);
      } else if (!options.labels_optional) {
        if (label) {
          chunk->error = ChunkError{
              chunk->lines, static_cast<uint64_t>(p - begin) + 1,
              fmt::format("a second label {} after {}: a line has one label (fastText's -loss ova "
                          "reads several; parsgd trains one class a row): keep one",
                          data_internal::QuoteSpan(p, token_end),
                          data_internal::QuoteSpan(label_at, label_at + label->size()))};
          return false;
        }
        label = token;
        label_at = p;
      }
      p = token_end;
    }
    if (words.empty() && !label) return true;  // a blank line: not a row
    if (!options.labels_optional && !label) {
      chunk->error = ChunkError{chunk->lines, 1,
                                fmt::format("no label: a line is '{}NAME word word ...' (a line "
                                            "without a label is data to predict)",
                                            kFasttextLabelPrefix)};
      return false;
    }
    if (label) {
      auto [it, added] = ids.try_emplace(*label, static_cast<uint32_t>(chunk->label_texts.size()));
      if (added) {
        if (chunk->label_texts.size() == data_internal::kMaxLabelTexts) {
          chunk->error = ChunkError{
              chunk->lines, static_cast<uint64_t>(label_at - begin) + 1,
              fmt::format("more than {} distinct labels: more classes than a model may have",
                          data_internal::kMaxLabelTexts)};
          return false;
        }
        chunk->label_texts.emplace_back(*label);
      }
      chunk->label_ids.push_back(it->second);
    }
    hasher.AddWords(words);
    // Words count +1 or -1 each: a row's sums stay far inside float's range.
    if (!hasher.Finish(chunk->indices, chunk->values)) {
      chunk->error = ChunkError{chunk->lines, 1, "a hashed column's count is beyond float's range"};
      return false;
    }
    chunk->labels.push_back(0.f);
    chunk->row_ends.push_back(chunk->indices.size());
    return true;
  });
}

Dataset Parse(const data_internal::TextSource& source, const std::string& name,
              const FasttextOptions& options) {
  const data_internal::LineParser lines = data_internal::FasttextLines(options);
  bool empty = false;
  std::vector<Chunk> chunks =
      data_internal::ParseSource(source, name, options.chunk_bytes, lines.parse, &empty);
  if (empty) throw DataError(name, 0, 0, fmt::format("empty file: expected {}", lines.expected));
  data_internal::ThrowFirstError(chunks, name);
  std::vector<std::string> classes;
  if (lines.class_names) {
    try {
      classes = data_internal::NameClasses(chunks);
    } catch (const Error& e) {
      throw DataError(name, 0, 0, e.what());
    }
  }
  Dataset data =
      data_internal::Assemble(std::move(chunks), lines.features, name, 0, ZeroBased::kAuto);
  Dataset::Parts parts = data.parts();
  parts.class_names = std::move(classes);
  parts.hashing = lines.hashing;
  return Dataset(std::move(parts));
}

}  // namespace

Dataset ParseFasttext(std::string_view text, const std::string& name,
                      const FasttextOptions& options) {
  return Parse({.text = text}, name, options);
}

Dataset ReadFasttext(const std::string& path, const FasttextOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  return Parse({.text = std::string_view(file->chars(), file->size()), .file = file.get()}, path,
               options);
}

data_internal::LineParser data_internal::FasttextLines(const FasttextOptions& given) {
  FasttextOptions options = given;
  options.hashing.format = HashedText::kFasttext;
  options.hashing.interactions.clear();  // VW's setting: does not apply
  CheckTextHashing(options.hashing);
  return {.parse = [options](std::string_view piece, Chunk* c) { ParseChunk(piece, options, c); },
          .hashing = options.hashing,
          .features = uint64_t{1} << options.hashing.bits,
          .expected = fmt::format("lines of '{}NAME word word ...'", kFasttextLabelPrefix),
          .class_names = !options.labels_optional};
}

Dataset data_internal::ReadFasttextFrom(ByteStream& in, std::string head, const std::string& name,
                                        const FasttextOptions& options) {
  return Parse({.text = head, .stream = &in}, name, options);
}

}  // namespace parsgd
