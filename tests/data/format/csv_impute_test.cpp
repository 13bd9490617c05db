// A CSV table's missing values filled in (--missing mean, median, most-frequent, indicator): the
// fills learnt from the training rows as scikit-learn's SimpleImputer learns them (zeros count as
// values), categorical columns by their most frequent category, indicators after the table's
// features; recorded in the schema, so that a test file, a list's files, a cache and a
// model file are filled in by the training rows' values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;

// a: 1, missing, 3, 5, missing (mean 3, median 3, most frequent 1: a tie, the smallest);
// b: missing, 2, 4, missing, 0 (mean 2, median 2, most frequent 0); c: red, missing, blue, red,
// red (red).
constexpr const char* kTable = "y,a,b,c\n1,1,,red\n0,,2,\n1,3,4,blue\n0,5,,red\n1,,0,red\n";

Dataset Read(const std::string& text, CsvMissing missing, const std::string& name = "t.csv") {
  testing::TempDir dir;
  LoadOptions options;
  options.missing = missing;
  return LoadDataset(dir.Write(name, text), options);
}

TEST(CsvImpute, EachRuleFillsTheTrainingRowsValues) {
  // Features: a, b, c's own (0), blue, red.
  const std::vector<float> labels = {1, 0, 1, 0, 1};
  ExpectSameData(Read(kTable, CsvMissing::kMean),
                 testing::MakeDataset({{{0, 1}, {1, 2}, {4, 1}},
                                       {{0, 3}, {1, 2}, {4, 1}},
                                       {{0, 3}, {1, 4}, {3, 1}},
                                       {{0, 5}, {1, 2}, {4, 1}},
                                       {{0, 3}, {4, 1}}},
                                      labels, 5));
  ExpectSameData(Read(kTable, CsvMissing::kMedian), Read(kTable, CsvMissing::kMean));
  ExpectSameData(Read(kTable, CsvMissing::kMostFrequent),
                 testing::MakeDataset({{{0, 1}, {4, 1}},
                                       {{0, 1}, {1, 2}, {4, 1}},
                                       {{0, 3}, {1, 4}, {3, 1}},
                                       {{0, 5}, {4, 1}},
                                       {{0, 1}, {4, 1}}},
                                      labels, 5));
  // Indicators of a, b and c: features 5, 6, 7; the missing cells 0.
  const Dataset indicated = Read(kTable, CsvMissing::kIndicator);
  ExpectSameData(indicated, testing::MakeDataset({{{0, 1}, {4, 1}, {6, 1}},
                                                  {{1, 2}, {5, 1}, {7, 1}},
                                                  {{0, 3}, {1, 4}, {3, 1}},
                                                  {{0, 5}, {4, 1}, {6, 1}},
                                                  {{4, 1}, {5, 1}}},
                                                 labels, 8));
  ASSERT_NE(indicated.csv_schema(), nullptr);
  EXPECT_EQ(indicated.csv_schema()->Indicators(), 3u);
  // The median of an even count is the mean of the middle two; zeros are values.
  const Dataset even =
      Read("y,a\n1,4\n0,0\n1,\n0,10\n1,0\n0,6\n1,8\n", CsvMissing::kMedian);
  EXPECT_EQ(even.csv_schema()->fills.at(0).value, 5.f);  // 0 0 4 6 8 10
  // A column without missing cells has a fill too (a test file may miss it); under indicator,
  // no indicator.
  const Dataset full = Read("y,a\n1,2\n0,4\n", CsvMissing::kMean);
  EXPECT_EQ(full.csv_schema()->fills.at(0).value, 3.f);
  EXPECT_EQ(Read("y,a\n1,2\n0,4\n", CsvMissing::kIndicator).features(), 1u);
}

// A test file read by the training file's schema is filled in by the training rows' values, and
// has the training file's features (its indicators included); a list is filled in as one table;
// the cache keeps the fills; a file read as the training data with a rule that data did not
// learn is refused.
TEST(CsvImpute, OtherFilesAreFilledInByTheTrainingRows) {
  testing::TempDir dir;
  const std::string train_path = dir.Write("train.csv", kTable);
  for (const CsvMissing rule : {CsvMissing::kMean, CsvMissing::kIndicator}) {
    LoadOptions options;
    options.missing = rule;
    const Dataset train = LoadDataset(train_path, options);
    LoadOptions by = options;
    by.csv_schema = train.csv_schema();
    const Dataset test = LoadDataset(dir.Write("test.csv", "y,a,b,c\n1,,,\n0,7,,blue\n"), by);
    EXPECT_EQ(test.features(), train.features());
    if (rule == CsvMissing::kMean) {
      ExpectSameData(test, testing::MakeDataset({{{0, 3}, {1, 2}, {4, 1}}, {{0, 7}, {1, 2}, {3, 1}}},
                                                {1, 0}, 5));
    } else {
      ExpectSameData(test, testing::MakeDataset({{{5, 1}, {6, 1}, {7, 1}}, {{0, 7}, {3, 1}, {6, 1}}},
                                                {1, 0}, 8));
    }
    // A list of two halves is the whole table.
    const std::string first = dir.Write("first.csv", "y,a,b,c\n1,1,,red\n0,,2,\n1,3,4,blue\n");
    const std::string second = dir.Write("second.csv", "y,a,b,c\n0,5,,red\n1,,0,red\n");
    ExpectSameData(LoadDataset(first + "," + second, options), train);
    // The cache keeps the fills; the streamed convert reads the table whole.
    ConvertToCache(train_path, options, dir.File("t.bin"));
    const Dataset cached = ReadBinaryCache(dir.File("t.bin"));
    ExpectSameData(cached, train);
    ASSERT_NE(cached.csv_schema(), nullptr);
    EXPECT_EQ(*cached.csv_schema(), *train.csv_schema());
    EXPECT_EQ(cached.csv_reading().missing, rule);
  }
  LoadOptions zero;
  zero.missing = CsvMissing::kZero;
  LoadOptions mean_by_zero;
  mean_by_zero.missing = CsvMissing::kMean;
  mean_by_zero.csv_schema = LoadDataset(train_path, zero).csv_schema();
  ExpectError([&] { LoadDataset(dir.File("test.csv"), mean_by_zero); },
              {"--missing mean fills missing values in with what the training rows give"});
  // The error for a missing value names the rules.
  ExpectError([&] { LoadDataset(train_path); }, {"--missing zero, mean, median, most-frequent or indicator"});
}

}  // namespace
}  // namespace parsgd
