// The streaming convert (ConvertToCache): the cache it writes is, byte for byte, the one the
// in-memory reader and WriteBinaryCache write, for LIBSVM (every index base), fastText (class
// names) and VW (weights), every chunking, compression, lists and standard input (its format told
// from its bytes); a malformed line is named by its number and leaves no file, nor any temporary
// one, and neither does a stream cut short or interrupted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::Contains;

const LoadOptions kDefaults;

std::string InMemory(const std::string& text_path, const LoadOptions& options,
                     const std::string& out) {
  WriteBinaryCache(LoadDataset(text_path, options), out);
  return testing::ReadFile(out);
}

TEST(ConvertToCache, WritesTheInMemoryCacheByteForByte) {
  testing::TempDir dir;
  GeneratorParams g;
  g.rows = 3000;
  g.features = 700;
  g.nnz_per_row = 25;
  const std::string generated = dir.File("g.svm");
  WriteLibsvm(GenerateSparse(g), generated);
  // Zero-based (an index 0), comments, blank lines, an empty row, no final newline, +1 labels.
  const std::string zero = dir.Write("zero.svm",
                                     "# a comment\n+1 0:0.5 3:1e-3\n\n-1\n1 2:7 9:-2.25 # tail\n-1 "
                                     "1:1");
  const std::string one = dir.Write("one.svm", "1 1:0.5 4:2\r\n0 2:1\n1 3:-1 7:1.5\n");
  for (const std::string& text : {generated, zero, one}) {
    for (uint64_t chunk : {uint64_t{0}, uint64_t{64}, uint64_t{1000}}) {
      for (uint64_t features : {uint64_t{0}, uint64_t{5000}}) {
        LoadOptions options;
        options.chunk_bytes = chunk;
        options.max_features = features;
        const std::string streamed = dir.File("s.bin");
        const CacheShape shape = ConvertToCache(text, options, streamed);
        const std::string expected = InMemory(text, options, dir.File("m.bin"));
        ASSERT_TRUE(testing::ReadFile(streamed) == expected)
            << text << ", chunks of " << chunk << ", features " << features;
        const Dataset read = ReadBinaryCache(streamed);
        EXPECT_EQ(shape.rows, read.rows());
        EXPECT_EQ(shape.nnz, read.nnz());
        EXPECT_EQ(shape.features, read.features());
      }
    }
  }
  // Gzip-compressed, and standard input through the command.
  const std::string text = testing::ReadFile(generated);
  const std::string gz = dir.File("g.svm.gz");
  testing::WriteGzipFile(text, gz);
  const std::string expected = InMemory(generated, kDefaults, dir.File("m.bin"));
  ConvertToCache(gz, kDefaults, dir.File("gz.bin"));
  EXPECT_TRUE(testing::ReadFile(dir.File("gz.bin")) == expected);
  for (const std::string format : {" --format libsvm", ""}) {
    const auto piped = testing::RunShell("cat " + generated + " | " + PARSGD_CLI_PATH +
                                         " convert - " + dir.File("in.bin") + format);
    ASSERT_EQ(piped.status, 0) << piped.output;
    EXPECT_TRUE(Contains(piped.output, "3000 rows x ")) << piped.output;
    EXPECT_TRUE(Contains(piped.output, " nonzeros, 2 distinct labels")) << piped.output;
    EXPECT_TRUE(testing::ReadFile(dir.File("in.bin")) == expected) << format;
  }
}

