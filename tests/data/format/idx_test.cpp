#include "parsgd/data/idx.hpp"

#include <gtest/gtest.h>
#include <zlib.h>  // to write .gz test files (libparsgd links zlib)

#include <filesystem>
#include <string>
#include <vector>

#include "data/format/stream_readers.hpp"
#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;

std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string ImagesFile(uint32_t count, uint32_t rows, uint32_t cols, const std::string& pixels,
                       uint32_t magic = 0x00000803) {
  return BigEndian(magic) + BigEndian(count) + BigEndian(rows) + BigEndian(cols) + pixels;
}

std::string LabelsFile(const std::string& labels) {
  return BigEndian(0x00000801) + BigEndian(static_cast<uint32_t>(labels.size())) + labels;
}

// Three 2x3 images, labels 7, 0, 9.
const std::string kPixels(
    "\x00\xff\x00\x33\x00\x01"
    "\x00\x00\x00\x00\x00\x00"
    "\x80\x80\x80\x80\x80\x80",
    18);
const std::string kLabels("\x07\x00\x09", 3);

std::string WriteGzip(const testing::TempDir& dir, const std::string& name,
                      const std::string& bytes) {
  const std::string path = dir.File(name);
  gzFile out = gzopen(path.c_str(), "wb");
  EXPECT_NE(out, nullptr);
  EXPECT_EQ(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(out);
  return path;
}

Dataset Expected() {
  return testing::MakeDataset({{{1, 1.f}, {3, 51.f / 255.f}, {5, 1.f / 255.f}},
                               {},
                               {{0, 128.f / 255.f},
                                {1, 128.f / 255.f},
                                {2, 128.f / 255.f},
                                {3, 128.f / 255.f},
                                {4, 128.f / 255.f},
                                {5, 128.f / 255.f}}},
                              {7.f, 0.f, 9.f}, 6);
}

TEST(Idx, ReadsRawFilesAsCsrWithoutZeros) {
  testing::TempDir dir;
  const Dataset d =
      ReadIdx(dir.Write("i", ImagesFile(3, 2, 3, kPixels)), dir.Write("l", LabelsFile(kLabels)));
  ExpectSameData(d, Expected());
  EXPECT_EQ(d.source(), dir.File("i"));
}

TEST(Idx, ReadsGzipFilesAndMixtures) {
  testing::TempDir dir;
  const std::string images_gz = WriteGzip(dir, "i.gz", ImagesFile(3, 2, 3, kPixels));
  const std::string labels_gz = WriteGzip(dir, "l.gz", LabelsFile(kLabels));
  ExpectSameData(ReadIdx(images_gz, labels_gz), Expected());
  ExpectSameData(ReadIdx(images_gz, dir.Write("l", LabelsFile(kLabels))), Expected());
  EXPECT_TRUE(HasIdxMagic(images_gz));
  EXPECT_TRUE(HasIdxMagic(labels_gz));
  EXPECT_FALSE(HasIdxMagic(dir.Write("t", "1 1:1\n")));
}

// Expects ReadIdx to throw a DataError for `bad_file` (line 0: a byte offset is in the message).
// ReadIdx refuses the pair with `fragment`, naming `bad_file`; so does the streaming convert to a
// binary cache, which leaves no file.
void ExpectIdxError(const std::string& images, const std::string& labels,
                    const std::string& bad_file, const std::string& fragment) {
  const std::string out = (std::filesystem::path(images).parent_path() / "streamed.bin").string();
  for (const bool convert : {false, true}) {
    try {
      if (convert) {
        data_internal::StreamIdxToCache(images, labels, 0, out);
      } else {
        ReadIdx(images, labels);
      }
      ADD_FAILURE() << "no error; expected " << fragment;
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), bad_file) << e.what();
      EXPECT_EQ(e.line(), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Idx, WrongMagicTypeOrDimensionsAreRefused) {
  testing::TempDir dir;
  const std::string labels = dir.Write("l", LabelsFile(kLabels));
  ExpectIdxError(dir.Write("t", "+1 1:0.5 2:0.25\n"), labels, dir.File("t"),
                 "byte 0: not an IDX file: expected the magic number 0x00000803 (images)");
  ExpectIdxError(dir.Write("f", ImagesFile(3, 2, 3, kPixels, 0x00000D03)), labels, dir.File("f"),
                 "byte 2: element type 0x0d (float) is not supported");
  ExpectIdxError(labels, labels, labels, "byte 3: 1 dimensions: expected 3 for images");
  const std::string images = dir.Write("i", ImagesFile(3, 2, 3, kPixels));
  ExpectIdxError(images, images, images, "byte 3: 3 dimensions: expected 1 for labels");
  ExpectIdxError(dir.Write("z", ImagesFile(0, 2, 3, "")), labels, dir.File("z"),
                 "byte 4: no images");
  ExpectIdxError(dir.Write("w", ImagesFile(3, 0, 3, kPixels)), labels, dir.File("w"),
                 "byte 8: image size 0x3 is absurd");
  ExpectIdxError(dir.Write("h", ImagesFile(1, 65536, 65536, "")), labels, dir.File("h"),
                 "byte 8: image size 65536x65536 is absurd");
}

TEST(Idx, TruncatedFilesAreRefusedBeforeAllocatingTheDeclaredSize) {
  testing::TempDir dir;
  const std::string labels = dir.Write("l", LabelsFile(kLabels));
  const std::string cut = ImagesFile(3, 2, 3, kPixels.substr(0, 15));
  ExpectIdxError(dir.Write("raw", cut), labels, dir.File("raw"),
                 "byte 16: truncated: the header declares 3 images of 2x3 pixels (18 bytes), the "
                 "file holds 15");
  ExpectIdxError(WriteGzip(dir, "gz", cut), labels, dir.File("gz"),
                 "byte 31: truncated: expected 3 images of 2x3 pixels, the stream ends inside "
                 "image 2");
  // Headers declaring ~4 billion 28x28 images (3 TB) over a few bytes of data.
  const std::string huge = ImagesFile(4000000000u, 28, 28, std::string(1000, '\x01'));
  const std::string huge_labels =
      dir.Write("hl", BigEndian(0x00000801) + BigEndian(4000000000u) + "\x01");
  ExpectIdxError(WriteGzip(dir, "huge.gz", huge), huge_labels, dir.File("huge.gz"),
                 "the stream ends inside image 1");
  ExpectIdxError(dir.Write("huge", huge), huge_labels, dir.File("huge"), "byte 16: truncated");
  ExpectIdxError(dir.Write("i", ImagesFile(3, 2, 3, kPixels)),
                 dir.Write("short", BigEndian(0x00000801) + BigEndian(3) + "\x01"),
                 dir.File("short"), "truncated: the header declares 3 labels");
}

// Headers that declare more than any machine holds: 2^31 x 2^31-pixel images (refused from the
// header alone), and 2^32 - 1 images of 65535 x 65535 pixels (a valid shape; 2^64 bytes that the
// raw file's size and the gzip stream's end give the lie to). Nothing is allocated from the header:
// each would OOM if it were.
TEST(Idx, AbsurdDimensionsAreRefusedBeforeAllocating) {
  testing::TempDir dir;
  const std::string labels = dir.Write("l", LabelsFile(kLabels));
  const std::string square = ImagesFile(3, 1u << 31, 1u << 31, kPixels);
  for (const std::string& path :
       {dir.Write("square", square), WriteGzip(dir, "square.gz", square)}) {
    ExpectIdxError(path, labels, path, "byte 8: image size 2147483648x2147483648 is absurd");
  }
  const std::string many = ImagesFile(0xffffffffu, 65535, 65535, std::string(4096, '\x01'));
  const std::string many_labels =
      dir.Write("ml", BigEndian(0x00000801) + BigEndian(0xffffffffu) + std::string(16, '\x01'));
  ExpectIdxError(dir.Write("many", many), many_labels, dir.File("many"),
                 "byte 16: truncated: the header declares 4294967295 images of 65535x65535 pixels "
                 "(18446181123756261375 bytes)");
  ExpectIdxError(WriteGzip(dir, "many.gz", many), many_labels, dir.File("many.gz"),
                 "the stream ends inside image 0");
  ExpectIdxError(dir.Write("i", ImagesFile(3, 2, 3, kPixels)),
                 WriteGzip(dir, "ml.gz", BigEndian(0x00000801) + BigEndian(3) + "\x01"),
                 dir.File("ml.gz"), "expected 3 labels, the stream ends after 1");
}

TEST(Idx, AGzipFileCutShortIsRefused) {
  testing::TempDir dir;
  std::string pixels;
  for (int i = 0; i < 3 * 28 * 28; ++i) pixels += static_cast<char>(i * 7);
  const std::string gz =
      testing::ReadFile(WriteGzip(dir, "full.gz", ImagesFile(3, 28, 28, pixels)));
  const std::string cut = dir.Write("cut.gz", gz.substr(0, gz.size() / 2));
  ExpectIdxError(cut, dir.Write("l", LabelsFile(kLabels)), cut, "(the gzip stream is cut short)");
}

TEST(Idx, CountsMustAgreeAndNothingMayFollowTheData) {
  testing::TempDir dir;
  const std::string images = dir.Write("i", ImagesFile(3, 2, 3, kPixels));
  const std::string two = dir.Write("two", LabelsFile(kLabels.substr(0, 2)));
  ExpectIdxError(images, two, two, "byte 4: image and label counts differ: 2 labels, 3 images");
  const std::string long_images = dir.Write("li", ImagesFile(3, 2, 3, kPixels + "x"));
  ExpectIdxError(long_images, dir.Write("l", LabelsFile(kLabels)), long_images,
                 "byte 34: data after the last image");
}

// The streaming convert writes the cache ReadIdx and WriteBinaryCache write, 4 MiB of pixels at
// a time (here images of a million pixels, one cut between two reads), raw or gzip, with labels or
// without.
TEST(Idx, ConvertStreamsTheInMemoryCache) {
  testing::TempDir dir;
  std::string pixels(5 * 1000 * 1000, '\0'), labels;
  for (uint32_t i = 0; i < 5; ++i) labels += static_cast<char>(i % 4);
  for (std::size_t p = 0; p < pixels.size(); ++p) {
    if (p % 5 != 0) pixels[p] = static_cast<char>(p % 251);
  }
  const std::string images = dir.Write("big-images-idx3-ubyte", ImagesFile(5, 1000, 1000, pixels));
  const std::string label_file = dir.Write("big-labels-idx1-ubyte", LabelsFile(labels));
  const std::string gz = WriteGzip(dir, "g.gz", ImagesFile(5, 1000, 1000, pixels));
  for (const std::string& input : {images, gz + "," + label_file}) {
    for (uint64_t features : {uint64_t{0}, uint64_t{1} << 21}) {
      LoadOptions options;
      options.max_features = features;
      const CacheShape shape = ConvertToCache(input, options, dir.File("s.bin"));
      WriteBinaryCache(LoadDataset(input, options), dir.File("m.bin"));
      EXPECT_TRUE(testing::ReadFile(dir.File("s.bin")) == testing::ReadFile(dir.File("m.bin")))
          << input << " " << features;
      EXPECT_EQ(shape.rows, 5u);
      EXPECT_EQ(shape.classes, 4u);
    }
  }
  LoadOptions unlabelled;
  unlabelled.labels_optional = true;
  const std::string alone = dir.Write("a-images-idx3-ubyte", ImagesFile(3, 2, 3, kPixels));
  ConvertToCache(alone, unlabelled, dir.File("u.bin"));
  ExpectSameData(ReadBinaryCache(dir.File("u.bin")), ReadIdx(alone, ""));
}

TEST(Idx, MissingFilesAreErrorsNamingThem) {
  ExpectError([] { ReadIdx("/nonexistent/images", "/nonexistent/labels"); },
              {"/nonexistent/images", "cannot open"});
}

TEST(Idx, ReadsTheFashionMnistTestSet) {
  const std::string root = "/usr/share/datasets/fashion-mnist/";
  const std::string images = root + "t10k-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(images)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const Dataset d = ReadIdx(images, root + "t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(d.rows(), 10000u);
  EXPECT_EQ(d.features(), 784u);
  std::vector<int> per_class(10, 0);
  for (float label : d.labels()) {
    ASSERT_TRUE(label >= 0 && label <= 9 && label == static_cast<int>(label)) << label;
    ++per_class[static_cast<int>(label)];
  }
  for (int count : per_class) EXPECT_EQ(count, 1000);  // the test set is balanced
  for (float v : d.values()) ASSERT_TRUE(v > 0.f && v <= 1.f) << v;
  EXPECT_LT(d.nnz(), 10000u * 784u);  // zeros are left out
  EXPECT_GT(d.nnz(), 10000u * 784u / 4);
}

}  // namespace
}  // namespace parsgd
