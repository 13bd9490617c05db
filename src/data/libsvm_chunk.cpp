#include "libsvm_chunk.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

namespace parsgd::libsvm_internal {
namespace {

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
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(t - p), 40);
  std::string quoted(1, '\'');  // built by appending: GCC 12 warns falsely on "'" + string
  quoted.append(p, n).append(p + n < t ? "...'" : "'");
  return quoted;
}

// Reads a number at p into *out; returns the end of the number, or nullptr if none starts there.
// std::from_chars takes no leading '+', which LIBSVM files often have ("+1").
const char* ParseNumber(const char* p, const char* end, float* out) {
  if (p < end && *p == '+') {
    ++p;
    if (p < end && *p == '-') return nullptr;
  }
  auto [ptr, ec] = std::from_chars(p, end, *out);
  if (ec == std::errc()) return ptr;
  if (ec != std::errc::result_out_of_range) return nullptr;
  // Outside float's range: read it as a double, so that a tiny number becomes the nearest float
  // (0 or a denormal) and a huge one becomes infinity (rejected by the caller as not finite).
  double wide = 0;
  auto [wide_ptr, wide_ec] = std::from_chars(p, end, wide);
  if (wide_ec != std::errc() || std::fabs(wide) > std::numeric_limits<float>::max()) {
    *out = std::numeric_limits<float>::infinity();
    return wide_ptr == p ? ptr : wide_ptr;
  }
  *out = static_cast<float>(wide);
  return wide_ptr;
}

struct LineContext {
  const char* begin;  // start of the line, for columns
  uint64_t line;
  uint64_t max_features;
  Chunk* chunk;

  bool Fail(const char* at, std::string message) const {
    chunk->error = ChunkError{line, static_cast<uint64_t>(at - begin) + 1, std::move(message)};
    return false;
  }
};

bool ParseLabel(const LineContext& cx, const char*& p, const char* end) {
  float label = 0;
  const char* q = ParseNumber(p, end, &label);
  if (q == nullptr || !EndsToken(q, end)) {
    const char* t = TokenEnd(p, end);
    if (std::find(p, t, ':') != t) {
      return cx.Fail(p, "missing label: the line starts with feature " + Quote(p, end) +
                            ", expected a label first");
    }
    return cx.Fail(p, "expected a numeric label, found " + Quote(p, end));
  }
  if (!std::isfinite(label)) {
    return cx.Fail(p, "label " + Quote(p, end) + " is not finite: expected a finite number");
  }
  cx.chunk->labels.push_back(label);
  p = q;
  return true;
}

// Checks a parsed 1-based index (written as `digits`) against the limits and the previous index.
bool CheckIndex(const LineContext& cx, std::string_view digits, uint64_t index, uint64_t previous) {
  const bool too_large = index >= kIndexLimit;
  const bool over_max = cx.max_features != 0 && index > cx.max_features;
  if (index != 0 && !too_large && !over_max && index > previous) return true;  // the usual case
  const char* at = digits.data();
  const std::string text(digits);
  if (index == 0) return cx.Fail(at, "feature index " + text + ": indices are 1-based");
  if (too_large) {
    return cx.Fail(at, "feature index " + text + " is too large: expected an index below 2^32");
  }
  if (over_max) {
    return cx.Fail(
        at, "feature index " + text + " exceeds max_features " + std::to_string(cx.max_features));
  }
  if (index == previous) {
    return cx.Fail(at,
                   "feature index " + text + " is repeated: expected strictly ascending indices");
  }
  return cx.Fail(at, "feature index " + text + " is not ascending: it follows " +
                         std::to_string(previous) + ", expected strictly ascending indices");
}

// One "index:value" token.
bool ParseFeature(const LineContext& cx, const char*& p, const char* end, uint64_t* previous) {
  const char* start = p;
  if (!IsDigit(*p)) {
    if (*p == '-') {
      return cx.Fail(p, "feature index " + Quote(p, end) + " is negative: indices are 1-based");
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
  const char* q = ParseNumber(p, end, &value);
  if (q == nullptr || !EndsToken(q, end)) {
    return cx.Fail(value_at, "expected a numeric value after '" + std::to_string(index) +
                                 ":', found " + Quote(value_at, end));
  }
  if (!std::isfinite(value)) {
    return cx.Fail(value_at, "value " + Quote(value_at, end) + " of feature " +
                                 std::to_string(index) +
                                 " is not finite: expected a finite number");
  }
  cx.chunk->indices.push_back(static_cast<uint32_t>(index - 1));
  cx.chunk->values.push_back(value);
  *previous = index;
  p = q;
  return true;
}

bool ParseLine(const LineContext& cx, const char* p, const char* end) {
  p = SkipBlanks(p, end);
  if (p == end || *p == '#') return true;  // blank or comment-only: not a row
  if (!ParseLabel(cx, p, end)) return false;
  uint64_t previous = 0;
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
  cx.chunk->max_index = std::max(cx.chunk->max_index, previous);  // ascending: last is largest
  return true;
}

}  // namespace

void ParseChunk(std::string_view text, uint64_t max_features, Chunk* chunk) {
  // Sized for RCV1-like text (about 14 bytes per entry); vectors grow past it if needed.
  chunk->indices.reserve(text.size() / 12);
  chunk->values.reserve(text.size() / 12);
  const char* p = text.data();
  const char* const end = p + text.size();
  LineContext cx{p, 0, max_features, chunk};
  while (p < end) {
    const char* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* line_end = newline != nullptr ? newline : end;
    const char* content_end = (line_end > p && line_end[-1] == '\r') ? line_end - 1 : line_end;
    cx.begin = p;
    cx.line = chunk->lines;
    if (!ParseLine(cx, p, content_end)) return;
    if (newline == nullptr) break;
    ++chunk->lines;
    p = newline + 1;
  }
}

}  // namespace parsgd::libsvm_internal