// fastText's text (class names, hashed words) and VW's (weights, interactions) stream into the
// cache LoadDataset and SaveDataset write, at any chunking, from a file, gzip, a list and standard
// input; the cache gives back the names, the weights and the hashing.
TEST(ConvertToCache, HashedTextKeepsItsNamesWeightsAndHashing) {
  testing::TempDir dir;
  std::string fasttext, vw;
  for (int i = 0; i < 400; ++i) {
    fasttext += "__label__" +
                std::string(i % 3 == 0   ? "sport"
                            : i % 3 == 1 ? "art"
                                         : "news") +
                " the word" + std::to_string(i % 17) + " and more words " + std::to_string(i) +
                "\n";
    vw += std::to_string(i % 2 == 0 ? 1 : -1) + (i % 5 == 0 ? " 2.5" : "") + " |a x" +
          std::to_string(i % 7) + " y:" + std::to_string(i % 4) + " |b z" + std::to_string(i % 11) +
          "\n";
  }
  const std::string ft = dir.Write("t.txt", fasttext);
  const std::string v = dir.Write("t.vw", vw);
  const std::string ft2 = dir.Write("u.txt", "__label__zoo more words\n__label__art x\n");
  LoadOptions vw_options;
  vw_options.hashing.format = HashedText::kVw;
  vw_options.hashing.bits = 12;
  vw_options.hashing.interactions = "ab";
  for (uint64_t chunk : {uint64_t{0}, uint64_t{100}}) {
    for (const auto& [input, given] : std::vector<std::pair<std::string, LoadOptions>>{
             {ft, {}}, {v, vw_options}, {ft + "," + ft2, {}}}) {
      LoadOptions options = given;
      options.chunk_bytes = chunk;
      const std::string expected = InMemory(input, options, dir.File("m.bin"));
      const CacheShape shape = ConvertToCache(input, options, dir.File("s.bin"));
      ASSERT_TRUE(testing::ReadFile(dir.File("s.bin")) == expected) << input << " " << chunk;
      const Dataset read = ReadBinaryCache(dir.File("s.bin"));
      const Dataset text = LoadDataset(input, options);
      EXPECT_EQ(read.class_names(), text.class_names());
      ASSERT_TRUE(read.hashing().has_value());
      EXPECT_EQ(read.hashing()->format, text.hashing()->format);
      EXPECT_EQ(read.hashing()->bits, text.hashing()->bits);
      EXPECT_EQ(read.hashing()->interactions, text.hashing()->interactions);
      EXPECT_EQ(read.weights().size(), text.weights().size());
      EXPECT_EQ(shape.classes, input == v ? 2u : text.class_names().size());
    }
  }
  EXPECT_EQ(ReadBinaryCache(dir.File("s.bin")).class_names(),
            (std::vector<std::string>{"__label__art", "__label__news", "__label__sport",
                                      "__label__zoo"}));
  ConvertToCache(v, vw_options, dir.File("w.bin"));
  EXPECT_FALSE(ReadBinaryCache(dir.File("w.bin")).weights().empty());  // some importance is 2.5
  // Gzip and standard input, the format told from the first line.
  testing::WriteGzipFile(fasttext, dir.File("t.txt.gz"));
  ConvertToCache(dir.File("t.txt.gz"), kDefaults, dir.File("gz.bin"));
  const std::string expected = InMemory(ft, kDefaults, dir.File("m.bin"));
  EXPECT_TRUE(testing::ReadFile(dir.File("gz.bin")) == expected);
  const auto piped =
      testing::RunShell("cat " + ft + " | " + PARSGD_CLI_PATH + " convert - " + dir.File("in.bin"));
  ASSERT_EQ(piped.status, 0) << piped.output;
  EXPECT_TRUE(testing::ReadFile(dir.File("in.bin")) == expected);
}

