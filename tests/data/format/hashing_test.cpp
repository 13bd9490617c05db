#include "parsgd/data/hashing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "data_test_util.hpp"

namespace parsgd {
namespace {

// MurmurHash3_x86_32's published test vectors (the reference implementation's outputs).
TEST(Hashing, Murmur3MatchesThePublishedVectors) {
  EXPECT_EQ(Murmur3("", 0), 0u);
  EXPECT_EQ(Murmur3("", 1), 0x514E28B7u);
  EXPECT_EQ(Murmur3("", 0xffffffffu), 0x81F16F39u);
  EXPECT_EQ(Murmur3(std::string_view("\0\0\0\0", 4), 0), 0x2362F9DEu);
  EXPECT_EQ(Murmur3("aaaa", 0x9747b28cu), 0x5A97808Au);
  EXPECT_EQ(Murmur3("a", 0x9747b28cu), 0x7FA09EA6u);
  EXPECT_EQ(Murmur3("Hello, world!", 0x9747b28cu), 0x24884CBAu);
  EXPECT_EQ(Murmur3("The quick brown fox jumps over the lazy dog", 0x9747b28cu), 0x2FA826CDu);
}

// The row of `words` under `hashing`, as bucket -> value.
std::map<uint32_t, float> Row(std::vector<std::string_view> words, const TextHashing& hashing) {
  RowHasher hasher(hashing);
  hasher.AddWords(words);
  std::vector<uint32_t> indices;
  std::vector<float> values;
  EXPECT_TRUE(hasher.Finish(indices, values));
  EXPECT_TRUE(std::is_sorted(indices.begin(), indices.end()));
  std::map<uint32_t, float> row;
  for (std::size_t i = 0; i < indices.size(); ++i) row[indices[i]] = values[i];
  return row;
}

// Hand computation of the documented rule: bucket h mod 2^bits, sign from bit 31, unit norm.
void Expect(const std::map<uint32_t, float>& row, const std::vector<uint32_t>& hashes,
            uint32_t bits) {
  std::map<uint32_t, double> sums;
  for (uint32_t h : hashes) sums[h & ((uint32_t{1} << bits) - 1)] += (h >> 31) ? -1 : 1;
  double norm = 0;
  for (auto& [b, v] : sums) norm += v * v;
  norm = std::sqrt(norm);
  std::map<uint32_t, float> expected;
  for (auto& [b, v] : sums) {
    if (v != 0) expected[b] = static_cast<float>(v / norm);
  }
  ASSERT_EQ(row.size(), expected.size());
  for (auto& [b, v] : expected) EXPECT_FLOAT_EQ(row.at(b), v) << "bucket " << b;
}

TEST(Hashing, WordsAndWordNgramsLandInTheDocumentedBuckets) {
  const uint32_t a = Murmur3("cat", 0), b = Murmur3("sat", 0), c = Murmur3("mat", 0);
  Expect(Row({"cat", "sat", "mat"}, {.bits = 31, .ngrams = 1}), {a, b, c}, 31);
  const uint32_t ab = Fmix32(a * 16777619u ^ b), bc = Fmix32(b * 16777619u ^ c);
  const uint32_t abc = Fmix32(ab * 16777619u ^ c);
  Expect(Row({"cat", "sat", "mat"}, {.bits = 31, .ngrams = 2}), {a, ab, b, bc, c}, 31);
  Expect(Row({"cat", "sat", "mat"}, {.bits = 31, .ngrams = 3}), {a, ab, abc, b, bc, c}, 31);
  // A word twice counts twice; few bits fold the same hashes into fewer buckets.
  Expect(Row({"cat", "cat", "sat"}, {.bits = 3, .ngrams = 1}), {a, a, b}, 3);
}

TEST(Hashing, CharacterNgramsCountUtf8CharactersOfTheWrappedWord) {
  const TextHashing h{.bits = 31, .ngrams = 1, .char_min = 2, .char_max = 3};
  auto g = [](std::string_view s) { return Murmur3(s, 1); };
  Expect(Row({"ab"}, h), {Murmur3("ab", 0), g("<a"), g("<ab"), g("ab"), g("ab>"), g("b>")}, 31);
  // "é" is two bytes and one character: "<é>" has the 2-grams "<é" and "é>" and the 3-gram "<é>".
  Expect(Row({"\xC3\xA9"}, h),
         {Murmur3("\xC3\xA9", 0), g("<\xC3\xA9"), g("<\xC3\xA9>"), g("\xC3\xA9>")}, 31);
  // 1-grams leave out the boundary marks alone.
  Expect(Row({"ab"}, {.bits = 31, .ngrams = 1, .char_min = 1, .char_max = 1}),
         {Murmur3("ab", 0), g("a"), g("b")}, 31);
}

TEST(Hashing, CollidingTokensOfOppositeSignCancel) {
  // Two words in one bucket of 2 with opposite signs: the row is empty (nothing stored).
  std::string first, second;
  for (int i = 0; second.empty(); ++i) {
    const std::string w = "w" + std::to_string(i);
    const uint32_t h = Murmur3(w, 0);
    if (first.empty()) {
      if ((h & 1) == 0 && (h >> 31) == 0) first = w;
    } else if ((h & 1) == 0 && (h >> 31) == 1) {
      second = w;
    }
  }
  EXPECT_TRUE(Row({first, second}, {.bits = 1, .ngrams = 1}).empty());
  EXPECT_EQ(Row({first, first}, {.bits = 1, .ngrams = 1}), (std::map<uint32_t, float>{{0, 1.f}}));
}

TEST(Hashing, SettingsOutOfRangeAreRefusedByName) {
  testing::ExpectError([] { CheckTextHashing({.bits = 0}); }, {"--hash-bits 0"});
  testing::ExpectError([] { CheckTextHashing({.bits = 32}); }, {"--hash-bits 32"});
  testing::ExpectError([] { CheckTextHashing({.ngrams = 0}); }, {"--ngrams 0"});
  testing::ExpectError([] { CheckTextHashing({.char_min = 3, .char_max = 2}); },
                       {"--char-ngrams 3,2"});
  testing::ExpectError([] { CheckTextHashing({.char_min = 0, .char_max = 2}); },
                       {"--char-ngrams 0,2"});
  CheckTextHashing({.bits = 31, .ngrams = 8, .char_min = 1, .char_max = 16});
}

}  // namespace
}  // namespace parsgd
