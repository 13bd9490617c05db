// The streaming convert of CSV text (ConvertToCache): the cache it writes is, byte for byte, the
// one LoadDataset and WriteBinaryCache write, for every decision the whole text makes (a header
// told by its label, a column of numbers and text made categorical, one-hot values sorted, class
// names), at every chunking, from gzip, a list and standard input; the cache keeps the table's
// reading; an error is the reader's and leaves no file, nor any temporary one.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::Contains;

const LoadOptions kDefaults;

std::string InMemory(const std::string& input, const LoadOptions& options, const std::string& out) {
  WriteBinaryCache(LoadDataset(input, options), out);
  return testing::ReadFile(out);
}

// A table of `rows` rows: a class name, a colour (categorical), two numbers (one sometimes
// missing), a size that is a number in most rows but text in the last (a column of both), and
// a weight.
std::string Table(int rows, uint64_t seed, const char* header) {
  const char* colours[4] = {"red", "blue", "green", "black"};
  Rng rng(seed);
  std::string text = header;
  for (int i = 0; i < rows; ++i) {
    const auto c = rng.Uniform(4);
    const double x = rng.UniformDouble();
    const std::string size = i + 1 == rows ? "XL" : std::to_string(rng.Uniform(3));
    text +=
        fmt::format("{},{},{:.3f},{},{},{}\n", (c < 2) != (x > 0.9) ? "yes" : "no", colours[c], x,
                    i % 7 == 0 ? "NA" : fmt::format("{:.2f}", -x), size, i % 3 == 0 ? "2" : "1");
  }
  return text;
}

TEST(ConvertCsvToCache, WritesTheInMemoryCacheByteForByte) {
  testing::TempDir dir;
  const std::string table = dir.Write("t.csv", Table(700, 1, "class,colour,x,y,size,w\n"));
  const std::string headerless = dir.Write("h.csv", Table(300, 2, ""));
  // The first line's only text is its label: a header where no other row has it, else a row.
  const std::string label_header = dir.Write("l.csv", "y,1,2\n1,0.5,1\n0,1,0\n1,2,3\n");
  const std::string label_row = dir.Write("r.csv", "a,1,2\nb,0.5,1\na,1,0\n");
  // A byte order mark, CRLF, blank lines, semicolons, numeric labels, no final line break.
  const std::string odd = dir.Write("o.csv", "\xEF\xBB\xBF\r\n\r\nl;p;q\r\n1;2;3\r\n\r\n-1;0;4");
  LoadOptions table_options;
  table_options.label_column = "class";
  table_options.weight_column = "w";
  table_options.missing = CsvMissing::kZero;
  LoadOptions headerless_options = table_options;
  headerless_options.label_column = "0";
  headerless_options.weight_column = "5";
  LoadOptions hashed = table_options;
  hashed.category_hash_bits = 5;
  LoadOptions left_out = table_options;  // a text column and one of numbers and text
  left_out.ignore_columns = {"colour", "size"};
  LoadOptions headerless_left_out = headerless_options;
  headerless_left_out.ignore_columns = {"1", "3"};
  for (const auto& [input, given] :
       std::vector<std::pair<std::string, LoadOptions>>{{table, table_options},
                                                        {table, hashed},
                                                        {table, left_out},
                                                        {headerless, headerless_left_out},
                                                        {headerless, headerless_options},
                                                        {label_header, {}},
                                                        {label_row, {}},
                                                        {odd, {}}}) {
    for (uint64_t chunk : {uint64_t{0}, uint64_t{64}, uint64_t{1000}}) {
      LoadOptions options = given;
      options.chunk_bytes = chunk;
      const std::string expected = InMemory(input, options, dir.File("m.bin"));
      const CacheShape shape = ConvertToCache(input, options, dir.File("s.bin"));
      ASSERT_TRUE(testing::ReadFile(dir.File("s.bin")) == expected)
          << input << ", hash bits " << options.category_hash_bits << ", chunks of " << chunk;
      const Dataset read = ReadBinaryCache(dir.File("s.bin"));
      const Dataset text = LoadDataset(input, options);
      EXPECT_EQ(shape.rows, text.rows());
      ASSERT_NE(read.csv_schema(), nullptr);
      EXPECT_EQ(*read.csv_schema(), *text.csv_schema());
      EXPECT_EQ(read.csv_reading(), text.csv_reading());
      EXPECT_EQ(read.class_names(), text.class_names());
    }
  }
  // The table's reading as decided: size holds numbers and text, so it is categorical with its
  // numbers for values; the weights kept.
  ConvertToCache(table, table_options, dir.File("s.bin"));
  const Dataset read = ReadBinaryCache(dir.File("s.bin"));
  const CsvSchema& schema = *read.csv_schema();
  ASSERT_EQ(schema.columns.size(), 4u);
  EXPECT_TRUE(schema.columns[0].categorical);
  EXPECT_FALSE(schema.columns[1].categorical);
  EXPECT_EQ(schema.columns[3].values, (std::vector<std::string>{"0", "1", "2", "XL"}));
  EXPECT_EQ(read.class_names(), (std::vector<std::string>{"no", "yes"}));
  EXPECT_FALSE(read.weights().empty());
  EXPECT_EQ(read.csv_reading().weight_column, "w");
  EXPECT_EQ(ReadBinaryCache(dir.File("s.bin")).rows(), 700u);
  EXPECT_EQ(LoadDataset(label_header, kDefaults).rows(), 3u);
  EXPECT_EQ(LoadDataset(label_row, kDefaults).rows(), 3u);
}

