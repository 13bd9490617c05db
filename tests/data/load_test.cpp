#include "parsgd/data/load.hpp"

#include <gtest/gtest.h>
#include <zlib.h>  // to write .gz test files (libparsgd links zlib)

#include <filesystem>
#include <string>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/libsvm.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;

Dataset Small() {
  return testing::MakeDataset({{{0, 0.5f}, {3, -1.f}}, {{1, 2.f}}}, {1.f, -1.f}, 4);
}

std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// One 2x2 image (pixels 0, 255, 0, 51) with label 4.
const std::string kImages = BigEndian(0x803) + BigEndian(1) + BigEndian(2) + BigEndian(2) +
                            std::string("\x00\xff\x00\x33", 4);
const std::string kLabels = BigEndian(0x801) + BigEndian(1) + "\x04";

void WriteGzip(const std::string& path, const std::string& bytes) {
  gzFile out = gzopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(out);
}

TEST(DataFormat, NamesRoundTrip) {
  for (DataFormat f :
       {DataFormat::kAuto, DataFormat::kLibsvm, DataFormat::kIdx, DataFormat::kBinary,
        DataFormat::kCsv, DataFormat::kFasttext, DataFormat::kVw}) {
    EXPECT_EQ(ParseDataFormat(DataFormatName(f)), f);
  }
  EXPECT_STREQ(DataFormatName(DataFormat::kBinary), "bin");
  EXPECT_STREQ(DataFormatName(DataFormat::kCsv), "csv");
  EXPECT_EQ(ParseDataFormat("LIBSVM"), std::nullopt);
  EXPECT_EQ(ParseDataFormat("tsv"), std::nullopt);
}

TEST(LoadDataset, SavesBySuffixAndDetectsByContent) {
  testing::TempDir dir;
  SaveDataset(Small(), dir.File("a.bin"));
  SaveDataset(Small(), dir.File("a.svm"));
  EXPECT_TRUE(HasBinaryCacheMagic(dir.File("a.bin")));
  EXPECT_EQ(testing::ReadFile(dir.File("a.svm")), "1 1:0.5 4:-1\n-1 2:2\n");
  EXPECT_EQ(DetectDataFormat(dir.File("a.bin")), DataFormat::kBinary);
  EXPECT_EQ(DetectDataFormat(dir.File("a.svm")), DataFormat::kLibsvm);
  ExpectSameData(LoadDataset(dir.File("a.bin")), Small());
  ExpectSameData(LoadDataset(dir.File("a.svm")), Small());
  // The content decides, not the name.
  WriteBinaryCache(Small(), dir.File("cache.txt"));
  EXPECT_EQ(DetectDataFormat(dir.File("cache.txt")), DataFormat::kBinary);
  ExpectSameData(LoadDataset(dir.File("cache.txt")), Small());
  // A '|' with spaces is VW's text; without, a pipe-separated table.
  EXPECT_EQ(DetectDataFormat(dir.Write("v.txt", "1 |a x y\n")), DataFormat::kVw);
  const std::string pipes = dir.Write("p.txt", "y|a|b\n1|0.5|0\n0|0|2\n");
  EXPECT_EQ(DetectDataFormat(pipes), DataFormat::kCsv);
  ExpectSameData(LoadDataset(pipes),
                 testing::MakeDataset({{{0, 0.5f}}, {{1, 2.f}}}, {1.f, 0.f}, 2));
}

TEST(LoadDataset, ExplicitFormatOverridesDetection) {
  testing::TempDir dir;
  SaveDataset(Small(), dir.File("a.svm"));
  ExpectError([&] { LoadDataset(dir.File("a.svm"), {.format = DataFormat::kBinary}); },
              {"not a parsgd binary cache"});
  SaveDataset(Small(), dir.File("a.bin"));
  EXPECT_THROW(LoadDataset(dir.File("a.bin"), {.format = DataFormat::kLibsvm}), DataError);
}

