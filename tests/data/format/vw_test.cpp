#include "parsgd/data/vw.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "data_test_util.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectDataError;

// Row `r` of `d` as bucket -> value.
std::map<uint32_t, float> RowOf(const Dataset& d, uint64_t r) {
  std::map<uint32_t, float> row;
  const SparseRow s = d.row(r);
  for (uint32_t k = 0; k < s.nnz; ++k) row[s.index[k]] = s.value[k];
  return row;
}

// The documented rule by hand: bucket h mod 2^bits, the value negated when bit 31 is set, the
// values landing in one bucket summed.
std::map<uint32_t, float> Expected(const std::vector<std::pair<uint32_t, float>>& features,
                                   uint32_t bits) {
  std::map<uint32_t, double> sums;
  for (auto [h, v] : features) sums[h & ((uint32_t{1} << bits) - 1)] += (h >> 31) ? -v : v;
  std::map<uint32_t, float> row;
  for (auto [b, v] : sums) {
    if (v != 0) row[b] = static_cast<float>(v);
  }
  return row;
}

void ExpectRow(const std::map<uint32_t, float>& row, const std::map<uint32_t, float>& expected) {
  ASSERT_EQ(row.size(), expected.size());
  for (auto [b, v] : expected) EXPECT_FLOAT_EQ(row.at(b), v) << "bucket " << b;
}

// VW's tutorial example (the house prices): a default namespace, an importance, tags. Its third
// line, "0 1 0.5 'third_house | ...", carries a base, which is refused (below).
TEST(Vw, TheTutorialsHousesParseAsVwReadsThem) {
  const VwOptions options{.hashing = {.bits = 31}};
  const Dataset d = ParseVw(
      "0 | price:.23 sqft:.25 age:.05 2006\n1 2 'second_house | price:.18 sqft:.15 age:.35 1976\n",
      "t", options);
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.label(0), 0.f);
  EXPECT_EQ(d.label(1), 1.f);
  ASSERT_EQ(d.weights().size(), 2u);
  EXPECT_EQ(d.weights()[0], 1.f);
  EXPECT_EQ(d.weights()[1], 2.f);
  EXPECT_EQ(d.features(), uint64_t{1} << 31);
  auto h = [](const char* name) { return Murmur3(name, 0); };  // the default namespace's hash: 0
  // The years are names of digits: VW's rule takes each as its number (plus the namespace's 0).
  ExpectRow(RowOf(d, 0), Expected({{h("price"), .23f}, {h("sqft"), .25f}, {h("age"), .05f},
                                   {2006, 1.f}},
                                  31));
  ExpectRow(RowOf(d, 1), Expected({{h("price"), .18f}, {h("sqft"), .15f}, {h("age"), .35f},
                                   {1976, 1.f}},
                                  31));
  ExpectDataError(
      [&] { ParseVw("0 1 0.5 'third_house | price:.53 sqft:.32 age:.87 1924\n", "t", options); },
      "t", 1, 5, "a third number (VW's base");
  ASSERT_TRUE(d.hashing().has_value());
  EXPECT_EQ(d.hashing()->format, HashedText::kVw);
}

// VW's input-format page's zebra: named namespaces with a scale, a tag against the bar.
TEST(Vw, NamespacesHashTheirFeaturesAndScaleTheirValues) {
  const VwOptions options{.hashing = {.bits = 31}};
  const Dataset d = ParseVw(
      "1 1.0 zebra|MetricFeatures:3.28 height:1.5 length:2.0 |Says black with white stripes "
      "|OtherFeatures NumberOfLegs:4.0 HasStripes\n",
      "t", options);
  const uint32_t metric = Murmur3("MetricFeatures", 0), says = Murmur3("Says", 0),
                 other = Murmur3("OtherFeatures", 0);
  ExpectRow(RowOf(d, 0),
            Expected({{Murmur3("height", metric), 1.5f * 3.28f},
                      {Murmur3("length", metric), 2.0f * 3.28f},
                      {Murmur3("black", says), 1.f},
                      {Murmur3("with", says), 1.f},
                      {Murmur3("white", says), 1.f},
                      {Murmur3("stripes", says), 1.f},
                      {Murmur3("NumberOfLegs", other), 4.f},
                      {Murmur3("HasStripes", other), 1.f}},
                     31));
  EXPECT_TRUE(d.weights().empty());  // every importance 1
}

