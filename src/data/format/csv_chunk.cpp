#include "data/format/csv_chunk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace parsgd::csv_internal {
namespace {

using data_internal::Chunk;
using data_internal::ChunkError;
using data_internal::QuoteSpan;

// Spaces, and tabs where they do not separate the fields, around a field.
bool IsBlank(char c, char delimiter) { return c == ' ' || (c == '\t' && delimiter != '\t'); }

const char* SkipBlanks(const char* p, const char* end, char delimiter) {
  while (p < end && IsBlank(*p, delimiter)) ++p;
  return p;
}

// The field at p (to the next delimiter or the line end), quoted for messages; long fields are
// cut.
std::string Quote(const char* p, const char* end, char delimiter) {
  const char* e = std::find(p, end, delimiter);
  while (e > p && IsBlank(e[-1], delimiter)) --e;
  return QuoteSpan(p, e);
}

// The chunk's label texts, each once (Chunk::label_texts), found by their text.
struct LabelTexts {
  std::unordered_map<std::string, uint32_t> ids;
  std::string key;  // reused for lookups
  uint32_t last = data_internal::kNoLabelText;  // the previous text's (rows of a class often run)

  // The id of `text` in chunk->label_texts, added if new; kNoLabelText once the chunk holds
  // kMaxLabelTexts of them.
  uint32_t Intern(std::string_view text, Chunk& chunk) {
    if (last != data_internal::kNoLabelText && chunk.label_texts[last] == text) return last;
    key.assign(text);
    if (const auto at = ids.find(key); at != ids.end()) return last = at->second;
    if (chunk.label_texts.size() >= data_internal::kMaxLabelTexts) return data_internal::kNoLabelText;
    last = static_cast<uint32_t>(chunk.label_texts.size());
    chunk.label_texts.push_back(key);
    ids.emplace(key, last);
    return last;
  }
};

// The chunk's categorical values, each once per column (Chunk::category_texts), found by their text.
struct CategoryTexts {
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>>> ids;
  // The row's categorical values so far (column, id): added at its end, after its numbers.
  std::vector<std::pair<uint32_t, uint32_t>> pending;

  void Add(uint32_t column, std::string_view text, Chunk& chunk) {
    if (ids.size() <= column) ids.resize(column + 1);
    if (chunk.category_texts.size() <= column) chunk.category_texts.resize(column + 1);
    auto& map = ids[column];
    auto at = map.find(text);
    if (at == map.end()) {
      const auto id = static_cast<uint32_t>(chunk.category_texts[column].size());
      chunk.category_texts[column].emplace_back(text);
      at = map.emplace(std::string(text), id).first;
    }
    pending.emplace_back(column, at->second);
  }
};

struct LineContext {
  const char* begin;  // start of the line, for columns
  uint64_t line;
  const RowShape& shape;
  Chunk* chunk;
  LabelTexts* texts;
  CategoryTexts* categories;

