// Hashed features: the one way text tokens become feature columns (the "hashing trick",
// Weinberger et al., ICML 2009), so that a reader needs no vocabulary and a saved model reads new
// text exactly as its training text was read.
//
// The hash is MurmurHash3's 32-bit x86 function (Austin Appleby's public-domain design) of a
// token's bytes as they are in the file (no case folding, no Unicode normalisation):
//   - a word w:                          h(w) = Murmur3(w, seed 0)
//   - a word n-gram w1 ... wn (n >= 2):  g1 = h(w1), gk = Fmix32(gk-1 * 16777619 XOR h(wk)),
//                                        the n-gram's hash is gn (Fmix32: Murmur3's finaliser)
//   - a character n-gram c of the word wrapped as "<w>" (fastText's boundary marks; n counts UTF-8
//     characters, not bytes):            Murmur3(c, seed 1)
// A hash h lands in bucket h mod 2^bits with the sign + when its bit 31 is 0, - when 1 (signed
// hashing: two tokens that collide cancel in expectation instead of adding up). A row's value in a
// bucket is the sum of the signs that land there (a token twice counts twice); the row is then
// scaled to unit Euclidean norm (so that one step size suits short and long lines, as
// scikit-learn's HashingVectorizer normalises by default), and buckets whose signs cancelled are
// not stored.
#pragma once

#include <cstdint>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parsgd {

// The text formats whose features are hashed (the numbers are what model files and caches record).
enum class HashedText : uint32_t {
  kFasttext = 1,  // fastText's __label__ lines: words, word and character n-grams (data/fasttext.hpp)
  // Vowpal Wabbit's text: named features in namespaces, interactions (data/vw.hpp), every feature
  // name hashed as text (VW's --hash all). A model file or cache that records it reads new text so.
  kVwAll = 2,
  // Vowpal Wabbit's text hashed by VW's own rule: a feature name of decimal digits is its number
  // plus the namespace's hash, any other name hashed as text. What --format vw trains with.
  kVw = 3,
};

// Whether `format` is one of Vowpal Wabbit's.
constexpr bool IsVw(HashedText format) {
  return format == HashedText::kVw || format == HashedText::kVwAll;
}

// How text is hashed into features; a model file records it, and predict and eval hash alike.
struct TextHashing {
  uint32_t bits = 16;      // 2^bits buckets (features); 1 to 31 (see docs/data.md for the default)
  // fastText text:
  uint32_t ngrams = 2;     // word n-grams of 1 to `ngrams` words; 1 to 8
  uint32_t char_min = 0;   // character n-grams of char_min to char_max characters; 0: none
  uint32_t char_max = 0;
  HashedText format = HashedText::kFasttext;
  // VW text: the namespace interactions, as --interactions gives them ("ab,abc": each a run of 2
  // or 3 namespace first letters, comma-separated; empty: none).
  std::string interactions = {};
  bool operator==(const TextHashing&) const = default;
};

// The longest --interactions a model file records.
inline constexpr std::size_t kMaxInteractionsBytes = 4096;

inline constexpr uint32_t kMaxHashBits = 31;
inline constexpr uint32_t kMaxWordNgrams = 8;
inline constexpr uint32_t kMaxCharNgram = 16;

// Throws parsgd::Error naming the setting when `hashing` is outside the ranges above (or
// char_min > char_max, or only one of them is 0, or the interactions are not runs of 2 or 3
// namespace letters).
void CheckTextHashing(const TextHashing& hashing);

// The terms of an --interactions text ("ab,abc" -> "ab", "abc"; an empty text has none, an empty
// term between commas is one, which CheckTextHashing refuses).
std::vector<std::string_view> SplitInteractions(std::string_view interactions);

// `interactions` without the terms that repeat an earlier one, its letters in any order ('ui,iu'
// pair the same namespaces: VW removes such duplicates, with a warning); `removed` gets each term
// left out.
std::string WithoutDuplicateInteractions(std::string_view interactions,
                                         std::vector<std::string>* removed);
// The warning for term `removed` of `interactions` (WithoutDuplicateInteractions), after the
// option's name: "'ui,iu': 'iu' pairs the namespaces of an earlier term; taken once (as VW does)".
std::string DuplicateInteractionWarning(std::string_view interactions, std::string_view removed);

// MurmurHash3_x86_32 of `key` with `seed`.
uint32_t Murmur3(std::string_view key, uint32_t seed);
// MurmurHash3's 32-bit finaliser (an invertible mix of every bit into every bit).
uint32_t Fmix32(uint32_t h);

// Builds hashed rows: Add the tokens of one row, then Finish it into the CSR arrays. Reused from
// row to row (its buffers are kept); not shared between threads.
class RowHasher {
 public:
  explicit RowHasher(const TextHashing& hashing);

  // The features of the words of one row, in order: each word, its n-grams with the words after
  // it, and its character n-grams, as the settings say.
  void AddWords(std::span<const std::string_view> words);
  // One feature of hash `h` and value `value`, signed and bucketed as above.
  void AddHash(uint32_t h, float value = 1.f);
  // Appends the row (buckets ascending, nonzero values; with `unit_norm`, scaled to unit norm) to
  // `indices` and `values` and starts the next one. A bucket's value is the sum of what landed
  // there in the order added. Returns false, appending nothing, where a bucket's value is not a
  // finite float (values, products of interacting values or their sums beyond float's range).
  [[nodiscard]] bool Finish(std::vector<uint32_t>& indices, std::vector<float>& values,
                            bool unit_norm = true);

 private:
  void AddCharNgrams(std::string_view word);

  TextHashing hashing_;
  uint32_t mask_;
  std::vector<uint32_t> word_hashes_;
  // (bucket << 32 | the feature's place in the row, signed value), one per feature added
  std::vector<std::pair<uint64_t, float>> entries_;
  std::string wrapped_;
  std::vector<uint32_t> starts_;
};

}  // namespace parsgd
