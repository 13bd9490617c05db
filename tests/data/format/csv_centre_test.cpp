// A CSV table's number columns centred (CsvCenter kAuto): a column whose mean over the training
// rows is farther from 0 than its standard deviation has that mean subtracted, a column mostly of
// zeros and a categorical column are left as written; the schema records the centres, so that a
// file read by it is centred by the training rows' means, while a binary cache holds the rows as
// read and records none.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;

// a: 100, 101, 102, 103, 104 (mean 102, deviation 1.41: centred); b: 0, 0, 1, 0, 0 (mean 0.2,
// deviation 0.4: kept); c: red, blue, red, red, blue (categorical: kept; features 3 blue, 4 red).
constexpr const char* kTable = "y,a,b,c\n1,100,0,red\n0,101,0,blue\n1,102,1,red\n0,103,0,red\n1,104,0,blue\n";

Dataset Read(const std::string& path, CsvCenter center) {
  LoadOptions options;
  options.center = center;
  return LoadDataset(path, options);
}

TEST(CsvCentre, AColumnFarFromZeroLosesItsMeanAndTheOthersStayAsWritten) {
  testing::TempDir dir;
  const std::string path = dir.Write("t.csv", kTable);
  const Dataset centred = Read(path, CsvCenter::kAuto);
  ASSERT_NE(centred.csv_schema(), nullptr);
  EXPECT_EQ(centred.csv_schema()->centres, (std::vector<float>{102, 0, 0}));
  // The cell equal to the mean becomes 0 and is dropped.
  ExpectSameData(centred, testing::MakeDataset({{{0, -2}, {4, 1}},
                                                {{0, -1}, {3, 1}},
                                                {{1, 1}, {4, 1}},
                                                {{0, 1}, {4, 1}},
                                                {{0, 2}, {3, 1}}},
                                               {1, 0, 1, 0, 1}, 5));
  const Dataset as_written = Read(path, CsvCenter::kNone);
  EXPECT_TRUE(as_written.csv_schema()->centres.empty());
  EXPECT_EQ(as_written.values()[0], 100.f);
  // No column far from 0: nothing recorded.
  EXPECT_TRUE(Read(dir.Write("small.csv", "y,a\n1,-1\n0,1\n1,0\n"), CsvCenter::kAuto)
                  .csv_schema()
                  ->centres.empty());
  // A column missing in a cell is centred once filled in: a missing cell becomes its mean, 0.
  LoadOptions mean;
  mean.center = CsvCenter::kAuto;
  mean.missing = CsvMissing::kMean;
  const Dataset filled = LoadDataset(dir.Write("m.csv", "y,a\n1,10\n0,\n1,12\n0,11\n"), mean);
  EXPECT_EQ(filled.csv_schema()->centres, (std::vector<float>{11}));
  ExpectSameData(filled, testing::MakeDataset({{{0, -1}}, {}, {{0, 1}}, {}}, {1, 0, 1, 0}, 1));
}

// A test file read by the training schema is centred by the training rows' means, from its text
// or from its binary cache alike (the cache holds it uncentred and records no centres); a centred
// table is not cached.
TEST(CsvCentre, OtherFilesAreCentredByTheTrainingRowsMeans) {
  testing::TempDir dir;
  const Dataset train = Read(dir.Write("train.csv", kTable), CsvCenter::kAuto);
  const std::string test_path = dir.Write("test.csv", "y,a,b,c\n1,90,1,blue\n0,102,0,red\n");
  LoadOptions by;
  by.csv_schema = train.csv_schema();
  const Dataset test = LoadDataset(test_path, by);
  ExpectSameData(test, testing::MakeDataset({{{0, -12}, {1, 1}, {3, 1}}, {{4, 1}}}, {1, 0}, 5));
  EXPECT_EQ(*test.csv_schema(), *train.csv_schema());
  ConvertToCache(test_path, LoadOptions{}, dir.File("test.bin"));
  const Dataset cached = ReadBinaryCache(dir.File("test.bin"));
  EXPECT_EQ(cached.values()[0], 90.f);
  EXPECT_TRUE(cached.csv_schema()->centres.empty());
  ExpectSameData(LoadDataset(dir.File("test.bin"), by), test);
  // A cache of the training file trains as its text does.
  ConvertToCache(dir.File("train.csv"), LoadOptions{}, dir.File("train.bin"));
  const Dataset from_cache = Read(dir.File("train.bin"), CsvCenter::kAuto);
  ExpectSameData(from_cache, train);
  EXPECT_EQ(*from_cache.csv_schema(), *train.csv_schema());
  ExpectError([&] { SaveDataset(train, dir.File("centred.bin")); },
              {"centred; a binary cache holds them as read"});
}

}  // namespace
}  // namespace parsgd