  bool Fail(const char* at, std::string message) const {
    chunk->error = ChunkError{line, static_cast<uint64_t>(at - begin) + 1, std::move(message)};
    return false;
  }
  std::string Field(uint64_t f) const {
    return std::string(f == shape.label ? "label field " : f == shape.weight ? "weight field " : "field ") +
           std::to_string(f + 1);
  }
  // Feature field f's role (RowShape::roles).
  FieldRole Role(uint64_t f) const {
    if (!shape.roles.empty()) return shape.roles[f];
    return {FieldKind::kNumber,
            static_cast<uint32_t>(f - (f > shape.label ? 1 : 0) - (f > shape.weight ? 1 : 0))};
  }
};

// A quoted field at p ('"', then "" for a quote inside, up to the closing '"'), unquoted into
// `text`; returns the end after the closing quote, or nullptr (with the error recorded; `what`
// names the field: "label", "value").
const char* ParseQuoted(const LineContext& cx, const char* p, const char* end, std::string& text,
                        const char* what = "label") {
  const char* open = p;
  text.clear();
  for (++p;; ++p) {
    if (p == end) {
      return cx.Fail(open, fmt::format("unterminated quoted {} (a quote may not span lines)", what)),
             nullptr;
    }
    if (*p == '"') {
      if (p + 1 < end && p[1] == '"') {
        ++p;
      } else {
        return p + 1;
      }
    }
    text += *p;
  }
}

// The label field starting at p (blanks skipped): a number, or any other text, which makes the
// column's labels class names (as people write them: "setosa", "yes", ...); a text label is kept
// in Chunk::label_texts, at most kMaxLabelTexts distinct ones.
bool ParseLabel(const LineContext& cx, const char*& p, const char* end) {
  Chunk& chunk = *cx.chunk;
  if (*p != '"') {  // the common case first: a finite number up to the delimiter or the line end
    float value = 0;
    const char* q = data_internal::ParseFloat(p, end, &value);
    if (q != nullptr) {
      q = SkipBlanks(q, end, cx.shape.delimiter);
      if ((q == end || *q == cx.shape.delimiter) && std::isfinite(value)) {
        chunk.labels.push_back(value);
        if (chunk.text_labels) chunk.label_ids.push_back(data_internal::kNoLabelText);
        p = q;
        return true;
      }
    }
  }
  std::string quoted;
  std::string_view text;
  const char* after;
  if (*p == '"') {
    after = ParseQuoted(cx, p, end, quoted);
    if (after == nullptr) return false;
    text = quoted;
  } else {
    after = std::find(p, end, cx.shape.delimiter);
    const char* e = after;
    while (e > p && IsBlank(e[-1], cx.shape.delimiter)) --e;
    text = std::string_view(p, static_cast<std::size_t>(e - p));
  }
  const char* q = SkipBlanks(after, end, cx.shape.delimiter);
  if (q != end && *q != cx.shape.delimiter) {
    return cx.Fail(q, cx.Field(cx.shape.label) + ": text after the closing quote");
  }
  if (*p != '"' && IsMissingValue(text)) {
    return cx.Fail(p, cx.Field(cx.shape.label) + ": " + Quote(p, end, cx.shape.delimiter) +
                          " is a missing label: a row needs its label (quote a class of that "
                          "name)");
  }
  float value = 0;
  const char* text_end = text.data() + text.size();
  const bool number = *p != '"' && data_internal::ParseFloat(text.data(), text_end, &value) == text_end;
  if (number && !std::isfinite(value)) {
    return cx.Fail(p, cx.Field(cx.shape.label) + ": " + Quote(p, end, cx.shape.delimiter) +
                          " is not finite: expected a finite number or a class name");
  }
  if (number) {
    chunk.labels.push_back(value);
    if (chunk.text_labels) chunk.label_ids.push_back(data_internal::kNoLabelText);
  } else {
    const uint32_t id = cx.texts->Intern(text, chunk);
    if (id == data_internal::kNoLabelText) {
      return cx.Fail(p, fmt::format("{}: {} makes more than {} distinct class names",
                                    cx.Field(cx.shape.label), Quote(p, end, cx.shape.delimiter),
                                    data_internal::kMaxLabelTexts));
    }
    if (!chunk.text_labels) {  // the rows before: numbers
      chunk.text_labels = true;
      chunk.label_ids.assign(chunk.labels.size(), data_internal::kNoLabelText);
    }
    chunk.labels.push_back(0.f);
    chunk.label_ids.push_back(id);
  }
  p = q;
  return true;
}

// A feature field's number (or the row's weight): kept where it is not 0.
inline void StoreNumber(const LineContext& cx, FieldRole role, bool weight, float value) {
  Chunk& chunk = *cx.chunk;
  if (weight) {
    chunk.weights.push_back(value);
    return;
  }
  if (role.kind == FieldKind::kAuto) chunk.numbers_in[role.column] = 1;  // sized by ParseChunk
  if (value != 0) {
    chunk.indices.push_back(role.column);
    chunk.values.push_back(value);
  }
}

// One field starting at p; on success p is left at the delimiter or the line end after it.
bool ParseField(const LineContext& cx, uint64_t f, const char*& p, const char* end) {
  const char* field = p;
  p = SkipBlanks(p, end, cx.shape.delimiter);
  if (f == cx.shape.label) {
    if (p == end || *p == cx.shape.delimiter) {
      return cx.Fail(field, cx.Field(f) + " is empty: expected a number or a class name");
    }
    return ParseLabel(cx, p, end);
  }
  const bool weight = f == cx.shape.weight;
  const FieldRole role = weight ? FieldRole{} : cx.Role(f);
  if (role.kind == FieldKind::kIgnored) {  // left out: only its end is found
    if (p != end && *p == '"') {
      std::string unused;
      const char* after = ParseQuoted(cx, p, end, unused, "value");
      if (after == nullptr) return false;
      p = SkipBlanks(after, end, cx.shape.delimiter);
      if (p != end && *p != cx.shape.delimiter) {
        return cx.Fail(p, cx.Field(f) + ": text after the closing quote");
      }
      return true;
    }
    p = std::find(p, end, cx.shape.delimiter);
    return true;
  }
  if (role.kind != FieldKind::kCategory) {
    // The common case first: a finite number (a weight 0 or more) up to the delimiter or the line
    // end. Anything else (a missing value, text, NaN, an error) takes the way below.
    float value = 0;
    const char* q = data_internal::ParseFloat(p, end, &value);
    if (q != nullptr) {
      q = SkipBlanks(q, end, cx.shape.delimiter);
      if ((q == end || *q == cx.shape.delimiter) && std::isfinite(value) &&
          !(weight && value < 0)) {
        StoreNumber(cx, role, weight, value);
        p = q;
        return true;
      }
    }
  }
  if (role.kind != FieldKind::kNumber && p != end && *p == '"') {
    // A quoted categorical value (a quoted "NA" is a value, as a quoted label is a class).
    std::string text;
    const char* after = ParseQuoted(cx, p, end, text, "value");
    if (after == nullptr) return false;
    const char* q = SkipBlanks(after, end, cx.shape.delimiter);
    if (q != end && *q != cx.shape.delimiter) {
      return cx.Fail(q, cx.Field(f) + ": text after the closing quote");
    }
    cx.categories->Add(role.column, text, *cx.chunk);
    p = q;
    return true;
  }
  const char* after = std::find(p, end, cx.shape.delimiter);
  const char* e = after;
  while (e > p && IsBlank(e[-1], cx.shape.delimiter)) --e;
  const std::string_view trimmed(p, static_cast<std::size_t>(e - p));
  if (IsMissingValue(trimmed)) {
    if (weight) {
      return cx.Fail(p == e ? field : p, cx.Field(f) + ": a missing weight: a row weighs 0 or more");
    }
    if (cx.shape.missing == CsvMissing::kZero) {
      p = after;
      return true;
    }
    if (Imputes(cx.shape.missing)) {  // marked for the fill: NaN at the column's own feature
      Chunk& chunk = *cx.chunk;
      chunk.indices.push_back(role.column);
      chunk.values.push_back(std::numeric_limits<float>::quiet_NaN());
      p = after;
      return true;
    }
    return cx.Fail(p == e ? field : p,
                   cx.Field(f) + (p == e ? " is empty" : ": " + Quote(p, end, cx.shape.delimiter)) +
                       ": a missing value (--missing zero, mean, median, most-frequent or "
                       "indicator fills missing values in)");
  }
  if (role.kind == FieldKind::kCategory) {
    cx.categories->Add(role.column, trimmed, *cx.chunk);
    p = after;
    return true;
  }
  float value = 0;
  const char* q = data_internal::ParseFloat(p, end, &value);
  if (q != nullptr) q = SkipBlanks(q, end, cx.shape.delimiter);
  if (q == nullptr || (q != end && *q != cx.shape.delimiter)) {
    if (role.kind == FieldKind::kAuto) {  // text: a categorical value
      cx.categories->Add(role.column, trimmed, *cx.chunk);
      p = after;
      return true;
    }
    return cx.Fail(p, cx.Field(f) + ": expected a number, found " + Quote(p, end, cx.shape.delimiter));
  }
  if (!std::isfinite(value)) {
    return cx.Fail(p,
                   cx.Field(f) + ": " + Quote(p, end, cx.shape.delimiter) + " is not finite: expected a finite number");
  }
  if (weight && value < 0) {
    return cx.Fail(p, cx.Field(f) + ": " + Quote(p, end, cx.shape.delimiter) +
                          ": a row weighs 0 or more");
  }
  StoreNumber(cx, role, weight, value);
  p = q;
  return true;
}

bool ParseLine(const LineContext& cx, const char* p, const char* end) {
  if (SkipBlanks(p, end, cx.shape.delimiter) == end) return true;  // blank: not a row
  cx.categories->pending.clear();
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
    ++p;  // the delimiter
  }
  if (cx.shape.label == fields) cx.chunk->labels.push_back(0.f);  // no label column
  Chunk& chunk = *cx.chunk;
  for (const auto& [column, id] : cx.categories->pending) {
    chunk.categories.push_back({chunk.indices.size(), column});
    chunk.indices.push_back(id);
    chunk.values.push_back(1.f);
  }
  chunk.row_ends.push_back(chunk.indices.size());
  return true;
}