// VW's own rule: a name of decimal digits is its number (modulo 2^32) plus its namespace's hash; a
// name with anything else in it is hashed as text. Under --hash all (kVwAll, which a model or
// cache made so records) every name is hashed as text.
TEST(Vw, NamesOfDigitsAreTheirNumbersAsVwHashesThem) {
  const uint32_t a = Murmur3("a", 0);
  const std::string line = "1 |a 12 007:2 12a x4 4294967297 |b 3\n";
  const Dataset d = ParseVw(line, "t", {.hashing = {.bits = 31}});
  EXPECT_EQ(d.hashing()->format, HashedText::kVw);
  ExpectRow(RowOf(d, 0), Expected({{a + 12, 1.f}, {a + 7, 2.f}, {Murmur3("12a", a), 1.f},
                                   {Murmur3("x4", a), 1.f}, {a + 1, 1.f},
                                   {Murmur3("b", 0) + 3, 1.f}},
                                  31));
  const Dataset all =
      ParseVw(line, "t", {.hashing = {.bits = 31, .format = HashedText::kVwAll}});
  EXPECT_EQ(all.hashing()->format, HashedText::kVwAll);
  ExpectRow(RowOf(all, 0),
            Expected({{Murmur3("12", a), 1.f}, {Murmur3("007", a), 2.f}, {Murmur3("12a", a), 1.f},
                      {Murmur3("x4", a), 1.f}, {Murmur3("4294967297", a), 1.f},
                      {Murmur3("3", Murmur3("b", 0)), 1.f}},
                     31));
  // Features without a name are VW's anonymous ones: the namespace's hash plus their place among
  // the namespace's anonymous features, counted again in each namespace.
  const Dataset anonymous = ParseVw("1 |a :0.5 :0.7 x |b :2\n", "t", {.hashing = {.bits = 31}});
  ExpectRow(RowOf(anonymous, 0), Expected({{a, 0.5f}, {a + 1, 0.7f}, {Murmur3("x", a), 1.f},
                                           {Murmur3("b", 0), 2.f}},
                                          31));
  // Numbers fill distinct columns: 2^bits of them never collide.
  const Dataset small = ParseVw("1 | 0 1 2 3 4 5 6 7\n", "t", {.hashing = {.bits = 3}});
  EXPECT_EQ(small.row(0).nnz, 8u);
}

// The last word before the first '|', written against it with no space, is the example's tag
// whatever it looks like (as VW reads it): "1 0|a x" is label 1 with the tag "0", not an
// importance of 0, and "1|a x" has no label.
TEST(Vw, AWordWrittenAgainstTheBarIsTheTagEvenWhenItIsANumber) {
  const VwOptions options{.hashing = {.bits = 8}};
  const Dataset d =
      ParseVw("1 0|a x\n-1 2 17|a y\n1 3 'id|a z\n-1 1085919|a x\n", "t", options);
  ASSERT_EQ(d.rows(), 4u);
  EXPECT_EQ(d.label(0), 1.f);
  EXPECT_EQ(d.label(1), -1.f);
  EXPECT_EQ(d.label(2), 1.f);
  EXPECT_EQ(d.label(3), -1.f);
  ASSERT_EQ(d.weights().size(), 4u);
  EXPECT_EQ(d.weights()[0], 1.f);
  EXPECT_EQ(d.weights()[1], 2.f);
  EXPECT_EQ(d.weights()[2], 3.f);
  EXPECT_EQ(d.weights()[3], 1.f);
  // A lone number against the bar is the tag: the line has no label, which training refuses
  // naming the cause; data to predict reads it as unlabelled.
  ExpectDataError([&] { ParseVw("1|a x\n", "t", options); }, "t", 1, 1,
                  "no label: '1', written against the '|', is the example's tag");
  const Dataset p = ParseVw("1|a x\n", "t", {.hashing = {.bits = 8}, .labels_optional = true});
  ASSERT_EQ(p.rows(), 1u);
  EXPECT_EQ(p.label(0), 0.f);
  // Three numbers and a tag against the bar: the third is still VW's base, refused.
  ExpectDataError([&] { ParseVw("1 2 0.5 t|a x\n", "t", options); }, "t", 1, 5,
                  "a third number (VW's base");
}

