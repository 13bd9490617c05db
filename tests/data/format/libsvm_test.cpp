#include "parsgd/data/libsvm.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "data/format/libsvm_chunk.hpp"  // internal: the chunk parser under a rows limit
#include "data_test_util.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectDataError;
using testing::ExpectSameData;

// Random LIBSVM text: `rows` lines, some blank or commented, a few CRLF; numbers of all shapes.
std::string RandomText(uint64_t rows, uint64_t seed) {
  Rng rng(seed);
  std::string text;
  for (uint64_t i = 0; i < rows; ++i) {
    if (rng.Uniform(10) == 0) text += "# a comment line\n\n";
    text += rng.Uniform(2) ? "+1" : "-1";
    uint64_t index = 0;
    for (uint64_t k = rng.Uniform(12); k > 0; --k) {
      index += 1 + rng.Uniform(40);
      text += rng.Uniform(5) == 0 ? '\t' : ' ';
      text.append(std::to_string(index)).append(":").append(std::to_string(rng.Normal()));
    }
    text += rng.Uniform(7) == 0 ? "\r\n" : "\n";
  }
  return text;
}

TEST(Libsvm, ParsesLabelsAndZeroBasedIndices) {
  Dataset d = ParseLibsvm("1 1:0.5 3:2\n-1 2:-1.25\n", "t", {});
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.features(), 3u);
  EXPECT_EQ(d.nnz(), 3u);
  EXPECT_EQ(d.source(), "t");
  EXPECT_EQ(d.label(0), 1.f);
  EXPECT_EQ(d.label(1), -1.f);
  EXPECT_EQ(d.row(0).index[0], 0u);
  EXPECT_EQ(d.row(0).index[1], 2u);
  EXPECT_EQ(d.row(0).value[1], 2.f);
  EXPECT_EQ(d.row(1).index[0], 1u);
  EXPECT_EQ(d.row(1).value[0], -1.25f);
}

TEST(Libsvm, ReadsTheFixtureWithCommentsQidTabsAndCrlf) {
  Dataset d = ReadLibsvm(testing::SourcePath("data/fixtures/mixed.libsvm"));
  const Dataset expected = testing::MakeDataset(
      {{{0, 0.5f}, {2, -2.f}, {9, 1e-3f}}, {{1, 0.f}, {3, 0.25f}}, {}, {{0, 1.f}, {9, -0.125f}}},
      {1.f, -1.f, 3.f, 25.f}, 10);
  ExpectSameData(d, expected);
}

TEST(Libsvm, AcceptsAnyFiniteLabelAndKeepsExplicitZeros) {
  Dataset d = ParseLibsvm("3 1:0\n0 2:-0\n-2.5e-1\n1e3 4:1e-50\n", "t", {});
  ASSERT_EQ(d.rows(), 4u);
  EXPECT_EQ(d.label(0), 3.f);
  EXPECT_EQ(d.label(1), 0.f);
  EXPECT_EQ(d.label(2), -0.25f);
  EXPECT_EQ(d.label(3), 1000.f);
  ASSERT_EQ(d.nnz(), 3u);
  EXPECT_EQ(d.values()[0], 0.f);
  EXPECT_TRUE(std::signbit(d.values()[1]));  // "-0" is kept as negative zero
  EXPECT_EQ(d.values()[2], 0.f);             // below float's range: rounds to zero
  EXPECT_EQ(d.row(2).nnz, 0u);
}

TEST(Libsvm, MaxFeaturesSetsTheColumnCount) {
  Dataset d = ParseLibsvm("1 2:1\n", "t", {.max_features = 100});
  EXPECT_EQ(d.features(), 100u);
}

TEST(Libsvm, LargestIndexBelowTwoToThe32IsAccepted) {
  Dataset d = ParseLibsvm("1 4294967295:1\n", "t", {});
  EXPECT_EQ(d.features(), 4294967295u);
  EXPECT_EQ(d.row(0).index[0], 4294967294u);
}

struct BadCase {
  std::string_view text;
  uint64_t line;
  uint64_t column;
  const char* fragment;
};

