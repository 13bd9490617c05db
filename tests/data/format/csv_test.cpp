#include "parsgd/data/csv.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <string>

#include "data_test_util.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectDataError;
using testing::ExpectError;
using testing::ExpectSameData;

TEST(Csv, ReadsAHeaderLineAndKeepsOnlyNonzeroFeatures) {
  const Dataset d = ParseCsv("y,a,b,c\n1,0.5,0,2\n0,0,0,0\n-1,+3,1e-1,0\n", "t");
  ExpectSameData(d, testing::MakeDataset({{{0, 0.5f}, {2, 2.f}}, {}, {{0, 3.f}, {1, 0.1f}}},
                                         {1.f, 0.f, -1.f}, 3));
  EXPECT_EQ(d.source(), "t");
  EXPECT_EQ(d.zero_based(), ZeroBased::kAuto);  // not LIBSVM text
}

// pandas' to_csv writes its row index first, unnamed: taken for the label by default it would be
// trained on, so it is refused with the flags that read the file; named, the label is found.
TEST(Csv, APandasIndexColumnIsNotTakenForTheLabel) {
  const std::string text = ",y,a\n0,1,0.5\n1,0,2\n";
  ExpectError([&] { ParseCsv(text, "p.csv"); },
              {"p.csv: the first column, the label unless --label-column names another, has no "
               "name in the header: the row index pandas' to_csv writes",
               "--ignore-columns 0"});
  ExpectSameData(ParseCsv(text, "p.csv", {.label_column = "y", .ignore_columns = {"0"}}),
                 testing::MakeDataset({{{0, 0.5f}}, {{0, 2.f}}}, {1.f, 0.f}, 1));
  // A first line read as a row has no names to look a column up by: said so.
  ExpectError([&] { ParseCsv("y,a\nyes,1\n", "h.csv", {.header = CsvHeader::kNo, .label_column = "y"}); },
              {"label column 'y' is a name, but the file has no header line (its first line is "
               "read as a row; --header yes reads it as the columns' names)"});
}

TEST(Csv, AFirstLineOfNumbersIsData) {
  const Dataset d = ParseCsv("1,0.5,2\n0,0,1\n", "t");
  ExpectSameData(d, testing::MakeDataset({{{0, 0.5f}, {1, 2.f}}, {{1, 1.f}}}, {1.f, 0.f}, 2));
  // Told there is a header, the first line is one, numbers or not.
  ExpectSameData(ParseCsv("1,0.5,2\n0,0,1\n", "t", {.header = CsvHeader::kYes}),
                 testing::MakeDataset({{{1, 1.f}}}, {0.f}, 2));
  // Told there is none, a line of names is a row (its label a class name); with categorical
  // columns off, its feature is not a number: malformed.
  ExpectDataError(
      [] { ParseCsv("y,a\n1,2\n", "t", {.header = CsvHeader::kNo, .categorical_auto = false}); },
      "t", 1, 3, "field 2: expected a number, found 'a'");
}

TEST(Csv, BlankLinesCrlfSpacesQuotedNamesAndAByteOrderMarkAreAccepted) {
  const Dataset d =
      ParseCsv("\xEF\xBB\xBF\"label\", \"x,1\",\"say \"\"hi\"\"\"\r\n\r\n 2 ,\t1\t, 0\r\n\n3,0,4",
               "t", {.label_column = "say \"hi\""});
  ExpectSameData(d, testing::MakeDataset({{{0, 2.f}, {1, 1.f}}, {{0, 3.f}}}, {0.f, 4.f}, 2));
}