// A value that is a word, not a number ("color:red"), makes the feature its name and value
// together, as VW hashes it: the value's hash seeded with the name's, its value 1 (the namespace's
// scale not applied, as VW gives it). A value that starts as a number and goes on is an error.
TEST(Vw, AFeatureWhoseValueIsAWordIsHashedByItsNameAndValue) {
  const uint32_t a = Murmur3("a", 0), b = Murmur3("b", 0);
  const std::string line = "1 |a color:red size:2 12:x :blue :0.5 |b:3 c:true\n";
  const Dataset d = ParseVw(line, "t", {.hashing = {.bits = 31}});
  ExpectRow(RowOf(d, 0), Expected({{Murmur3("red", Murmur3("color", a)), 1.f},
                                   {Murmur3("size", a), 2.f},
                                   {Murmur3("x", a + 12), 1.f},
                                   {Murmur3("blue", a), 1.f},
                                   {a, 0.5f},  // the first anonymous number: place 0
                                   {Murmur3("true", Murmur3("c", b)), 1.f}},
                                  31));
  const Dataset all =
      ParseVw(line, "t", {.hashing = {.bits = 31, .format = HashedText::kVwAll}});
  ExpectRow(RowOf(all, 0), Expected({{Murmur3("red", Murmur3("color", a)), 1.f},
                                     {Murmur3("size", a), 2.f},
                                     {Murmur3("x", Murmur3("12", a)), 1.f},
                                     {Murmur3("blue", Murmur3("", a)), 1.f},
                                     {a, 0.5f},
                                     {Murmur3("true", Murmur3("c", b)), 1.f}},
                                    31));
  // They interact as any feature does.
  const Dataset ab = ParseVw("1 |a color:red |b z\n", "t",
                             {.hashing = {.bits = 31, .interactions = "ab"}});
  EXPECT_EQ(ab.row(0).nnz, 3u);
  const VwOptions options{.hashing = {.bits = 8}};
  ExpectDataError([&] { ParseVw("1 |a x:0.7y\n", "t", options); }, "t", 1, 8,
                  "feature value '0.7y'");
  ExpectDataError([&] { ParseVw("1 |a x:\n", "t", options); }, "t", 1, 8, "feature value ''");
}

TEST(Vw, InteractionsArePairsAndTriplesOfNamespaceFeatures) {
  const uint32_t a = Murmur3("a", 0), b = Murmur3("b", 0);
  const uint32_t x = Murmur3("x", a), y = Murmur3("y", a), z = Murmur3("z", b);
  auto fold = [](uint32_t p, uint32_t q) { return Fmix32((p * 16777619u) ^ q); };
  const Dataset ab =
      ParseVw("1 |a x:2 y |b z:3\n", "t", {.hashing = {.bits = 31, .interactions = "ab"}});
  ExpectRow(RowOf(ab, 0), Expected({{x, 2.f}, {y, 1.f}, {z, 3.f}, {fold(x, z), 6.f},
                                    {fold(y, z), 3.f}},
                                   31));
  // Within one namespace each unordered pair once, a feature with itself included.
  const Dataset aa =
      ParseVw("1 |a x:2 y |b z:3\n", "t", {.hashing = {.bits = 31, .interactions = "aa,aab"}});
  ExpectRow(RowOf(aa, 0),
            Expected({{x, 2.f}, {y, 1.f}, {z, 3.f}, {fold(x, x), 4.f}, {fold(x, y), 2.f},
                      {fold(y, y), 1.f}, {fold(fold(x, x), z), 12.f}, {fold(fold(x, y), z), 6.f},
                      {fold(fold(y, y), z), 3.f}},
                     31));
  testing::ExpectError([] { ParseVw("1 |a x\n", "t", {.hashing = {.interactions = "a"}}); },
                       {"--interactions 'a'", "'a' is not 2 or 3"});
  testing::ExpectError([] { ParseVw("1 |a x\n", "t", {.hashing = {.interactions = "ab,"}}); },
                       {"'' is not 2 or 3"});
}

// Interactions given for a file are checked against its namespaces: a letter that starts none
// pairs nothing, and is refused naming the letters there are; a model's record (VW format set) is
// not (a file to predict may lack a namespace).
TEST(Vw, InteractionsNamingNoNamespaceOfTheFileAreRefused) {
  const std::string text = "1 |user a |item b\n-1 |user c |item d\n";
  ExpectDataError([&] { ParseVw(text, "t", {.hashing = {.bits = 8, .interactions = "ux"}}); }, "t",
                  0, 0, "--interactions 'ux': no namespace starts with 'x' (the term 'ux' would "
                        "pair nothing); the namespaces start with 'i', 'u'");
  EXPECT_EQ(ParseVw(text, "t", {.hashing = {.bits = 8, .interactions = "ui"}}).rows(), 2u);
  const Dataset recorded = ParseVw(
      "1 |user a\n", "t", {.hashing = {.bits = 8, .format = HashedText::kVw, .interactions = "ui"}});
  EXPECT_EQ(recorded.rows(), 1u);
}