TEST(Libsvm, EveryMalformedInputNamesLineColumnAndWhatWasExpected) {
  const BadCase cases[] = {
      {"abc 1:2\n", 1, 1, "expected a numeric label, found 'abc'"},
      // Control bytes quoted as escapes: a NUL would cut the message short.
      {std::string_view("1 1:1\n\x01\0b 1:1\n", 14), 2, 1,
       "expected a numeric label, found '\\x01\\x00b'"},
      {"1,0.5,0\n", 1, 1,
       "expected a numeric label, found '1,0.5,0' (CSV text? name the file *.csv, or give the "
       "format csv)"},
      {"1 x:2\n", 1, 3, "expected a feature 'index:value', found 'x:2'"},
      {"1 2x:2\n", 1, 3, "expected a feature 'index:value', found '2x:2'"},
      {"1 2:abc\n", 1, 5, "expected a numeric value after '2:', found 'abc'"},
      {"1 2:\n", 1, 5, "expected a numeric value after '2:', found nothing"},
      {"1 2:1.5x\n", 1, 5, "expected a numeric value after '2:', found '1.5x'"},
      {"1 2 3:1\n", 1, 3, "expected ':' after feature index '2'"},
      {"1 0:1\n", 1, 3,
       "feature index 0: indices are 1-based under zero-based no: read the file with zero-based "
       "yes or auto if its indices start at 0"},
      {"1 -3:1\n", 1, 3, "feature index '-3:1' is negative: expected an index >= 1"},
      {"1 3:1 2:1\n", 1, 7, "feature index 2 is not ascending: it follows 3"},
      {"1 3:1 3:2\n", 1, 7, "feature index 3 is repeated"},
      {"1 2:nan\n", 1, 5, "value 'nan' of feature 2 is not finite"},
      {"1 2:-inf\n", 1, 5, "value '-inf' of feature 2 is not finite"},
      {"1 2:1e39\n", 1, 5, "value '1e39' of feature 2 is not finite"},
      {"nan 1:1\n", 1, 1, "label 'nan' is not finite"},
      {"+-1 1:1\n", 1, 1, "expected a numeric label"},
      {"1:1 2:3\n", 1, 1, "missing label: the line starts with feature '1:1'"},
      {"1 4294967296:1\n", 1, 3, "feature index 4294967296 is too large"},
      {"1 99999999999999999999999:1\n", 1, 3, "is too large: expected an index below 2^32"},
      {"1 2:1\r3:1\n", 1, 5, "expected a numeric value after '2:'"},
      {"1\t\t0:1\n", 1, 4, "indices are 1-based"},
      {"1 1:1\n\n# c\n  -1 2:1 1:1\r\n", 4, 10, "is not ascending"},
  };
  // One-based, as LIBSVM numbers features (the index 0 cases need it; the others fail either way).
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.text);
    ExpectDataError([&] { ParseLibsvm(c.text, "bad.svm", {.zero_based = ZeroBased::kNo}); },
                    "bad.svm", c.line, c.column, c.fragment);
  }
}

// A UTF-8 byte order mark at the start (as Windows editors save text) is skipped.
TEST(Libsvm, AByteOrderMarkIsSkipped) {
  ExpectSameData(ParseLibsvm("\xEF\xBB\xBF" "1 1:1\n-1 2:1\n", "t"),
                 ParseLibsvm("1 1:1\n-1 2:1\n", "t"));
}

// scikit-learn's dump_svmlight_file writes zero-based indices by default.
TEST(Libsvm, ZeroBasedTextIsReadAsWritten) {
  const Dataset d = ParseLibsvm("1 0:0.5 2:1\n-1 1:2\n", "z", {.zero_based = ZeroBased::kYes});
  EXPECT_EQ(d.features(), 3u);
  EXPECT_EQ(d.zero_based(), ZeroBased::kYes);
  ExpectSameData(d, testing::MakeDataset({{{0, 0.5f}, {2, 1.f}}, {{1, 2.f}}}, {1.f, -1.f}, 3));
  // Without an index 0 the same setting still reads every index as written.
  ExpectSameData(ParseLibsvm("1 1:1\n", "z", {.zero_based = ZeroBased::kYes}),
                 testing::MakeDataset({{{1, 1.f}}}, {1.f}, 2));
}

