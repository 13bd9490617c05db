#include "data/format/libsvm_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "parsgd/util/error.hpp"

namespace parsgd::libsvm_internal {
namespace {

using data_internal::ChunkError;
using data_internal::QuoteSpan;
using data_internal::ParseFloat;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
// A token ends at a blank, at a comment or at the end of the line.
bool EndsToken(const char* p, const char* end) { return p == end || IsBlank(*p) || *p == '#'; }

const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p;
}

const char* TokenEnd(const char* p, const char* end) {
  while (!EndsToken(p, end)) ++p;
  return p;
}

// The token at p, quoted, for messages (long tokens are cut).
std::string Quote(const char* p, const char* end) {
  const char* t = TokenEnd(p, end);
  if (t == p) return "nothing";
  return QuoteSpan(p, t);
}

struct LineContext {
  const char* begin;  // start of the line, for columns
  uint64_t line;
  const IndexRules& rules;
  Chunk* chunk;

  bool Fail(const char* at, std::string message) const {
    chunk->error = ChunkError{line, static_cast<uint64_t>(at - begin) + 1, std::move(message)};
    return false;
  }
};

bool ParseLabel(const LineContext& cx, const char*& p, const char* end) {
  float label = 0;
  const char* q = ParseFloat(p, end, &label);
  if (q == nullptr || !EndsToken(q, end)) {
    const char* t = TokenEnd(p, end);
    if (std::find(p, t, ':') != t) {
      return cx.Fail(p, "missing label: the line starts with feature " + Quote(p, end) +
                            ", expected a label first");
    }
    const char* q_end = q == nullptr ? p : q;
    const bool comma = q_end != end && *q_end == ',';
    return cx.Fail(p,
                   "expected a numeric label, found " + Quote(p, end) +
                       (comma ? " (CSV text? name the file *.csv, or give the format csv)" : ""));
  }
  if (!std::isfinite(label)) {
    return cx.Fail(p, "label " + Quote(p, end) + " is not finite: expected a finite number");
  }
  cx.chunk->labels.push_back(label);
  p = q;
  return true;
}

// Checks a parsed raw index (written as `digits`) against the rules and the previous index of the
// row (-1 before the first).
bool CheckIndex(const LineContext& cx, std::string_view digits, uint64_t index, int64_t previous) {
  const IndexRules& rules = cx.rules;
  const bool zero = index == 0 && !rules.zero_allowed;
  if (!zero && index <= rules.largest && static_cast<int64_t>(index) > previous) return true;
  const char* at = digits.data();
  const std::string text(digits);
  if (zero) return cx.Fail(at, "feature index 0: " + rules.zero_note);
  if (index > rules.largest) {
    if (rules.max_features == 0 || index >= kIndexLimit - (rules.zero_based ? 1 : 0)) {
      return cx.Fail(at, "feature index " + text + " is too large: expected an index below " +
                             (rules.zero_based ? "2^32 - 1 (zero-based)" : "2^32"));
    }
    if (rules.zero_based) {
      return cx.Fail(at, "feature index " + text +
                             " exceeds the feature count given (--features) " +
                             std::to_string(rules.max_features) + ": zero-based indices go to " +
                             std::to_string(rules.max_features - 1));
    }
    return cx.Fail(at, "feature index " + text + " exceeds the feature count given (--features) " +
                           std::to_string(rules.max_features));
  }
  if (static_cast<int64_t>(index) == previous) {
    return cx.Fail(at,
                   "feature index " + text + " is repeated: expected strictly ascending indices");
  }
  return cx.Fail(at, "feature index " + text + " is not ascending: it follows " +
                         std::to_string(previous) + ", expected strictly ascending indices");
}

// One "index:value" token.
bool ParseFeature(const LineContext& cx, const char*& p, const char* end, int64_t* previous) {
  const char* start = p;
  if (!IsDigit(*p)) {
    if (*p == '-') {
      return cx.Fail(p, "feature index " + Quote(p, end) + " is negative: expected an index >= " +
                            (cx.rules.zero_allowed ? "0" : "1"));
    }
    return cx.Fail(p, "expected a feature 'index:value', found " + Quote(p, end));
  }
  uint64_t index = 0;
  for (; p < end && IsDigit(*p); ++p) {
    index = std::min(index * 10 + static_cast<uint64_t>(*p - '0'), kIndexLimit);
  }
  if (p == end || *p != ':') {
    if (EndsToken(p, end))
      return cx.Fail(start, "expected ':' after feature index " + Quote(start, end));
    return cx.Fail(start, "expected a feature 'index:value', found " + Quote(start, end));
  }
  if (!CheckIndex(cx, {start, static_cast<std::size_t>(p - start)}, index, *previous)) {
    return false;
  }
  const char* value_at = ++p;
  float value = 0;
  const char* q = ParseFloat(p, end, &value);
  if (q == nullptr || !EndsToken(q, end)) {
    return cx.Fail(value_at, "expected a numeric value after '" + std::to_string(index) +
                                 ":', found " + Quote(value_at, end));
  }
  if (!std::isfinite(value)) {
    return cx.Fail(value_at, "value " + Quote(value_at, end) + " of feature " +
                                 std::to_string(index) +
                                 " is not finite: expected a finite number");
  }
  cx.chunk->indices.push_back(static_cast<uint32_t>(index));
  cx.chunk->values.push_back(value);
  cx.chunk->has_zero |= index == 0;
  *previous = static_cast<int64_t>(index);
  p = q;
  return true;
}

bool ParseLine(const LineContext& cx, const char* p, const char* end) {
  p = SkipBlanks(p, end);
  if (p == end || *p == '#') return true;  // blank or comment-only: not a row
  if (!ParseLabel(cx, p, end)) return false;
  int64_t previous = -1;
  for (bool first = true;; first = false) {
    p = SkipBlanks(p, end);
    if (p == end || *p == '#') break;
    if (first && end - p >= 4 && std::memcmp(p, "qid:", 4) == 0) {
      p = TokenEnd(p, end);  // a query id: accepted, ignored
      continue;
    }
    if (!ParseFeature(cx, p, end, &previous)) return false;
  }
  cx.chunk->row_ends.push_back(cx.chunk->indices.size());
  if (previous >= 0) {  // ascending: the last is the largest
    cx.chunk->max_index = std::max(cx.chunk->max_index, static_cast<uint64_t>(previous));
  }
  return true;
}

}  // namespace

void ParseChunk(std::string_view text, const IndexRules& rules, Chunk* chunk) {
  // Sized for RCV1-like text (about 14 bytes per entry); vectors grow past it if needed.
  chunk->indices.reserve(text.size() / 12);
  chunk->values.reserve(text.size() / 12);
  LineContext cx{text.data(), 0, rules, chunk};
  data_internal::ForEachLine(text, chunk, [&](const char* begin, const char* end) {
    cx.begin = begin;
    cx.line = chunk->lines;
    return ParseLine(cx, begin, end);
  });
}

namespace {

constexpr const char* kZeroNote =
    "indices are 1-based under zero-based no: read the file with zero-based yes or auto if its "
    "indices start at 0";

}  // namespace

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

void CheckMaxFeatures(const std::string& name, const LibsvmOptions& options) {
  if (options.max_features >= kIndexLimit) {
    throw Error(name + ": the feature count given (--features) " +
                std::to_string(options.max_features) + " is too large: expected at most 2^32 - 1");
  }
}

}  // namespace parsgd::libsvm_internal