TEST(LoadDataset, IdxImagesPathFindsItsLabelsRawOrGzip) {
  testing::TempDir dir;
  dir.Write("x-images-idx3-ubyte", kImages);
  dir.Write("x-labels-idx1-ubyte", kLabels);
  WriteGzip(dir.File("y-images-idx3-ubyte.gz"), kImages);
  WriteGzip(dir.File("y-labels-idx1-ubyte.gz"), kLabels);
  const Dataset expected = testing::MakeDataset({{{1, 1.f}, {3, 51.f / 255.f}}}, {4.f}, 4);
  for (const char* name : {"x-images-idx3-ubyte", "y-images-idx3-ubyte.gz"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(DetectDataFormat(dir.File(name)), DataFormat::kIdx);
    ExpectSameData(LoadDataset(dir.File(name)), expected);
  }
  const std::string pair =
      dir.File("x-images-idx3-ubyte") + "," + dir.File("y-labels-idx1-ubyte.gz");
  EXPECT_EQ(DetectDataFormat(pair), DataFormat::kIdx);
  ExpectSameData(LoadDataset(pair), expected);
}

TEST(LoadDataset, IdxLabelsThatCannotBeFoundAreNamed) {
  testing::TempDir dir;
  dir.Write("z-images-idx3-ubyte", kImages);
  dir.Write("images.idx", kImages);
  ExpectError([&] { LoadDataset(dir.File("z-images-idx3-ubyte")); },
              {"labels file not found: looked for '" + dir.File("z-labels-idx1-ubyte") + "'"});
  ExpectError([&] { LoadDataset(dir.File("images.idx")); },
              {"has no 'images-idx3'", "give IMAGES,LABELS"});
}

TEST(LoadDataset, MaxFeaturesLimitsEveryFormatAndSetsTheWidth) {
  testing::TempDir dir;
  SaveDataset(Small(), dir.File("a.svm"));
  SaveDataset(Small(), dir.File("a.bin"));
  EXPECT_EQ(LoadDataset(dir.File("a.svm"), {.max_features = 10}).features(), 10u);
  EXPECT_EQ(LoadDataset(dir.File("a.bin"), {.max_features = 10}).features(), 10u);
  EXPECT_THROW(LoadDataset(dir.File("a.svm"), {.max_features = 3}), DataError);
  ExpectError([&] { LoadDataset(dir.File("a.bin"), {.max_features = 3}); },
              {dir.File("a.bin"), "4 features, more than the feature count given (--features) 3"});
}

// Compressed text is LIBSVM or CSV as the inflated bytes and the name before ".gz" say; a cache
// is not read from a gzip stream.
TEST(LoadDataset, GzipTextIsInflatedAndParsed) {
  testing::TempDir dir;
  WriteGzip(dir.File("a.svm.gz"), "1 1:1\n-1 2:0.5\n");
  EXPECT_EQ(DetectDataFormat(dir.File("a.svm.gz")), DataFormat::kLibsvm);
  testing::ExpectSameData(LoadDataset(dir.File("a.svm.gz")),
                          testing::MakeDataset({{{0, 1.f}}, {{1, 0.5f}}}, {1.f, -1.f}, 2));
  WriteGzip(dir.File("b.csv.gz"), "1\n0\n");  // one column, no separator: CSV by its name
  EXPECT_EQ(DetectDataFormat(dir.File("b.csv.gz")), DataFormat::kCsv);
  EXPECT_EQ(LoadDataset(dir.File("b.csv.gz")).rows(), 2u);
  WriteGzip(dir.File("c.bin"), "1 1:1\n");
  LoadOptions bin;
  bin.format = DataFormat::kBinary;
  ExpectError([&] { LoadDataset(dir.File("c.bin"), bin); }, {"c.bin"});
}

// A comma-separated list of files is one data set, rows in file order: one index base for the
// whole list, the widest feature count, class names the union; formats must agree.
TEST(LoadDataset, SeveralFilesAreOneDataSetInFileOrder) {
  testing::TempDir dir;
  const std::string a = dir.Write("a.svm", "1 3:1\n");     // alone: one-based, column 2
  WriteGzip(dir.File("b.svm.gz"), "-1 0:2 5:1\n");         // has an index 0: the list is zero-based
  const std::string list = a + "," + dir.File("b.svm.gz");
  EXPECT_TRUE(IsSeveralFiles(list));
  EXPECT_EQ(DetectDataFormat(list), DataFormat::kLibsvm);
  const Dataset d = LoadDataset(list);
  ExpectSameData(d, testing::MakeDataset({{{3, 1.f}}, {{0, 2.f}, {5, 1.f}}}, {1.f, -1.f}, 6));
  EXPECT_EQ(d.zero_based(), ZeroBased::kYes);
  EXPECT_EQ(d.source(), list);
  // CSV parts with their own headers and classes: the union of the names, each row's mapped.
  const std::string c1 = dir.Write("c1.csv", "y,x\ncat,1\ndog,2\n");
  const std::string c2 = dir.Write("c2.csv", "y,x\nant,3\ncat,4\n");
  const Dataset c = LoadDataset(c1 + "," + c2);
  EXPECT_EQ(c.class_names(), (std::vector<std::string>{"ant", "cat", "dog"}));
  ExpectSameData(c, testing::MakeDataset({{{0, 1.f}}, {{0, 2.f}}, {{0, 3.f}}, {{0, 4.f}}},
                                         {1.f, 2.f, 0.f, 1.f}, 1));
  const std::string wide = dir.Write("wide.csv", "y,x,z\ncat,1,1\n");
  ExpectError([&] { LoadDataset(c1 + "," + wide); }, {"wide.csv", "2 feature columns", "has 1"});
  ExpectError([&] { LoadDataset(a + "," + c1); }, {"is libsvm but", "c1.csv is csv"});
  ExpectError([&] { LoadDataset(a + ",," + c1); }, {"('' is not one)"});
  // A pair whose first file is IDX stays IMAGES,LABELS; a missing file is named.
  EXPECT_FALSE(IsSeveralFiles(dir.File("none-images-idx3") + "," + a));
  ExpectError([&] { LoadDataset(a + "," + dir.File("gone.svm")); }, {"gone.svm"});
}

TEST(LoadDataset, MissingFilesAndFoldersAreNamed) {
  ExpectError([] { LoadDataset("/nonexistent/data.svm"); }, {"/nonexistent/data.svm"});
  testing::TempDir dir;
  ExpectError([&] { LoadDataset(dir.path().string()); },
              {dir.path().string(), "not a regular file"});
}

// Images to predict need no labels file: with labels_optional, images whose labels file is
// not found read with every label 0; without it, the missing file is named.
TEST(LoadDataset, ImagesToPredictNeedNoLabelsFile) {
  const std::string images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(images)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  testing::TempDir dir;
  const std::string alone = dir.File("alone-images-idx3-ubyte.gz");
  std::filesystem::copy_file(images, alone);
  LoadOptions predict;
  predict.labels_optional = true;
  const Dataset d = LoadDataset(alone, predict);
  EXPECT_EQ(d.rows(), 10000u);
  EXPECT_EQ(d.features(), 784u);
  for (uint64_t i = 0; i < d.rows(); ++i) ASSERT_EQ(d.label(i), 0.f);
  ExpectError([&] { LoadDataset(alone); }, {"IDX labels file not found"});
}

TEST(LoadDataset, FashionMnistByItsImagesPath) {
  const std::string images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(images)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const Dataset d = LoadDataset(images);
  EXPECT_EQ(d.rows(), 10000u);
  EXPECT_EQ(d.features(), 784u);
}

}  // namespace
}  // namespace parsgd

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;