// The common line parsed in one pass: every field a number as ParseShortDecimal reads it (no
// blanks, quotes, signs '+', exponents or missing values), the label and weight included, no
// categorical column; the line's end found by its last number, so the line is not scanned for
// its end first. Returns the end of the line's break ('\n' or CRLF; `end` where the text ends
// without one), or nullptr where the line is anything else: then nothing of it is kept and
// ParseLine reads it (its errors included).
const char* ParsePlainLine(const LineContext& cx, const char* p, const char* end) {
  Chunk& chunk = *cx.chunk;
  const RowShape& shape = cx.shape;
  const std::size_t entries = chunk.indices.size(), labels = chunk.labels.size(),
                    weights = chunk.weights.size();
  const auto undo = [&] {
    chunk.indices.resize(entries);
    chunk.values.resize(entries);
    chunk.labels.resize(labels);
    chunk.weights.resize(weights);
    return nullptr;
  };
  const char d = shape.delimiter;
  const char* q = p;
  for (uint64_t f = 0; f < shape.fields; ++f) {
    if (f > 0) p = q + 1;  // past the delimiter
    float value;
    q = data_internal::ParseShortDecimal(p, end, &value);
    if (q == nullptr) return undo();
    if (f + 1 < shape.fields) {
      if (q == end || *q != d) return undo();
    } else if (q != end && *q != '\n' && !(*q == '\r' && (q + 1 == end || q[1] == '\n'))) {
      return undo();
    }
    if (f == shape.label) {
      chunk.labels.push_back(value);
    } else if (f == shape.weight) {
      if (value < 0) return undo();
      chunk.weights.push_back(value);
    } else {
      const FieldRole role = cx.Role(f);
      if (role.kind == FieldKind::kIgnored) continue;
      if (role.kind == FieldKind::kCategory) return undo();
      if (role.kind == FieldKind::kAuto) chunk.numbers_in[role.column] = 1;
      if (value != 0) {
        chunk.indices.push_back(role.column);
        chunk.values.push_back(value);
      }
    }
  }
  if (shape.label == shape.fields) chunk.labels.push_back(0.f);  // no label column
  if (chunk.text_labels) chunk.label_ids.push_back(data_internal::kNoLabelText);
  chunk.row_ends.push_back(chunk.indices.size());
  return q != end && *q == '\r' ? q + 1 : q;  // q: where the last number ended
}

}  // namespace