TEST(Csv, TheLabelColumnIsChosenByNameOrPosition) {
  const std::string text = "a,y,b\n1,5,2\n3,6,0\n";
  const Dataset expected = testing::MakeDataset({{{0, 1.f}, {1, 2.f}}, {{0, 3.f}}}, {5.f, 6.f}, 2);
  ExpectSameData(ParseCsv(text, "t", {.label_column = "y"}), expected);
  ExpectSameData(ParseCsv(text, "t", {.label_column = "1"}), expected);
  ExpectSameData(ParseCsv(text, "t", {.label_column = "-2"}), expected);
  // -1 is the last column; the default is the first.
  ExpectSameData(ParseCsv(text, "t", {.label_column = "-1"}),
                 testing::MakeDataset({{{0, 1.f}, {1, 5.f}}, {{0, 3.f}, {1, 6.f}}}, {2.f, 0.f}, 2));
  ExpectSameData(ParseCsv(text, "t"), ParseCsv(text, "t", {.label_column = "0"}));
}

TEST(Csv, ALabelColumnThatIsNotThereIsNamed) {
  testing::ExpectError([] { ParseCsv("a,y\n1,2\n", "t", {.label_column = "z"}); },
                       {"t: label column 'z' is not in the header; its columns are 'a', 'y'"});
  testing::ExpectError([] { ParseCsv("a,y\n1,2\n", "t", {.label_column = "2"}); },
                       {"t: label column 2: the file has 2 columns (0 to 1, or -1 to -2"});
  testing::ExpectError([] { ParseCsv("1,2\n", "t", {.label_column = "y"}); },
                       {"label column 'y' is a name, but the file has no header line"});
  testing::ExpectError([] { ParseCsv("y,y\n1,2\n", "t", {.label_column = "y"}); },
                       {"label column 'y' appears twice"});
}

struct BadCase {
  const char* text;
  uint64_t line;
  uint64_t column;
  const char* fragment;
};

// Labels that are not all numbers are class names: sorted (byte order), each row's label the index
// of its name; numbers among them are names too. Quoted labels may hold commas and quotes.
TEST(Csv, TextLabelsAreClassNames) {
  const Dataset d = ParseCsv(
      "species,a\nversicolor,1\nsetosa,2\n\"vir,\"\"g\"\"\",3\nsetosa,0\n2,5\n", "t");
  EXPECT_EQ(d.class_names(), (std::vector<std::string>{"2", "setosa", "versicolor", "vir,\"g\""}));
  ExpectSameData(d, testing::MakeDataset({{{0, 1.f}}, {{0, 2.f}}, {{0, 3.f}}, {}, {{0, 5.f}}},
                                         {2.f, 1.f, 3.f, 1.f, 0.f}, 1));
  // Numbers only: the labels are the numbers, no names.
  EXPECT_TRUE(ParseCsv("y,a\n2,1\n1,1\n", "t").class_names().empty());
}

// With --header auto, a first line whose only text is its label is a header when that label is
// no other row's (a column name), and a data row when it is (a class name).
TEST(Csv, AFirstLineWithOnlyATextLabelIsAHeaderIfNoRowHasThatLabel) {
  const Dataset header = ParseCsv("class,0,1\nyes,1,2\nno,0,1\n", "t");
  EXPECT_EQ(header.rows(), 2u);
  EXPECT_EQ(header.class_names(), (std::vector<std::string>{"no", "yes"}));
  const Dataset data = ParseCsv("yes,0,1\nyes,1,2\nno,0,1\n", "t");
  EXPECT_EQ(data.rows(), 3u);
  EXPECT_EQ(data.class_names(), (std::vector<std::string>{"no", "yes"}));
  // The label counted from the end, and told there is a header.
  EXPECT_EQ(ParseCsv("0,1,no\n1,2,yes\n0,1,no\n", "t", {.label_column = "-1"}).rows(), 3u);
  EXPECT_EQ(ParseCsv("yes,0,1\nyes,1,2\n", "t", {.header = CsvHeader::kYes}).rows(), 1u);
}