TEST(Libsvm, AutoIsZeroBasedExactlyWhenAnIndex0Appears) {
  std::string text = RandomText(3000, 5);
  const Dataset one_based = ParseLibsvm(text, "t", {.zero_based = ZeroBased::kNo});
  const Dataset automatic = ParseLibsvm(text, "t", {});
  ExpectSameData(automatic, one_based);
  EXPECT_EQ(automatic.zero_based(), ZeroBased::kNo);
  // One index 0 near the end, far from the first chunk, makes the whole file zero-based.
  text += "1 0:1 5:2\n";
  for (int threads : {1, 2}) {
    for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{64}, uint64_t{4096}}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunk " + std::to_string(chunk_bytes));
      LibsvmOptions automatic_options, zero_based_options;
      automatic_options.chunk_bytes = zero_based_options.chunk_bytes = chunk_bytes;
      zero_based_options.zero_based = ZeroBased::kYes;
      Dataset a, y;
      tbb::task_arena(threads).execute([&] {
        a = ParseLibsvm(text, "t", automatic_options);
        y = ParseLibsvm(text, "t", zero_based_options);
      });
      EXPECT_EQ(a.zero_based(), ZeroBased::kYes);
      ExpectSameData(a, y);
      EXPECT_EQ(a.features(), one_based.features() + 1);
      EXPECT_EQ(a.row(0).index[0], one_based.row(0).index[0] + 1);
    }
  }
}

TEST(Libsvm, AnIndex0UnderOneBasedSaysWhyAndWhatToDo) {
  ExpectDataError(
      [] {
        ParseLibsvm("1 1:1\n1 0:1\n", "t",
                    {.zero_based = ZeroBased::kNo, .zero_based_note = "as the training data"});
      },
      "t", 2, 3, "feature index 0: as the training data");
}

TEST(Libsvm, ZeroBasedLimitsAreOneLower) {
  // Zero-based, max_features 4 allows indices 0..3.
  ExpectDataError(
      [] {
        ParseLibsvm("1 3:1\n1 4:1\n", "m", {.max_features = 4, .zero_based = ZeroBased::kYes});
      },
      "m", 2, 3,
      "feature index 4 exceeds the feature count given (--features) 4: zero-based indices go to 3");
  // Decided zero-based by an index 0 on a later line: the earlier index 4 is reported.
  ExpectDataError(
      [] { ParseLibsvm("1 4:1\n1 0:1\n", "m", {.max_features = 4}); }, "m", 1, 3,
      "feature index 4 exceeds the feature count given (--features) 4: zero-based indices go to 3");
  EXPECT_EQ(ParseLibsvm("1 4:1\n", "m", {.max_features = 4}).features(), 4u);  // one-based
  // At most 2^32 - 1 features: zero-based indices stop at 2^32 - 2.
  EXPECT_EQ(ParseLibsvm("1 0:1 4294967294:1\n", "m", {}).features(), 4294967295u);
  ExpectDataError([] { ParseLibsvm("1 0:1 4294967295:1\n", "m", {}); }, "m", 1, 7,
                  "feature index 4294967295 is too large: expected an index below 2^32 - 1 "
                  "(zero-based)");
}

TEST(Libsvm, IndexAboveMaxFeaturesIsAnError) {
  ExpectDataError([] { ParseLibsvm("1 4:1\n1 5:1\n", "m", {.max_features = 4}); }, "m", 2, 3,
                  "feature index 5 exceeds the feature count given (--features) 4");
}

TEST(Libsvm, EmptyOrRowlessTextIsAnError) {
  ExpectDataError([] { ParseLibsvm("", "e", {}); }, "e", 0, 0, "empty file");
  ExpectDataError([] { ParseLibsvm("# only\n\n   \n", "e", {}); }, "e", 0, 0, "no data rows");
}

