// CSV categorical columns and reading a file by another's schema (data/csv_schema.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/data/hashing.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectDataError;
using testing::ExpectError;
using testing::ExpectSameData;

std::vector<std::string> Values(const Dataset& d, std::size_t column) {
  return d.csv_schema()->columns.at(column).values;
}

// A column of text is categorical: one feature per value (byte order) after the columns; the
// column's own feature stays 0. A column mixing numbers and text is categorical throughout.
TEST(CsvCategorical, TextColumnsAreOneHotAfterTheColumns) {
  const Dataset d = ParseCsv("y,color,x\n1,red,0.5\n0,blue,1\n1, red ,0\n", "t");
  ExpectSameData(d, testing::MakeDataset({{{1, 0.5f}, {3, 1.f}}, {{1, 1.f}, {2, 1.f}}, {{3, 1.f}}},
                                         {1.f, 0.f, 1.f}, 4));
  const CsvSchema& schema = *d.csv_schema();
  EXPECT_TRUE(schema.named);
  EXPECT_EQ(schema.label_name, "y");
  ASSERT_EQ(schema.columns.size(), 2u);
  EXPECT_EQ(schema.columns[0].name, "color");
  EXPECT_TRUE(schema.columns[0].categorical);
  EXPECT_FALSE(schema.columns[1].categorical);
  EXPECT_EQ(Values(d, 0), (std::vector<std::string>{"blue", "red"}));
  // Numbers and text: every value a category by its text ("12" and "0" included).
  const Dataset mixed = ParseCsv("y,z\n1,12\n0,ab\n1,0\n", "t");
  EXPECT_EQ(Values(mixed, 0), (std::vector<std::string>{"0", "12", "ab"}));
  ExpectSameData(mixed, testing::MakeDataset({{{2, 1.f}}, {{3, 1.f}}, {{1, 1.f}}}, {1.f, 0.f, 1.f}, 4));
  // The same at any chunk size (each chunk meets other values first).
  ExpectSameData(ParseCsv("y,z\n1,12\n0,ab\n1,0\n", "t", {.chunk_bytes = 4}), mixed);
  // The first line's text counts where it is data (--header no): the column is mixed there too.
  const Dataset first = ParseCsv("1,ab\n0,12\n1,0\n", "t", {.header = CsvHeader::kNo});
  EXPECT_EQ(Values(first, 0), (std::vector<std::string>{"0", "12", "ab"}));
  ExpectSameData(first,
                 testing::MakeDataset({{{3, 1.f}}, {{2, 1.f}}, {{1, 1.f}}}, {1.f, 0.f, 1.f}, 4));
  // A quoted value is a value, "NA" included; a missing one follows --missing.
  EXPECT_EQ(Values(ParseCsv("y,z\n1,\"NA\"\n0,b\n", "t"), 0), (std::vector<std::string>{"NA", "b"}));
  ExpectDataError([] { ParseCsv("y,z\n1,a\n0,NA\n", "t"); }, "t", 3, 3, "field 2: 'NA': a missing value");
  const Dataset zero = ParseCsv("y,z\n1,a\n0,NA\n", "t", {.missing = CsvMissing::kZero});
  ExpectSameData(zero, testing::MakeDataset({{{1, 1.f}}, {}}, {1.f, 0.f}, 2));
}

// Columns named (or numbered) categorical are so whatever their values; without auto, text is an
// error; a categorical label or weight column is refused.
TEST(CsvCategorical, ColumnsAreCategoricalWhenNamedAndTextIsAnErrorWithoutAuto) {
  const Dataset d = ParseCsv("y,zip,x\n1,2134,1\n0,2135,2\n", "t", {.categorical = {"zip"}});
  EXPECT_EQ(Values(d, 0), (std::vector<std::string>{"2134", "2135"}));
  ExpectSameData(d, testing::MakeDataset({{{1, 1.f}, {2, 1.f}}, {{1, 2.f}, {3, 1.f}}}, {1.f, 0.f}, 4));
  ExpectSameData(ParseCsv("y,zip,x\n1,2134,1\n0,2135,2\n", "t", {.categorical = {"1"}}), d);
  ExpectDataError([] { ParseCsv("y,a\n1,b\n", "t", {.categorical_auto = false}); }, "t", 2, 3,
                  "field 2: expected a number, found 'b'");
  ExpectError([] { ParseCsv("y,a\n1,b\n", "t", {.categorical = {"y"}}); },
              {"categorical column 'y' is the label column"});
}

