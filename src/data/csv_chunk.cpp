#include "csv_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace parsgd::csv_internal {
namespace {

using data_internal::Chunk;
using data_internal::ChunkError;
using data_internal::QuoteSpan;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p;
}

// The field at p (to the next ',' or the line end), quoted for messages; long fields are cut.
std::string Quote(const char* p, const char* end) {
  const char* e = std::find(p, end, ',');
  while (e > p && IsBlank(e[-1])) --e;
  return QuoteSpan(p, e);
}

struct LineContext {
  const char* begin;  // start of the line, for columns
  uint64_t line;
  RowShape shape;
  Chunk* chunk;

  bool Fail(const char* at, std::string message) const {
    chunk->error = ChunkError{line, static_cast<uint64_t>(at - begin) + 1, std::move(message)};
    return false;
  }
  std::string Field(uint64_t f) const {
    return std::string(f == shape.label ? "label field " : "field ") + std::to_string(f + 1);
  }
};

// One field starting at p; on success p is left at the ',' or the line end after it.
bool ParseField(const LineContext& cx, uint64_t f, const char*& p, const char* end) {
  const char* field = p;
  p = SkipBlanks(p, end);
  if (p == end || *p == ',') return cx.Fail(field, cx.Field(f) + " is empty: expected a number");
  float value = 0;
  const char* q = data_internal::ParseFloat(p, end, &value);
  if (q != nullptr) q = SkipBlanks(q, end);
  if (q == nullptr || (q != end && *q != ',')) {
    return cx.Fail(p, cx.Field(f) + ": expected a number, found " + Quote(p, end));
  }
  if (!std::isfinite(value)) {
    return cx.Fail(p,
                   cx.Field(f) + ": " + Quote(p, end) + " is not finite: expected a finite number");
  }
  Chunk& chunk = *cx.chunk;
  if (f == cx.shape.label) {
    chunk.labels.push_back(value);
  } else if (value != 0) {
    chunk.indices.push_back(static_cast<uint32_t>(f < cx.shape.label ? f : f - 1));
    chunk.values.push_back(value);
  }
  p = q;
  return true;
}

bool ParseLine(const LineContext& cx, const char* p, const char* end) {
  if (SkipBlanks(p, end) == end) return true;  // blank: not a row
  const uint64_t fields = cx.shape.fields;
  for (uint64_t f = 0;; ++f) {
    if (f == fields) {
      return cx.Fail(p, "more than " + std::to_string(fields) + " fields: expected " +
                            std::to_string(fields) + ", as the first line has");
    }
    if (!ParseField(cx, f, p, end)) return false;
    if (p == end) {
      if (f + 1 < fields) {
        return cx.Fail(p, "found " + std::to_string(f + 1) + " fields: expected " +
                              std::to_string(fields) + ", as the first line has");
      }
      break;
    }
    ++p;  // the ','
  }
  if (cx.shape.label == fields) cx.chunk->labels.push_back(0.f);  // no label column
  cx.chunk->row_ends.push_back(cx.chunk->indices.size());
  return true;
}

}  // namespace

uint64_t CountFields(const char* begin, const char* end) {
  return 1 + static_cast<uint64_t>(std::count(begin, end, ','));
}

void ParseChunk(std::string_view text, const RowShape& shape, Chunk* chunk) {
  LineContext cx{text.data(), 0, shape, chunk};
  data_internal::ForEachLine(text, chunk, [&](const char* begin, const char* end) {
    cx.begin = begin;
    cx.line = chunk->lines;
    return ParseLine(cx, begin, end);
  });
}

}  // namespace parsgd::csv_internal