// Gzip-compressed fastText and VW text is parsed as it inflates: the data of the plain file, the
// hashing recorded alike; a stream cut short is an error naming the file.
TEST(LoadDataset, CompressedHashedTextReadsAsThePlainFile) {
  testing::TempDir dir;
  std::string fasttext, vw;
  for (int i = 0; i < 3000; ++i) {
    fasttext += "__label__" + std::to_string(i % 3) + " word" + std::to_string(i % 17) +
                " and more words " + std::to_string(i) + "\n";
    vw += std::to_string(i % 2 ? 1 : -1) + " |a x" + std::to_string(i % 5) + " |b y:" +
          std::to_string(i % 7) + "\n";
  }
  for (const auto& [name, text] : {std::pair{"f.txt", fasttext}, std::pair{"v.txt", vw}}) {
    SCOPED_TRACE(name);
    const std::string plain = dir.Write(name, text);
    ASSERT_EQ(testing::RunShell("gzip -k " + plain).status, 0);
    const Dataset expected = LoadDataset(plain);
    const Dataset got = LoadDataset(plain + ".gz");
    ExpectSameData(got, expected);
    EXPECT_EQ(got.hashing(), expected.hashing());
    EXPECT_EQ(got.class_names(), expected.class_names());
    const std::string gz = testing::ReadFile(plain + ".gz");
    const std::string cut = dir.Write(std::string("cut-") + name + ".gz", gz.substr(0, gz.size() / 2));
    ExpectError([&] { LoadDataset(cut); }, {cut + ": the gzip stream ends early"});
  }
}

}  // namespace
}  // namespace parsgd