// pandas' to_csv of an unnamed array writes the column numbers as its header: a first line of
// 0, 1, ..., n - 1 (or 1, ..., n; at least 5) is a header when its label is no other row's, and
// an error naming --header when it is.
TEST(Csv, AFirstLineNumberingTheColumnsIsAHeaderUnlessItsLabelIsARowsLabel) {
  const Dataset numbered = ParseCsv("0,1,2,3,4\n5,1,0,0,0\n6,0,0,0,1\n", "t");
  EXPECT_EQ(numbered.rows(), 2u);
  EXPECT_EQ(numbered.label(0), 5.f);
  EXPECT_EQ(ParseCsv("1,2,3,4,5\n0,1,0,0,0\n2,0,0,0,1\n", "t").rows(), 2u);
  ExpectDataError([] { ParseCsv("0,1,2,3,4\n0,1,0,0,0\n1,0,0,0,1\n", "t"); }, "t", 1, 1,
                  "say which with --header yes or --header no");
  EXPECT_EQ(ParseCsv("0,1,2,3,4\n0,1,0,0,0\n1,0,0,0,1\n", "t", {.header = CsvHeader::kNo}).rows(),
            3u);
  // Fewer columns, or not in order: a row.
  EXPECT_EQ(ParseCsv("0,1,2,3\n5,1,0,0\n", "t").rows(), 2u);
  EXPECT_EQ(ParseCsv("0,1,2,4,3\n5,1,0,0,0\n", "t").rows(), 2u);
}

// Tab- and semicolon-separated files are read as they come (the most frequent of ',', tab and ';'
// on the first line, outside quotes), or as told; spaces around fields are trimmed, tabs too
// where they do not separate.
TEST(Csv, TheDelimiterIsDetectedOrGiven) {
  const Dataset expected =
      testing::MakeDataset({{{0, 0.5f}, {1, 2.f}}, {{1, 1.f}}}, {1.f, 0.f}, 2);
  ExpectSameData(ParseCsv("y\ta\tb\n1\t0.5\t2\n0\t0\t1\n", "t"), expected);
  ExpectSameData(ParseCsv("y;a;b\n1; 0.5 ;2\r\n0;0;1\n", "t"), expected);
  ExpectSameData(ParseCsv("\"y;z\",a,b\n1,0.5\t,2\n0,0,1\n", "t"), expected);
  ExpectSameData(ParseCsv("y|a|b\n1|0.5|2\n0|0|1\n", "t", {.delimiter = '|'}), expected);
  // An empty field between two tabs is empty, not blank space.
  ExpectDataError([] { ParseCsv("y\ta\tb\n1\t\t2\n", "t"); }, "t", 2, 3,
                  "field 2 is empty");
  // Class names with a semicolon delimiter.
  EXPECT_EQ(ParseCsv("s;x\nno;1\nyes;2\n", "t").class_names(),
            (std::vector<std::string>{"no", "yes"}));
}

// The first line is classified field by field as the rows are parsed: quotes hold delimiters; a
// numbered first line with no label column is a header; -0 and 0 are one class name.
TEST(Csv, FirstLinesWithQuotesNoLabelColumnAndSignedZeros) {
  const Dataset quoted = ParseCsv("\"versi,color\",1,2\nsetosa,0,1\n\"versi,color\",2,2\n", "t");
  EXPECT_EQ(quoted.rows(), 3u);
  EXPECT_EQ(quoted.class_names(), (std::vector<std::string>{"setosa", "versi,color"}));
  EXPECT_EQ(ParseCsv("1,2,\"a;b\"\n3,4,c\n5,6,\"a;b\"\n", "t", {.label_column = "-1"}).rows(),
            3u);
  EXPECT_EQ(ParseCsv("0,1,2,3,4\n1,0,0,0,1\n0,0,0,1,1\n", "t", {.label_column = "none"}).rows(),
            2u);
  const Dataset zeros = ParseCsv("y,x\n-0,1\n0,2\nname,3\n", "t");
  EXPECT_EQ(zeros.class_names(), (std::vector<std::string>{"0", "name"}));
  EXPECT_EQ(zeros.label(0), zeros.label(1));
}