// A term that pairs the namespaces of an earlier one, in any order, is taken once (as VW does).
TEST(Vw, DuplicateInteractionsAreTakenOnce) {
  std::vector<std::string> removed;
  EXPECT_EQ(WithoutDuplicateInteractions("ui,ab,iu,ui,abc,cab,aa", &removed), "ui,ab,abc,aa");
  EXPECT_EQ(removed, (std::vector<std::string>{"iu", "ui", "cab"}));
  removed.clear();
  EXPECT_EQ(WithoutDuplicateInteractions("", &removed), "");
  EXPECT_TRUE(removed.empty());
}

TEST(Vw, EdgeCasesOfTheFormat) {
  const VwOptions options{.hashing = {.bits = 8}};
  // An empty namespace, a bare '|', a fractional importance, CRLF, blank lines, a BOM.
  const Dataset d = ParseVw("\xEF\xBB\xBF-1 0.5 |empty |b x\r\n\n1 |\n1 'tag |a\n", "t", options);
  ASSERT_EQ(d.rows(), 3u);
  EXPECT_EQ(d.label(0), -1.f);
  EXPECT_EQ(d.weights()[0], 0.5f);
  EXPECT_EQ(d.row(0).nnz, 1u);
  EXPECT_EQ(d.row(1).nnz, 0u);
  EXPECT_EQ(d.row(2).nnz, 0u);
  ExpectDataError([&] { ParseVw("1 -2 |a x\n", "t", options); }, "t", 1, 3,
                  "importance '-2': an example's weight is 0 or more");
  ExpectDataError([&] { ParseVw("1 |a x:nan\n", "t", options); }, "t", 1, 8,
                  "feature value 'nan'");
  ExpectDataError([&] { ParseVw("1 |a:x y\n", "t", options); }, "t", 1, 6, "namespace scale 'x'");
  ExpectDataError([&] { ParseVw("1 x:1\n", "t", options); }, "t", 1, 3,
                  "expected a label, an importance or a 'tag");
  ExpectDataError([&] { ParseVw("|a x\n", "t", options); }, "t", 1, 1, "no label");
  ExpectDataError([&] { ParseVw("1 2\n", "t", options); }, "t", 1, 1, "no '|'");
  // Interactions that would make millions of features of one line are refused by count.
  std::string wide = "1 |a";
  for (int i = 0; i < 300; ++i) wide += " f" + std::to_string(i);
  ExpectDataError([&] { ParseVw(wide + "\n", "t", {.hashing = {.interactions = "aaa"}}); }, "t", 1,
                  1, "the interactions make 4545100 features of this line");
  EXPECT_EQ(ParseVw(wide + "\n", "t", {.hashing = {.interactions = "aa"}}).row(0).nnz > 300, true);
  // Data to predict: no label needed (label 0).
  const Dataset p = ParseVw("|a x\n3 |a x\n", "t", {.hashing = {.bits = 8}, .labels_optional = true});
  EXPECT_EQ(p.label(0), 0.f);
  EXPECT_EQ(p.label(1), 3.f);
}

// Values whose products (interactions) or sums (a collision) leave float's range are refused by
// line, never stored as infinity.
TEST(Vw, ValuesBeyondFloatsRangeAreAnError) {
  ExpectDataError([] { ParseVw("1 |a x:1\n1 |a x:3e30\n", "t", {.hashing = {.interactions = "aa"}}); },
                  "t", 2, 1, "beyond float's range");
  ExpectDataError(
      [] { ParseVw("1 |a x:3e38 x:3e38\n", "t", {.hashing = {.bits = 4}}); }, "t", 1, 1,
      "beyond float's range");
}

TEST(Vw, TheResultDoesNotDependOnTheChunkSizeAndIsDetected) {
  std::string text;
  for (int i = 0; i < 300; ++i) {
    text += std::to_string(i % 3 + 1) + (i % 4 ? " " : " 0.25 ") + "|u user" +
            std::to_string(i % 11) + " |i item" + std::to_string(i % 7) + ":" +
            std::to_string(i % 5) + "\n";
  }
  const VwOptions options{.hashing = {.bits = 10, .interactions = "ui"}};
  const Dataset whole = ParseVw(text, "t", options);
  for (uint64_t chunk : {1, 9, 200}) {
    VwOptions small = options;
    small.chunk_bytes = chunk;
    testing::ExpectSameData(ParseVw(text, "t", small), whole);
    const Dataset again = ParseVw(text, "t", small);
    EXPECT_TRUE(testing::SameBytes(again.weights(), whole.weights()));
  }
  testing::TempDir dir;
  const std::string path = dir.Write("clicks.txt", text);
  EXPECT_EQ(DetectDataFormat(path), DataFormat::kVw);
  EXPECT_EQ(FormatRead(path, DataFormat::kAuto, LoadDataset(path)), DataFormat::kVw);
}

}  // namespace
}  // namespace parsgd