TEST(Libsvm, TheFirstBadLineWinsWhenBadLinesAreInDifferentChunks) {
  std::string text;
  for (int i = 1; i <= 4000; ++i) {
    if (i == 1200) {
      text += "1 5:1 4:1\n";
    } else if (i == 3000) {
      text += "x 1:1\n";
    } else {
      text += "1 1:0.5 7:2\n";
    }
  }
  for (int threads : {1, 2}) {
    for (uint64_t chunk_bytes : {uint64_t{1}, uint64_t{64}, uint64_t{4096}, uint64_t{0}}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunk " + std::to_string(chunk_bytes));
      tbb::task_arena arena(threads);
      arena.execute([&] {
        ExpectDataError([&] { ParseLibsvm(text, "f", {.chunk_bytes = chunk_bytes}); }, "f", 1200, 7,
                        "is not ascending");
      });
    }
  }
}

TEST(Libsvm, SameResultAtAnyThreadCountAndChunkSize) {
  const std::string text = RandomText(20000, 7);
  Dataset reference;
  tbb::task_arena(1).execute([&] { reference = ParseLibsvm(text, "r", {.chunk_bytes = 1 << 30}); });
  ASSERT_EQ(reference.rows(), 20000u);
  for (int threads : {1, 2}) {
    for (uint64_t chunk_bytes : {uint64_t{0}, uint64_t{100}, uint64_t{5000}}) {
      Dataset d;
      tbb::task_arena(threads).execute(
          [&] { d = ParseLibsvm(text, "r", {.chunk_bytes = chunk_bytes}); });
      ExpectSameData(d, reference);
    }
  }
}

Dataset AwkwardNumbers() {
  const float denormal = std::numeric_limits<float>::denorm_min();
  const float big = std::numeric_limits<float>::max();
  return testing::MakeDataset({{{0, 0.1f}, {5, -0.f}, {6, denormal}, {9, big}},
                               {},
                               {{2, 1.f / 3.f}, {3, -1e-38f}, {4294967293u, 123456.79f}}},
                              {1.f, -3.5f, 1e-7f}, 4294967295u);
}

TEST(Libsvm, WriteThenReadGivesBackTheSameBits) {
  testing::TempDir dir;
  const Dataset original = AwkwardNumbers();
  WriteLibsvm(original, dir.File("a.svm"));
  ExpectSameData(ReadLibsvm(dir.File("a.svm"), {.max_features = original.features()}), original);

  const Dataset parsed = ParseLibsvm(RandomText(5000, 3), "r", {});
  WriteLibsvm(parsed, dir.File("b.svm"));
  ExpectSameData(ReadLibsvm(dir.File("b.svm")), parsed);
}

TEST(Libsvm, WritingIsByteIdenticalAtAnyThreadCount) {
  testing::TempDir dir;
  const Dataset d = ParseLibsvm(RandomText(40000, 11), "r", {});
  tbb::task_arena(1).execute([&] { WriteLibsvm(d, dir.File("one.svm")); });
  tbb::task_arena(2).execute([&] { WriteLibsvm(d, dir.File("two.svm")); });
  const std::string one = testing::ReadFile(dir.File("one.svm"));
  EXPECT_EQ(one, testing::ReadFile(dir.File("two.svm")));
  EXPECT_EQ(one.substr(0, one.find('\n') + 1).back(), '\n');
}

TEST(Libsvm, WritesShortestNumbersAndOneBasedIndices) {
  testing::TempDir dir;
  WriteLibsvm(testing::MakeDataset({{{0, 0.1f}, {2, -2.f}}, {}}, {1.f, -1.f}, 3), dir.File("s"));
  EXPECT_EQ(testing::ReadFile(dir.File("s")), "1 1:0.1 3:-2\n-1\n");
}

TEST(Libsvm, MissingFileIsAnErrorNamingIt) {
  testing::ExpectError([] { ReadLibsvm("/nonexistent/x.svm"); }, {"/nonexistent/x.svm"});
}

