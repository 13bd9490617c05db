#include "parsgd/data/vw.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <optional>
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

struct Feature {
  uint32_t hash;
  float value;
};

// The interaction terms as namespace letters, and which letters they use.
struct Interactions {
  std::vector<std::string> terms;
  std::array<bool, 256> used{};
};

Interactions ParseInteractions(const std::string& text) {
  Interactions out;
  for (std::string_view term : SplitInteractions(text)) {
    out.terms.emplace_back(term);
    for (char c : term) out.used[static_cast<unsigned char>(c)] = true;
  }
  return out;
}

uint32_t Fold(uint32_t a, uint32_t b) { return Fmix32((a * 16777619u) ^ b); }

// The most features one line's interactions may make (each is hashed and sorted).
constexpr double kMaxInteractionFeatures = 1 << 22;

// How many features the interactions of `x` make from these namespaces (as AddInteractions).
double InteractionCount(const Interactions& x,
                        const std::array<std::vector<Feature>, 256>& by_letter) {
  double total = 0;
  for (const std::string& term : x.terms) {
    double count = 1;
    for (std::size_t t = 0; t < term.size();) {
      std::size_t run = 1;  // a run of equal letters: combinations with repetition
      while (t + run < term.size() && term[t + run] == term[t]) ++run;
      const double n = static_cast<double>(by_letter[static_cast<unsigned char>(term[t])].size());
      double ways = 1;
      for (std::size_t k = 0; k < run; ++k) ways = ways * (n + static_cast<double>(k)) / (k + 1);
      count *= ways;
      t += run;
    }
    total += count;
  }
  return total;
}

// The interaction features of one row: each term's products of the features of its letters'
// namespaces (adjacent equal letters: each unordered combination once).
void AddInteractions(const Interactions& x, const std::array<std::vector<Feature>, 256>& by_letter,
                     RowHasher& hasher) {
  for (const std::string& term : x.terms) {
    const auto& a = by_letter[static_cast<unsigned char>(term[0])];
    const auto& b = by_letter[static_cast<unsigned char>(term[1])];
    const bool ab = term[0] == term[1];
    if (term.size() == 2) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = ab ? i : 0; j < b.size(); ++j) {
          hasher.AddHash(Fold(a[i].hash, b[j].hash), a[i].value * b[j].value);
        }
      }
      continue;
    }
    const auto& c = by_letter[static_cast<unsigned char>(term[2])];
    const bool bc = term[1] == term[2];
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (std::size_t j = ab ? i : 0; j < b.size(); ++j) {
        const uint32_t h = Fold(a[i].hash, b[j].hash);
        const float v = a[i].value * b[j].value;
        for (std::size_t k = bc ? j : 0; k < c.size(); ++k) {
          hasher.AddHash(Fold(h, c[k].hash), v * c[k].value);
        }
      }
    }
  }
}

// The first `c` in [p, e), or nullptr.
const char* Find(const char* p, const char* e, char c) {
  const std::string_view range(p, static_cast<std::size_t>(e - p));
  const std::size_t at = range.find(c);
  return at == std::string_view::npos ? nullptr : p + at;
}