// Hashed values: bucket Murmur3(value, seed 2 + column) mod 2^B after the columns, its sign bit
// 31; values of one row that collide add up.
TEST(CsvCategorical, HashedValuesLandInTheirDocumentedBuckets) {
  const Dataset d = ParseCsv("y,x,c\n1,0.5,red\n0,0,blue\n", "t", {.category_hash_bits = 3});
  EXPECT_EQ(d.features(), 2u + 8u);
  EXPECT_EQ(d.csv_schema()->hash_bits, 3u);
  EXPECT_TRUE(d.csv_schema()->columns[1].values.empty());
  auto feature = [](const char* value) {
    const uint32_t h = Murmur3(value, CategorySeed(1));
    return std::pair<uint32_t, float>(2 + (h & 7u), (h >> 31) ? -1.f : 1.f);
  };
  const auto [red, red_sign] = feature("red");
  const auto [blue, blue_sign] = feature("blue");
  ExpectSameData(d, testing::MakeDataset({{{0, 0.5f}, {red, red_sign}}, {{blue, blue_sign}}},
                                         {1.f, 0.f}, 10));
}

// A file read by another's schema: columns by name in any order, the label too; values never met
// in training are left out; a column missing or unknown is an error; without a header, by
// position, and then the counts must agree.
TEST(CsvCategorical, AnotherFileIsReadByTheSchemaByNameOrPosition) {
  const Dataset train = ParseCsv("y,color,x\n1,red,0.5\n0,blue,1\n", "train.csv");
  CsvOptions by{.schema = train.csv_schema(), .schema_source = "the training data"};
  by.label_by_schema = true;
  const Dataset same = ParseCsv("x,y,color\n0.5,1,red\n1,0,blue\n2,1,green\n", "t.csv", by);
  ExpectSameData(same, testing::MakeDataset({{{1, 0.5f}, {3, 1.f}}, {{1, 1.f}, {2, 1.f}}, {{1, 2.f}}},
                                            {1.f, 0.f, 1.f}, 4));
  EXPECT_EQ(*same.csv_schema(), *train.csv_schema());
  ExpectError([&] { ParseCsv("y,color\n1,red\n", "t.csv", by); },
              {"no column 'x', a feature column of the training data"});
  ExpectError([&] { ParseCsv("y,color,x,w\n1,red,1,2\n", "t.csv", by); },
              {"column 'w' is not a column of the training data"});
  ExpectSameData(ParseCsv("1,red,0.5\n0,blue,1\n", "t.csv", by), train);
  ExpectError([&] { ParseCsv("1,red\n", "t.csv", by); },
              {"1 feature columns (the label in the first column), but the training data has 2"});
  // Data to predict without the label column.
  by.labels_optional = true;
  const Dataset unlabelled = ParseCsv("color,x\nblue,1\n", "p.csv", by);
  ExpectSameData(unlabelled, testing::MakeDataset({{{1, 1.f}, {2, 1.f}}}, {0.f}, 4));
}