// A list of files is read as one: the rows in order, zero-based where any file has an index 0;
// the same bytes as LoadDataset of the list, and through the command.
TEST(ConvertToCache, AListOfFilesIsOneCache) {
  testing::TempDir dir;
  const std::string a = dir.Write("a.svm", "1 1:0.5 3:2\n-1 2:1\n");
  const std::string b = dir.Write("b.svm", "1 0:1 4:0.25\n");
  const std::string list = a + "," + b;
  const CacheShape shape = ConvertToCache(list, kDefaults, dir.File("s.bin"));
  EXPECT_EQ(shape.rows, 3u);
  SaveDataset(LoadDataset(list, {}), dir.File("m.bin"));
  EXPECT_TRUE(testing::ReadFile(dir.File("s.bin")) == testing::ReadFile(dir.File("m.bin")));
  const auto r = testing::RunCli("convert " + list + " " + dir.File("c.bin"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(testing::ReadFile(dir.File("c.bin")) == testing::ReadFile(dir.File("m.bin")));
  // An error names its file and its own line.
  const std::string bad = dir.Write("bad.svm", "1 1:1\n1 x\n");
  testing::ExpectError([&] { ConvertToCache(a + "," + bad, kDefaults, dir.File("e.bin")); },
                       {"bad.svm:2:"});
}

TEST(ConvertToCache, AMalformedLineIsNamedAndLeavesNoFile) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 500; ++i) text += "1 1:0.5 2:1\n";
  text += "1 3:0.5 2:1\n";  // line 501: indices not ascending
  const std::string bad = dir.Write("bad.svm", text);
  const auto before = testing::FolderNames(dir.path().string());
  LoadOptions options;
  options.chunk_bytes = 100;
  std::string expected;
  try {
    LoadDataset(bad, options);
  } catch (const DataError& e) {
    expected = e.what();
  }
  ASSERT_TRUE(Contains(expected, ":501:")) << expected;
  try {
    ConvertToCache(bad, options, dir.File("out.bin"));
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  EXPECT_EQ(testing::FolderNames(dir.path().string()), before);  // no cache, no temporary file
  testing::ExpectError(
      [&] { ConvertToCache(dir.Write("e.svm", ""), kDefaults, dir.File("o.bin")); },
      {"e.svm: empty file"});
  // fastText's line without a label, by its number.
  testing::ExpectError(
      [&] {
        ConvertToCache(dir.Write("f.txt", "__label__a w\n__label__b v\nno label\n"), {},
                       dir.File("o.bin"));
      },
      {"f.txt:3:", "no label"});
  EXPECT_EQ(testing::FolderNames(dir.path().string()),
            (std::vector<std::string>{"bad.svm", "e.svm", "f.txt"}));
}

// A gzip stream cut short, and a convert interrupted while it reads standard input: no cache and
// no temporary file left, exit status non-zero.
TEST(ConvertToCache, AStreamCutShortOrInterruptedLeavesNoFile) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "1 1:0.5 2:1 7:0.25\n";
  const std::string gz = dir.File("t.svm.gz");
  testing::WriteGzipFile(text, gz);
  std::filesystem::resize_file(gz, std::filesystem::file_size(gz) / 2);
  const auto before = testing::FolderNames(dir.path().string());
  testing::ExpectError([&] { ConvertToCache(gz, kDefaults, dir.File("cut.bin")); },
                       {"t.svm.gz", "cut short"});
  EXPECT_EQ(testing::FolderNames(dir.path().string()), before);
  const std::string out = dir.File("stdin.bin");
  // Standard input from a FIFO held open (the stream goes on) while the command is stopped.
  const std::string fifo = dir.File("fifo");
  const auto r = testing::RunShell(
      "mkfifo " + fifo + "; " + PARSGD_CLI_PATH + " convert - " + out + " --format libsvm < " +
      fifo + " & pid=$!; exec 3> " + fifo + "; cat " + dir.Write("part.svm", text) +
      " >&3; sleep 1; kill -TERM $pid; wait $pid; status=$?; exec 3>&-; rm " + fifo +
      "; exit $status");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "interrupted; no output file written")) << r.output;
  auto names = testing::FolderNames(dir.path().string());
  EXPECT_EQ(std::count(names.begin(), names.end(), "stdin.bin"), 0);
  for (const std::string& name : names) EXPECT_FALSE(name.starts_with(".")) << name;
}

}  // namespace
}  // namespace parsgd