// The class names and every row's class are the same whatever the chunks the text is cut into.
TEST(Csv, TextLabelsDoNotDependOnTheChunks) {
  std::string text = "label,x\n";
  for (int i = 0; i < 3000; ++i) text += fmt::format("c{},{}\n", (i * 7919) % 37, i % 5);
  const Dataset whole = ParseCsv(text, "t", {.chunk_bytes = 1 << 20});
  ASSERT_EQ(whole.class_names().size(), 37u);
  for (uint64_t bytes : {64u, 1000u, 4096u}) {
    const Dataset cut = ParseCsv(text, "t", {.chunk_bytes = bytes});
    EXPECT_EQ(cut.class_names(), whole.class_names());
    ExpectSameData(cut, whole);
  }
}

TEST(Csv, EveryMalformedFieldIsNamedByLineAndColumn) {
  const BadCase cases[] = {
      {"y,a,b\n1,,2\n", 2, 3, "field 2 is empty: a missing value"},
      {"y,a,b\n1,2,\n", 2, 5, "field 3 is empty"},
      {"y,a,b\n,1,2\n", 2, 1, "label field 1 is empty"},
      {"y,a,b\n1, ,2\n", 2, 3, "field 2 is empty"},
      {"y,a,b\n1,2,abc\n", 2, 5, "field 3: expected a number, found 'abc'"},
      {"y,a,b\n1,2 3,4\n", 2, 3, "field 2: expected a number, found '2 3'"},
      {"y,a,b\n1,\"2\",4\n", 2, 3, "field 2: expected a number, found '\"2\"'"},
      {"y,a,b\n\"x,2,4\n", 2, 1, "unterminated quoted label"},
      {"y,a,b\n\"x\"z,2,4\n", 2, 4, "label field 1: text after the closing quote"},
      {"y,a,b\n1,2,4\ninf,2,4\n", 3, 1, "label field 1: 'inf' is not finite"},
      {"y,a,b\n1,nan,4\n", 2, 3, "field 2: 'nan': a missing value (--missing zero, mean, median"},
      {"y,a,b\n1,NA,4\n", 2, 3, "field 2: 'NA': a missing value"},
      {"y,a,b\n1,1,inf\n", 2, 5, "field 3: 'inf' is not finite"},
      {"y,a,b\n1,2,1e39\n", 2, 5, "field 3: '1e39' is not finite"},
      {"y,a,b\n1,2\n", 2, 4, "found 2 fields: expected 3, as the first line has"},
      {"y,a,b\n1,2,3,4\n", 2, 7, "more than 3 fields: expected 3"},
      {"1,2,3\n\n4,5,6\r\n7,8,x\n", 4, 5, "field 3: expected a number, found 'x'"},
      {"\n\ny,a\n1,2\n3\n", 5, 2, "found 1 fields: expected 2"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.text);
    // Without categorical columns (text in a feature column a categorical value otherwise).
    ExpectDataError([&] { ParseCsv(c.text, "bad.csv", {.categorical_auto = false}); }, "bad.csv",
                    c.line, c.column, c.fragment);
  }
}

// --missing zero: every missing spelling is 0 (not stored); a missing label stays an error; a first
// row with missing values is a row, not a header.
TEST(Csv, MissingValuesAreZeroWhenAskedAndNeverMakeAHeader) {
  const CsvOptions zero{.missing = CsvMissing::kZero};
  ExpectSameData(ParseCsv("1,NA,2\n0,,?\n1, nan ,N/A\n0,null,NULL\n1,None,NaN\n", "t", zero),
                 testing::MakeDataset({{{1, 2.f}}, {}, {}, {}, {}}, {1.f, 0.f, 1.f, 0.f, 1.f}, 2));
  ExpectDataError([&] { ParseCsv("y,a\n,1\n", "t", zero); }, "t", 2, 1, "label field 1 is empty");
  ExpectDataError([&] { ParseCsv("y,a\nNA,1\n", "t", zero); }, "t", 2, 1,
                  "label field 1: 'NA' is a missing label");
  EXPECT_EQ(ParseCsv("y,a\n\"NA\",1\nb,2\n", "t").class_names(),
            (std::vector<std::string>{"NA", "b"}));
  // Without the setting the first line "1,NA,2" is a row with a missing value, not a header.
  ExpectDataError([] { ParseCsv("1,NA,2\n0,1,2\n", "t"); }, "t", 1, 3, "field 2: 'NA'");
}