// A list is one table (the one-hot values the union of its files'), gzip is read as it inflates,
// and standard input (its format told from its first line) is the file's cache too.
TEST(ConvertCsvToCache, ListsGzipAndStandardInput) {
  testing::TempDir dir;
  const std::string a = dir.Write("a.csv", Table(200, 3, "class,colour,x,y,size,w\n"));
  const std::string b = dir.Write("b.csv", "class,colour,x,y,size,w\nyes,white,0.5,1,XXL,1\n");
  LoadOptions options;
  options.label_column = "class";
  options.weight_column = "w";
  options.missing = CsvMissing::kZero;
  const std::string list = a + "," + b;
  const std::string expected = InMemory(list, options, dir.File("m.bin"));
  ConvertToCache(list, options, dir.File("s.bin"));
  EXPECT_TRUE(testing::ReadFile(dir.File("s.bin")) == expected);
  EXPECT_EQ(ReadBinaryCache(dir.File("s.bin")).csv_schema()->columns[0].values,
            (std::vector<std::string>{"black", "blue", "green", "red", "white"}));
  // A file whose column is categorical where the first's holds numbers is another table.
  const std::string n = dir.Write("n.csv", "class,colour,x,y,size,w\nyes,red,a,1,2,1\n");
  testing::ExpectError([&] { ConvertToCache(a + "," + n, options, dir.File("e.bin")); },
                       {"n.csv", "feature column 'x' is categorical here but numbers"});
  testing::WriteGzipFile(testing::ReadFile(a), dir.File("a.csv.gz"));
  const std::string single = InMemory(a, options, dir.File("m.bin"));
  ConvertToCache(dir.File("a.csv.gz"), options, dir.File("gz.bin"));
  EXPECT_TRUE(testing::ReadFile(dir.File("gz.bin")) == single);
  const auto piped = testing::RunShell("gzip -c " + a + " | " + PARSGD_CLI_PATH + " convert - " +
                                       dir.File("in.bin") +
                                       " --label-column class --weight-column w "
                                       "--missing zero");
  ASSERT_EQ(piped.status, 0) << piped.output;
  EXPECT_TRUE(Contains(piped.output, "200 rows x ")) << piped.output;
  EXPECT_TRUE(testing::ReadFile(dir.File("in.bin")) == single);
  for (const std::string& name : testing::FolderNames(dir.path().string())) {
    EXPECT_FALSE(name.starts_with(".")) << name;  // no temporary file left
  }
}

// An error is the in-memory reader's, by file and line, and leaves no cache nor temporary file.
TEST(ConvertCsvToCache, AnErrorIsTheReadersAndLeavesNoFile) {
  testing::TempDir dir;
  std::string text = "y,a,b\n";
  for (int i = 0; i < 400; ++i) text += "1,0.5,2\n";
  text += "0,1\n";  // line 402: a field short
  const std::string bad = dir.Write("bad.csv", text);
  const std::string header_only = dir.Write("header.csv", "y,a,b\n");
  const std::string numbered = dir.Write("numbered.csv", "0,1,2,3,4,5\n0,1,1,1,1,1\n");
  const auto before = testing::FolderNames(dir.path().string());
  LoadOptions options;
  options.chunk_bytes = 100;
  for (const std::string& input : {bad, header_only, numbered}) {
    std::string expected;
    try {
      LoadDataset(input, options);
    } catch (const Error& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << input;
    try {
      ConvertToCache(input, options, dir.File("out.bin"));
      ADD_FAILURE() << "no error for " << input;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
  EXPECT_EQ(testing::FolderNames(dir.path().string()), before);
  const auto piped = testing::RunShell("cat " + bad + " | " + PARSGD_CLI_PATH + " convert - " +
                                       dir.File("in.bin"));
  EXPECT_EQ(piped.status, 1) << piped.output;
  EXPECT_TRUE(Contains(piped.output, "standard input:402:")) << piped.output;
  EXPECT_EQ(testing::FolderNames(dir.path().string()), before);
}

}  // namespace
}  // namespace parsgd