// A finite number filling [p, e) exactly, or nullopt.
std::optional<float> Number(const char* p, const char* e) {
  float v = 0;
  const char* end = data_internal::ParseFloat(p, e, &v);
  if (end != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Whether a number starts at p ("0.7y" does, "red" does not).
bool NumberStarts(const char* p, const char* e) {
  float v = 0;
  return data_internal::ParseFloat(p, e, &v) != nullptr;
}

// A feature's hash (vw.hpp): under VW's own rule a name of decimal digits is its number (modulo
// 2^32) plus the namespace's hash; any other name, and every name under --hash all, is
// Murmur3(name, namespace hash).
uint32_t FeatureHash(std::string_view name, uint32_t ns_hash, HashedText format) {
  if (format == HashedText::kVw) {
    uint32_t number = 0;
    bool digits = true;
    for (char c : name) {
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      number = number * 10 + static_cast<uint32_t>(c - '0');
    }
    if (digits) return number + ns_hash;
  }
  return Murmur3(name, ns_hash);
}

// The rows of `piece` into `chunk`; stops at the first malformed line. `options.hashing` is the
// resolved one (VwLines).
void ParseChunk(std::string_view piece, const VwOptions& options, const Interactions& x,
                Chunk* chunk) {
  RowHasher hasher(options.hashing);
  std::array<std::vector<Feature>, 256> by_letter;
  chunk->letters.assign(256, 0);
  data_internal::ForEachLine(piece, chunk, [&](const char* begin, const char* end) {
    auto fail = [&](const char* at, std::string message) {
      chunk->error = ChunkError{chunk->lines, static_cast<uint64_t>(at - begin) + 1,
                                std::move(message)};
      return false;
    };
    const char* bar = Find(begin, end, '|');
    const char* head_end = bar != nullptr ? bar : end;
    // The head: label, importance, tag.
    std::optional<float> label;
    float importance = 1;
    int numbers = 0;
    bool tag = false;
    bool any = false;
    const char* bar_tag = nullptr;  // a word written against the bar: the tag, whatever it is
    for (const char* p = begin; p < head_end;) {
      while (p < head_end && IsSpace(*p)) ++p;
      const char* e = p;
      while (e < head_end && !IsSpace(*e)) ++e;
      if (p == e) break;
      any = true;
      const bool against_bar = e == bar;
      const std::optional<float> number =
          *p == '\'' || tag || against_bar ? std::nullopt : Number(p, e);
      if (*p == '\'' || against_bar) {
        tag = true;  // 'tag, or a tag written against the bar (as VW reads it, even "0|")
        if (against_bar && *p != '\'') bar_tag = p;
      } else if (!number) {
        return fail(p, fmt::format("{}: expected a label, an importance or a 'tag before the "
                                   "first '|'",
                                   data_internal::QuoteSpan(p, e)));
      } else if (numbers == 0) {
        label = number;
        ++numbers;
      } else if (numbers == 1) {
        if (*number < 0) {
          return fail(p, fmt::format("importance {}: an example's weight is 0 or more",
                                     data_internal::QuoteSpan(p, e)));
        }
        importance = *number;
        ++numbers;
      } else {
        return fail(p, fmt::format("{}: a third number (VW's base, for residual regression) is "
                                   "not read; remove it",
                                   data_internal::QuoteSpan(p, e)));
      }
      p = e;
    }
    if (bar == nullptr) {
      if (!any) return true;  // a blank line: not a row
      return fail(begin, "no '|': a line is 'label |namespace feature ...'");
    }
    if (!label && !options.labels_optional) {
      if (bar_tag != nullptr && Number(bar_tag, bar)) {
        return fail(begin, fmt::format("no label: {}, written against the '|', is the example's "
                                       "tag (as VW reads it); put a space before the '|'",
                                       data_internal::QuoteSpan(bar_tag, bar)));
      }
      return fail(begin, "no label: a training line starts with its label ('1 |f a b')");
    }
    // The namespaces.
    for (const char* p = bar; p < end;) {
      ++p;  // past the '|'
      const char* next = Find(p, end, '|');
      if (next == nullptr) next = end;
      std::string_view name;
      float scale = 1;
      if (p < next && !IsSpace(*p)) {
        const char* e = p;
        while (e < next && !IsSpace(*e)) ++e;
        const char* colon = Find(p, e, ':');
        name = std::string_view(p, (colon != nullptr ? colon : e) - p);
        if (colon != nullptr) {
          const std::optional<float> s = Number(colon + 1, e);
          if (!s) {
            return fail(colon + 1, fmt::format("namespace scale {}: expected a finite number",
                                               data_internal::QuoteSpan(colon + 1, e)));
          }
          scale = *s;
        }
        p = e;
      }
      const uint32_t ns_hash = name.empty() ? 0 : Murmur3(name, 0);
      const auto letter = static_cast<unsigned char>(name.empty() ? ' ' : name[0]);
      chunk->letters[letter] = 1;
      uint32_t anonymous = 0;  // the namespace's features without a name, counted (VW's rule)
      for (;;) {
        while (p < next && IsSpace(*p)) ++p;
        if (p == next) break;
        const char* e = p;
        while (e < next && !IsSpace(*e)) ++e;
        const char* colon = Find(p, e, ':');
        const char* name_end = colon != nullptr ? colon : e;
        float value = 1;
        // A value that is a word ("color:red", no number starting it) makes the feature its
        // name and value: the value hashed seeded with the name's hash, its value 1 (VW's rule;
        // the namespace's scale is not applied, as VW does not).
        const bool word = colon != nullptr && colon + 1 < e && !NumberStarts(colon + 1, e);
        if (colon != nullptr && !word) {
          const std::optional<float> v = Number(colon + 1, e);
          if (!v) {
            return fail(colon + 1, fmt::format("feature value {}: expected a finite number",
                                               data_internal::QuoteSpan(colon + 1, e)));
          }
          value = *v;
        }
        if (!word) value *= scale;
        if (!std::isfinite(value)) {
          return fail(p, "the feature's value times its namespace's scale is not finite");
        }
        // A feature without a name (':0.5') is VW's anonymous one: the namespace's hash plus
        // its place among the namespace's anonymous features.
        const bool named = name_end != p;
        const uint32_t place = named || word ? 0 : anonymous++;
        if (value != 0) {
          const HashedText format = options.hashing.format;
          const uint32_t h =
              word ? FeatureHash(std::string_view(colon + 1, e - colon - 1),
                                 FeatureHash(std::string_view(p, name_end - p), ns_hash, format),
                                 format)
              : named ? FeatureHash(std::string_view(p, name_end - p), ns_hash, format)
                      : ns_hash + place;
          hasher.AddHash(h, value);
          if (x.used[letter]) by_letter[letter].push_back({h, value});
        }
        p = e;
      }
      p = next;
    }
    if (const double count = InteractionCount(x, by_letter); count > kMaxInteractionFeatures) {
      return fail(begin, fmt::format("the interactions make {:.0f} features of this line: more "
                                     "than {:.0f}",
                                     count, kMaxInteractionFeatures));
    }
    AddInteractions(x, by_letter, hasher);
    for (auto& features : by_letter) features.clear();
    if (!hasher.Finish(chunk->indices, chunk->values, /*unit_norm=*/false)) {
      return fail(begin, "a feature's value is beyond float's range (a value, a product of "
                         "interacting values or a sum of values hashed to one column)");
    }
    chunk->labels.push_back(label.value_or(0.f));
    chunk->weights.push_back(importance);
    chunk->row_ends.push_back(chunk->indices.size());
    return true;
  });
}

Dataset Parse(const data_internal::TextSource& source, const std::string& name,
              const VwOptions& options) {
  const data_internal::LineParser lines = data_internal::VwLines(options);
  bool empty = false;
  std::vector<Chunk> chunks =
      data_internal::ParseSource(source, name, options.chunk_bytes, lines.parse, &empty);
  if (empty) throw DataError(name, 0, 0, "empty file: expected " + lines.expected);
  data_internal::ThrowFirstError(chunks, name);
  // Interactions given for this file (not a model's or a cache's record, which other files of
  // the data may lack namespaces of): a letter that starts none of its namespaces pairs nothing.
  if (!IsVw(options.hashing.format)) {
    std::array<bool, 256> met{};
    for (const Chunk& chunk : chunks) {
      for (std::size_t c = 0; c < chunk.letters.size(); ++c) met[c] |= chunk.letters[c] != 0;
    }
    for (const std::string_view term : SplitInteractions(lines.hashing.interactions)) {
      for (const char c : term) {
        if (met[static_cast<unsigned char>(c)]) continue;
        std::string letters;
        for (std::size_t l = 0; l < met.size(); ++l) {
          if (!met[l]) continue;
          letters += (letters.empty() ? "" : ", ") +
                     (l == ' ' ? std::string("' ' (the default namespace)")
                               : "'" + std::string(1, static_cast<char>(l)) + "'");
        }
        throw DataError(name, 0, 0,
                        fmt::format("--interactions '{}': no namespace starts with '{}' (the "
                                    "term '{}' would pair nothing); the namespaces start with {}",
                                    lines.hashing.interactions, c, term,
                                    letters.empty() ? "nothing: no line names one" : letters));
      }
    }
  }
  Dataset data =
      data_internal::Assemble(std::move(chunks), lines.features, name, 0, ZeroBased::kAuto);
  Dataset::Parts parts = data.parts();
  parts.hashing = lines.hashing;
  return Dataset(std::move(parts));
}

}  // namespace

Dataset ParseVw(std::string_view text, const std::string& name, const VwOptions& options) {
  return Parse({.text = text}, name, options);
}

Dataset ReadVw(const std::string& path, const VwOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  return Parse({.text = std::string_view(file->chars(), file->size()), .file = file.get()}, path,
               options);
}

data_internal::LineParser data_internal::VwLines(const VwOptions& options) {
  VwOptions resolved = options;
  TextHashing& hashing = resolved.hashing;
  // A VW rule given (a model's or a cache's record) is kept; anything else reads as VW's own rule.
  if (!IsVw(hashing.format)) hashing.format = HashedText::kVw;
  hashing.ngrams = TextHashing{}.ngrams;  // fastText's settings do not apply: recorded as defaults
  hashing.char_min = hashing.char_max = 0;
  CheckTextHashing(hashing);
  return {.parse = [resolved, x = ParseInteractions(hashing.interactions)](
                       std::string_view piece, Chunk* c) { ParseChunk(piece, resolved, x, c); },
          .hashing = hashing,
          .features = uint64_t{1} << hashing.bits,
          .expected = "lines of 'label |namespace feature ...'"};
}

Dataset data_internal::ReadVwFrom(ByteStream& in, std::string head, const std::string& name,
                                  const VwOptions& options) {
  return Parse({.text = head, .stream = &in}, name, options);
}

}  // namespace parsgd