// A weight column: each row's weight, not a feature; by name or position, never the label's.
TEST(Csv, AWeightColumnIsReadAsRowWeightsNotFeatures) {
  const Dataset d = ParseCsv("y,w,a,b\n1,2,0.5,0\n0,0.5,0,3\n", "t", {.weight_column = "w"});
  ExpectSameData(d, testing::MakeDataset({{{0, 0.5f}}, {{1, 3.f}}}, {1.f, 0.f}, 2));
  ASSERT_EQ(d.weights().size(), 2u);
  EXPECT_EQ(d.weights()[0], 2.f);
  EXPECT_EQ(d.weights()[1], 0.5f);
  // By position from the end; weights of 1 everywhere are no weights.
  const Dataset ones = ParseCsv("a,b,y,w\n1,2,1,1\n3,0,0,1\n", "t",
                                {.label_column = "-2", .weight_column = "-1"});
  ExpectSameData(ones, testing::MakeDataset({{{0, 1.f}, {1, 2.f}}, {{0, 3.f}}}, {1.f, 0.f}, 2));
  EXPECT_TRUE(ones.weights().empty());
  testing::ExpectError([] { ParseCsv("y,a\n1,2\n", "t", {.weight_column = "y"}); },
                       {"weight column 'y' is the label column"});
  testing::ExpectError([] { ParseCsv("y,a\n1,2\n", "t", {.weight_column = "z"}); },
                       {"weight column 'z' is not in the header"});
  ExpectDataError([] { ParseCsv("y,w\n1,-1\n", "t", {.weight_column = "w"}); }, "t", 2, 3,
                  "weight field 2: '-1': a row weighs 0 or more");
  ExpectDataError([] { ParseCsv("y,w\n1,NA\n", "t", {.missing = CsvMissing::kZero,
                                                    .weight_column = "w"}); },
                  "t", 2, 3, "weight field 2: a missing weight");
}

TEST(Csv, EmptyHeaderOnlyAndUnterminatedNamesAreErrors) {
  ExpectDataError([] { ParseCsv("", "e"); }, "e", 0, 0, "empty file");
  ExpectDataError([] { ParseCsv("\n \n", "e"); }, "e", 0, 0, "empty file");
  ExpectDataError([] { ParseCsv("y,a\n\n", "e"); }, "e", 0, 0,
                  "no data rows: the file has only a header");
  ExpectDataError([] { ParseCsv("y,\"a\n1,2\n", "e"); }, "e", 1, 3,
                  "unterminated quoted column name");
}

// Random CSV text: a header, `rows` rows of `columns` numbers (many zeros), a few blank lines.
std::string RandomCsv(uint64_t rows, int columns, uint64_t seed) {
  Rng rng(seed);
  std::string text = "label";
  for (int j = 1; j < columns; ++j) text += ",x" + std::to_string(j);
  text += "\n";
  for (uint64_t i = 0; i < rows; ++i) {
    if (rng.Uniform(20) == 0) text += "\n";
    text += rng.Uniform(2) ? "1" : "-1";
    for (int j = 1; j < columns; ++j) {
      text += ",";
      text += rng.Uniform(3) == 0 ? std::to_string(rng.Normal()) : "0";
    }
    text += rng.Uniform(7) == 0 ? "\r\n" : "\n";
  }
  return text;
}

TEST(Csv, ParallelParsingEqualsSerialBitForBit) {
  const std::string text = RandomCsv(8000, 12, 3);
  Dataset serial;
  tbb::task_arena(1).execute([&] { serial = ParseCsv(text, "r", {.chunk_bytes = 1 << 30}); });
  ASSERT_EQ(serial.rows(), 8000u);
  EXPECT_EQ(serial.features(), 11u);
  for (int threads : {1, 2}) {
    for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{1}, uint64_t{100}, uint64_t{5000}}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunk " + std::to_string(chunk_bytes));
      Dataset d;
      tbb::task_arena(threads).execute(
          [&] { d = ParseCsv(text, "r", {.chunk_bytes = chunk_bytes}); });
      ExpectSameData(d, serial);
    }
  }
}

