#include "parsgd/data/fasttext.hpp"

#include <gtest/gtest.h>

#include <string>

#include "data_test_util.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectDataError;
using testing::ExpectSameData;

// The row of `words` hashed as `hashing` says, as a one-row dataset's entries.
std::vector<std::pair<uint32_t, float>> Hashed(std::vector<std::string_view> words,
                                               const TextHashing& hashing) {
  RowHasher hasher(hashing);
  hasher.AddWords(words);
  std::vector<uint32_t> indices;
  std::vector<float> values;
  EXPECT_TRUE(hasher.Finish(indices, values));
  std::vector<std::pair<uint32_t, float>> row;
  for (std::size_t i = 0; i < indices.size(); ++i) row.emplace_back(indices[i], values[i]);
  return row;
}

TEST(Fasttext, LabelsAreClassNamesAndWordsAreHashedFeatures) {
  const TextHashing h{.bits = 12, .ngrams = 2};
  // A BOM, CRLF, blank lines, tabs, a label at the end of its line.
  const Dataset e = ParseFasttext(
      "\xEF\xBB\xBF__label__sport the match\r\n\n  \t\n__label__art a\tpainting\n"
      "the match __label__sport\n",
      "t", {.hashing = h});
  ExpectSameData(e, testing::MakeDataset({Hashed({"the", "match"}, h), Hashed({"a", "painting"}, h),
                                          Hashed({"the", "match"}, h)},
                                         {1.f, 0.f, 1.f}, 4096));
  EXPECT_EQ(e.class_names(), (std::vector<std::string>{"__label__art", "__label__sport"}));
  ASSERT_TRUE(e.hashing().has_value());
  EXPECT_EQ(*e.hashing(), h);
}

TEST(Fasttext, ALineHasOneLabelAndTrainingLinesNeedOne) {
  ExpectDataError([] { ParseFasttext("__label__a x\n__label__a y __label__b z\n", "t"); }, "t", 2,
                  14, "a second label '__label__b' after '__label__a'");
  ExpectDataError([] { ParseFasttext("__label__a x\n\nno label here\n", "t"); }, "t", 3, 1,
                  "no label");
  ExpectDataError([] { ParseFasttext("", "t"); }, "t", 0, 0, "empty file");
  ExpectDataError([] { ParseFasttext("\n \n", "t"); }, "t", 0, 0, "no data rows");
}

TEST(Fasttext, DataToPredictNeedsNoLabels) {
  const FasttextOptions predict{.hashing = {.bits = 8}, .labels_optional = true};
  const Dataset d = ParseFasttext("the match\n__label__a __label__b painting\n", "t", predict);
  EXPECT_EQ(d.rows(), 2u);
  EXPECT_TRUE(d.class_names().empty());
  EXPECT_EQ(d.label(0), 0.f);
  EXPECT_EQ(d.label(1), 0.f);
  // The labels given are skipped, not read as words.
  ExpectSameData(d, ParseFasttext("the match\npainting\n", "t", predict));
}

TEST(Fasttext, TheResultDoesNotDependOnTheChunkSize) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text += "__label__c" + std::to_string(i % 7) + " w" + std::to_string(i % 13) + " v" +
            std::to_string(i % 5) + " and more words\n";
  }
  const Dataset whole = ParseFasttext(text, "t");
  for (uint64_t chunk : {1, 7, 100}) {
    ExpectSameData(ParseFasttext(text, "t", {.chunk_bytes = chunk}), whole);
  }
  EXPECT_EQ(whole.class_names().size(), 7u);
}

TEST(Fasttext, DetectedFromALabelTokenOnTheFirstLine) {
  testing::TempDir dir;
  const std::string path = dir.Write("reviews.txt", "\n__label__pos good, fine: yes\n__label__neg bad\n");
  EXPECT_EQ(DetectDataFormat(path), DataFormat::kFasttext);
  const Dataset d = LoadDataset(path);
  EXPECT_EQ(d.class_names(), (std::vector<std::string>{"__label__neg", "__label__pos"}));
  EXPECT_EQ(FormatRead(path, DataFormat::kAuto, d), DataFormat::kFasttext);
  // "__label__" inside a word is a word.
  EXPECT_EQ(DetectDataFormat(dir.Write("a.svm", "1 a__label__x:1\n")), DataFormat::kLibsvm);
}

}  // namespace
}  // namespace parsgd