// Columns left out (--ignore-columns): by name or position, whatever they hold (text, a missing
// value, a quoted delimiter), neither features nor read; the schema records them, so that another
// file of the table leaves them out by name, may lack them, and by position leaves out the same
// fields; a binary cache and a model file keep the record.
TEST(CsvCategorical, ColumnsLeftOutAreNotReadAndTheSchemaRecordsThem) {
  const std::string text = "id,y,x,note\n7,1,0.5,\"a, b\"\nNA,0,2,\n9,1,0,red\n";
  const Dataset expected = testing::MakeDataset({{{0, 0.5f}}, {{0, 2.f}}, {}}, {1.f, 0.f, 1.f}, 1);
  for (const std::vector<std::string>& left_out :
       {std::vector<std::string>{"id", "note"}, std::vector<std::string>{"0", "-1"}}) {
    const Dataset d = ParseCsv(text, "t.csv", {.label_column = "y", .ignore_columns = left_out});
    ExpectSameData(d, expected);
    ASSERT_NE(d.csv_schema(), nullptr);
    EXPECT_EQ(d.csv_schema()->ignored,
              (std::vector<CsvIgnored>{{.name = "id", .field = 0}, {.name = "note", .field = 3}}));
    EXPECT_FALSE(d.csv_schema()->HasCategorical());  // the text column is not one
  }
  const Dataset train =
      ParseCsv(text, "train.csv", {.label_column = "y", .ignore_columns = {"id", "note"}});
  CsvOptions by{.label_column = "y", .schema = train.csv_schema()};
  // By name: the columns left out wherever they are, or absent.
  ExpectSameData(ParseCsv("note,x,y,id\nz,0.5,1,1\n", "a.csv", by),
                 testing::MakeDataset({{{0, 0.5f}}}, {1.f}, 1));
  ExpectSameData(ParseCsv("y,x\n1,0.5\n", "b.csv", by), testing::MakeDataset({{{0, 0.5f}}}, {1.f}, 1));
  // Headerless: the training file's fields by position.
  const Dataset plain = ParseCsv("7,1,0.5,x\n8,0,2,y\n", "p.csv",
                                 {.label_column = "1", .ignore_columns = {"0", "3"}});
  ExpectSameData(plain, testing::MakeDataset({{{0, 0.5f}}, {{0, 2.f}}}, {1.f, 0.f}, 1));
  CsvOptions by_position{.label_column = "1", .schema = plain.csv_schema()};
  ExpectSameData(ParseCsv("9,1,3,text\n", "q.csv", by_position),
                 testing::MakeDataset({{{0, 3.f}}}, {1.f}, 1));
  // Not the label, the weight or a categorical column; a name the header lacks.
  ExpectError([&] { ParseCsv(text, "t.csv", {.label_column = "y", .ignore_columns = {"y"}}); },
              {"t.csv: column 'y' is left out, but it is the label column"});
  ExpectError([&] {
    ParseCsv(text, "t.csv",
             {.label_column = "y", .weight_column = "x", .ignore_columns = {"x"}});
  }, {"column 'x' is left out, but it is the weight column"});
  ExpectError([&] {
    ParseCsv(text, "t.csv",
             {.label_column = "y", .ignore_columns = {"note"}, .categorical = {"note"}});
  }, {"categorical column 'note' is left out"});
  ExpectError([&] { ParseCsv(text, "t.csv", {.label_column = "y", .ignore_columns = {"zz"}}); },
              {"ignored column 'zz' is not in the header"});
  // A headerless file with text in a column left out by position is still headerless.
  ExpectSameData(ParseCsv("alice,1,0.5\nbob,0,2\n", "h.csv",
                          {.label_column = "1", .ignore_columns = {"0"}}),
                 testing::MakeDataset({{{0, 0.5f}}, {{0, 2.f}}}, {1.f, 0.f}, 1));
  // The cache keeps the record, and reads files by it.
  testing::TempDir dir;
  SaveDataset(train, dir.File("t.bin"));
  const Dataset cached = ReadBinaryCache(dir.File("t.bin"));
  ASSERT_NE(cached.csv_schema(), nullptr);
  EXPECT_EQ(*cached.csv_schema(), *train.csv_schema());
}

// The files of a list are one table: the one-hot values the union of theirs.
TEST(CsvCategorical, SeveralFilesShareTheUnionOfTheirValues) {
  testing::TempDir dir;
  const std::string a = dir.Write("a.csv", "y,c,x\n1,red,1\n0,blue,2\n");
  const std::string b = dir.Write("b.csv", "y,c,x\n1,green,3\n0,red,4\n");
  const Dataset d = LoadDataset(a + "," + b);
  EXPECT_EQ(Values(d, 0), (std::vector<std::string>{"blue", "green", "red"}));
  ExpectSameData(d, testing::MakeDataset({{{1, 1.f}, {4, 1.f}}, {{1, 2.f}, {2, 1.f}},
                                          {{1, 3.f}, {3, 1.f}}, {{1, 4.f}, {4, 1.f}}},
                                         {1.f, 0.f, 1.f, 0.f}, 5));
  const std::string n = dir.Write("n.csv", "y,c,x\n1,5,1\n");
  ExpectError([&] { LoadDataset(a + "," + n); }, {"feature column 'c' is numbers here but categorical"});
  // A binary cache keeps the columns and their values; LIBSVM text would lose them.
  SaveDataset(d, dir.File("d.bin"));
  const Dataset cached = ReadBinaryCache(dir.File("d.bin"));
  ExpectSameData(cached, d);
  ASSERT_NE(cached.csv_schema(), nullptr);
  EXPECT_EQ(*cached.csv_schema(), *d.csv_schema());
  EXPECT_EQ(cached.csv_reading(), d.csv_reading());
  ExpectError([&] { SaveDataset(d, dir.File("d.svm")); }, {"has categorical columns"});
}

}  // namespace
}  // namespace parsgd