// A line of plain numbers is read in one pass, any other line the general way: both give the same
// rows. Here the same table twice, once with a blank before each delimiter (every line the general
// way): numbers of every shape, a weight column, the label in the middle, a text label after
// number labels, CRLF, and no line break at the end.
TEST(Csv, PlainLinesReadAsEveryOtherLine) {
  Rng rng(5);
  const char* shapes[] = {"0", "-0", "1", "-2.5", "0.125", "16777216", "16777217", "+3", "1e-3",
                          "12345678901234567890", "0.00000000001", "7.", ".5"};
  std::string plain = "x1,w,y,x2,x3\n", general = "x1 ,w ,y ,x2 ,x3\n";
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> fields = {shapes[rng.Uniform(std::size(shapes))],
                                       std::to_string(rng.Uniform(4)),
                                       i == 2000 ? "cat" : std::to_string(rng.Uniform(3)),
                                       shapes[rng.Uniform(std::size(shapes))],
                                       std::to_string(rng.Normal())};
    const std::string end = i == 2999 ? "" : rng.Uniform(5) == 0 ? "\r\n" : "\n";
    for (std::size_t f = 0; f < fields.size(); ++f) {
      plain += (f ? "," : "") + fields[f];
      general += (f ? " ," : "") + fields[f];
    }
    plain += end;
    general += end;
  }
  for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{64}}) {
    const CsvOptions options{.label_column = "y", .weight_column = "w", .chunk_bytes = chunk_bytes};
    const Dataset a = ParseCsv(plain, "p", options), b = ParseCsv(general, "g", options);
    ASSERT_EQ(a.rows(), 3000u);
    ExpectSameData(a, b);
    EXPECT_TRUE(testing::SameBytes(a.weights(), b.weights()));
    EXPECT_EQ(a.class_names(), b.class_names());
    EXPECT_EQ(a.class_names().size(), 4u);  // "0", "1", "2", "cat"
  }
  // A bad field after plain lines, on a last line without a break: its line and column.
  ExpectDataError([] { ParseCsv("y,a\n1,2\n3,4\n5,x6", "e", {.categorical_auto = false}); }, "e",
                  4, 3, "expected a number");
  ExpectDataError([] { ParseCsv("y,a\n1,2\n3,4,5\n", "e"); }, "e", 3, 5, "more than 2 fields");
}

TEST(Csv, TheFirstBadFieldWinsAcrossChunks) {
  std::string text = "y,a\n";
  for (int i = 2; i <= 3000; ++i) text += i == 900 ? "1,\n" : i == 2500 ? "x,1\n" : "1,0.5\n";
  for (uint64_t chunk_bytes : {uint64_t{1}, uint64_t{64}, uint64_t{0}}) {
    SCOPED_TRACE(chunk_bytes);
    tbb::task_arena(2).execute([&] {
      ExpectDataError([&] { ParseCsv(text, "f", {.chunk_bytes = chunk_bytes}); }, "f", 900, 3,
                      "field 2 is empty");
    });
  }
}