char DetectDelimiter(std::string_view line) {
  std::size_t counts[4] = {0, 0, 0, 0};  // ',', '\t', ';', '|' outside quotes
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    counts[0] += c == ',';
    counts[1] += c == '\t';
    counts[2] += c == ';';
    counts[3] += c == '|';
  }
  const char delimiters[4] = {',', '\t', ';', '|'};
  return delimiters[std::max_element(counts, counts + 4) - counts];
}

void ParseChunk(std::string_view text, const RowShape& shape, Chunk* chunk) {
  LabelTexts texts;
  CategoryTexts categories;
  LineContext cx{text.data(), 0, shape, chunk, &texts, &categories};
  // Sized by the first line's length (a quarter more rows than its length gives, every field
  // nonzero), at most a row or an entry per two bytes: a vector that grows is copied, and
  // reserved memory not written costs no page.
  const void* newline = std::memchr(text.data(), '\n', text.size());
  const std::size_t first_line =
      newline != nullptr ? static_cast<const char*>(newline) - text.data() + 1 : text.size();
  const std::size_t rows = std::min(text.size() / std::max<std::size_t>(first_line, 1) * 5 / 4 + 16,
                                    text.size() / 2 + 1);
  const std::size_t entries = std::min(rows * shape.fields, text.size() / 2 + 1);
  chunk->indices.reserve(entries);
  chunk->values.reserve(entries);
  chunk->labels.reserve(rows);
  chunk->row_ends.reserve(rows);
  chunk->numbers_in.assign(shape.feature_columns, 0);
  // As data_internal::ForEachLine, each line first tried the plain way.
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    cx.begin = p;
    cx.line = chunk->lines;
    const char* line_break = ParsePlainLine(cx, p, end);
    if (line_break == nullptr) {
      const char* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* line_end = newline != nullptr ? newline : end;
      const char* content_end = (line_end > p && line_end[-1] == '\r') ? line_end - 1 : line_end;
      if (!ParseLine(cx, p, content_end)) return;
      line_break = line_end;
    }
    if (line_break == end) break;
    ++chunk->lines;
    p = line_break + 1;
  }
}

}  // namespace parsgd::csv_internal