TEST(Libsvm, ReadsHeartScaleFromLiblinearTools) {
  const std::string path = "/usr/share/doc/liblinear-tools/examples/heart_scale";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "liblinear-tools is not installed";
  Dataset d = ReadLibsvm(path);
  EXPECT_EQ(d.rows(), 270u);
  EXPECT_EQ(d.features(), 13u);
  EXPECT_EQ(d.label(0), 1.f);
  EXPECT_EQ(d.label(1), -1.f);
  EXPECT_EQ(d.row(0).value[0], 0.708333f);
}

}  // namespace
}  // namespace parsgd

namespace parsgd {
namespace {

// Read as a stream (compressed or not), pieces of any size, on any thread count: the same data as
// the whole text parsed at once; a bad line is named by its line in the whole text.
TEST(LibsvmStream, GivesTheWholeTextsDataAtAnyPieceSizeAndThreadCount) {
  testing::TempDir dir;
  const std::string text = "\xEF\xBB\xBF" + RandomText(400, 9);
  const std::string plain = dir.Write("d.svm", text);
  ASSERT_EQ(testing::RunShell("gzip -k " + plain).status, 0);
  Dataset reference;
  tbb::task_arena(1).execute([&] { reference = ParseLibsvm(text, "r"); });
  for (const std::string& path : {plain, plain + ".gz"}) {
    for (uint64_t piece : {5u, 64u, 1u << 20}) {
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(path + " " + std::to_string(piece) + " " + std::to_string(threads));
        tbb::task_arena(threads).execute([&] {
          ExpectSameData(ReadLibsvmStream(path, {.chunk_bytes = piece}), reference);
        });
      }
    }
  }
  const std::string bad = dir.Write("bad.svm", "1 1:2\n-1 3:1\n1 2:x\n");
  ASSERT_EQ(testing::RunShell("gzip " + bad).status, 0);
  ExpectDataError([&] { ReadLibsvmStream(bad + ".gz", {.chunk_bytes = 4}); }, bad + ".gz", 3, 5,
                  "expected a numeric value after '2:'");
  const std::string empty = dir.Write("e.svm", "");
  ExpectDataError([&] { ReadLibsvmStream(empty); }, empty, 0, 0, "empty file");
  const std::string bom = dir.Write("bom.svm", "\xEF\xBB\xBF");
  ASSERT_EQ(testing::RunShell("gzip -k " + bom).status, 0);
  ExpectDataError([&] { ReadLibsvmStream(bom); }, bom, 0, 0, "empty file");
  ExpectDataError([&] { ReadLibsvmStream(bom + ".gz"); }, bom + ".gz", 0, 0, "empty file");
}

}  // namespace
}  // namespace parsgd

namespace parsgd {
namespace {

// A text whose parsed rows pass the memory they may take is stopped, and refused at a line where
// reading stopped with the numbers and the way through; under the limit it parses whole.
TEST(RowsLimit, StopsATextWhoseRowsPassItWithTheWayThrough) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "1 1:0.5 2:1\n";  // 28 bytes of rows a line
  const libsvm_internal::IndexRules rules = libsvm_internal::RulesFor({});
  const auto parse = [&](std::string_view piece, data_internal::Chunk* c) {
    libsvm_internal::ParseChunk(piece, rules, c);
  };
  std::vector<data_internal::Chunk> whole =
      data_internal::ParseChunks(text, 1000, parse, nullptr, uint64_t{1} << 30);
  uint64_t rows = 0;
  for (const data_internal::Chunk& c : whole) {
    EXPECT_FALSE(c.error.has_value());
    rows += c.labels.size();
  }
  EXPECT_EQ(rows, 2000u);
  const std::vector<data_internal::Chunk> stopped =
      data_internal::ParseChunks(text, 1000, parse, nullptr, 10000);
  try {
    data_internal::ThrowFirstError(stopped, "t.svm");
    ADD_FAILURE() << "not stopped";
  } catch (const DataError& e) {
    EXPECT_GE(e.line(), 1u) << e.what();  // a line of the text (where depends on the threads)
    EXPECT_LE(e.line(), 2000u) << e.what();
    for (const char* part : {"the rows read before this line need", "this process may use",
                             "convert the text to a binary cache", "--order block"}) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << part << "\n" << e.what();
    }
  }
}

}  // namespace
}  // namespace parsgd