TEST(Csv, LoadDatasetPicksCsvByNameContentsOrFormat) {
  testing::TempDir dir;
  const std::string csv = dir.Write("d.CSV", "y,a\n1,2\n");
  const std::string txt = dir.Write("d.txt", "y,a\n1,2\n");
  EXPECT_EQ(DetectDataFormat(csv), DataFormat::kCsv);
  EXPECT_EQ(DetectDataFormat(txt), DataFormat::kCsv) << "commas and no index:value pair";
  EXPECT_EQ(DetectDataFormat(dir.Write("l.txt", "1 1:0.5 2:1 # a, b\n")), DataFormat::kLibsvm);
  EXPECT_EQ(DetectDataFormat(dir.Write("n.txt", "1 2 3\n")), DataFormat::kLibsvm);
  const Dataset expected = testing::MakeDataset({{{0, 2.f}}}, {1.f}, 1);
  ExpectSameData(LoadDataset(csv), expected);
  LoadOptions options;
  options.format = DataFormat::kCsv;
  ExpectSameData(LoadDataset(txt, options), expected);
  options.label_column = "a";
  ExpectSameData(LoadDataset(txt, options), testing::MakeDataset({{{0, 1.f}}}, {2.f}, 1));
  options.max_features = 5;
  EXPECT_EQ(LoadDataset(txt, options).features(), 5u);
}

// A gzip-compressed file is parsed as it inflates and gives the plain text's data at any piece
// size and thread count: a byte order mark, CRLF, blank lines, class names, a categorical column,
// a column of numbers and text (read twice: the file inflated again), a first line longer than
// the first read; a bad field is named by its line in the whole file; a cut stream is refused.
TEST(Csv, GzipFilesAreParsedAsTheyInflateAndMatchThePlainText) {
  testing::TempDir dir;
  Rng rng(5);
  const std::string long_name(70000, 'n');  // the header outgrows the first 64 KiB read
  std::string text = "\xEF\xBB\xBF" "class,colour,code," + long_name + "\r\n\r\n";
  const char* colours[] = {"red", "blue", "\"green, dark\""};
  for (int i = 0; i < 400; ++i) {
    // The code column holds numbers, and text from row 300 on: categorical throughout.
    const std::string code = i >= 300 && i % 7 == 0 ? "x" + std::to_string(i % 3)
                                                     : std::to_string(rng.Uniform(4));
    text += fmt::format("{},{},{},{:.3f}\r\n", rng.Uniform(2) ? "yes" : "no", colours[rng.Uniform(3)],
                        code, rng.UniformDouble());
    if (i % 50 == 0) text += "\r\n";
  }
  const std::string plain = dir.Write("t.csv", text);
  ASSERT_EQ(testing::RunShell("gzip -k " + plain).status, 0);
  Dataset reference;
  tbb::task_arena(1).execute([&] { reference = ParseCsv(text, "r"); });
  ASSERT_TRUE(reference.csv_schema()->columns.at(1).categorical);  // the mixed column
  for (uint64_t piece : {5u, 64u, 1u << 20}) {
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(std::to_string(piece) + " " + std::to_string(threads));
      tbb::task_arena(threads).execute([&] {
        const Dataset d = ReadCsv(plain + ".gz", {.chunk_bytes = piece});
        ExpectSameData(d, reference);
        EXPECT_EQ(d.class_names(), reference.class_names());
        ASSERT_EQ(d.csv_schema()->columns.size(), 3u);
        for (std::size_t c = 0; c < 3; ++c) {
          EXPECT_EQ(d.csv_schema()->columns[c].name, reference.csv_schema()->columns[c].name);
          EXPECT_EQ(d.csv_schema()->columns[c].values, reference.csv_schema()->columns[c].values);
        }
      });
    }
  }
  // Through LoadDataset, by its name.
  ExpectSameData(LoadDataset(plain + ".gz"), reference);
  const std::string bad = dir.Write("bad.csv", "y,a\n1,2\n\n0,3\n1,x y\n0,zz\n");
  ASSERT_EQ(testing::RunShell("gzip " + bad).status, 0);
  ExpectDataError([&] { ReadCsv(bad + ".gz", {.categorical_auto = false, .chunk_bytes = 4}); },
                  bad + ".gz", 5, 3, "expected a number");
  // Cut short: the first half of a compressed file.
  const std::string whole = testing::ReadFile(plain + ".gz");
  const std::string cut = dir.Write("cut.csv.gz", whole.substr(0, whole.size() / 2));
  ExpectDataError([&] { ReadCsv(cut); }, cut, 0, 0, "cut short");
}

}  // namespace
}  // namespace parsgd
