// Every text format through every source its reader takes: a plain file, the same file
// gzip-compressed, a list of its two halves, and a binary cache converted from each: the same rows
// (offsets, indices, values, labels, weights) as the plain file. The formats' readers are rows of
// one table (src/data/format/format_readers.hpp); this sweeps the table.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "parsgd/data/load.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// `n` lines of a small data set in `format`, numbered from `first`.
std::string Lines(DataFormat format, int first, int n) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    const int label = i % 3 == 0 ? 1 : 0;
    switch (format) {
      case DataFormat::kLibsvm:
        out += std::to_string(label) + " " + std::to_string(1 + i % 7) + ":0.5 " +
               std::to_string(9 + i % 5) + ":" + std::to_string(i % 4 + 1) + "\n";
        break;
      case DataFormat::kCsv:
        out += (label ? "yes," : "no,") + std::to_string(i % 7) + "," +
               std::to_string(0.25 * (i % 4)) + "\n";
        break;
      case DataFormat::kFasttext:
        out += std::string(label ? "__label__yes" : "__label__no") + " w" +
               std::to_string(i % 11) + " v" + std::to_string(i % 5) + "\n";
        break;
      case DataFormat::kVw:
        out += std::string(label ? "1" : "-1") + " " + std::to_string(1 + i % 2) + " |a x" +
               std::to_string(i % 9) + " y:" + std::to_string(i % 3 + 1) + " |b z" +
               std::to_string(i % 4) + "\n";
        break;
      default:
        break;
    }
  }
  return out;
}

std::string WriteGzip(const testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir.File(name);
  gzFile f = gzopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(f);
  return path;
}

void ExpectSameRows(const Dataset& a, const Dataset& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.nnz(), b.nnz());
  EXPECT_EQ(a.features(), b.features());
  for (uint64_t i = 0; i <= a.rows(); ++i) ASSERT_EQ(a.offsets()[i], b.offsets()[i]) << i;
  for (uint64_t e = 0; e < a.nnz(); ++e) {
    ASSERT_EQ(a.indices()[e], b.indices()[e]) << e;
    ASSERT_EQ(a.values()[e], b.values()[e]) << e;
  }
  for (uint64_t i = 0; i < a.rows(); ++i) ASSERT_EQ(a.label(i), b.label(i)) << i;
  ASSERT_EQ(a.weights().size(), b.weights().size());
  for (uint64_t i = 0; i < a.weights().size(); ++i) ASSERT_EQ(a.weights()[i], b.weights()[i]);
  EXPECT_EQ(a.class_names(), b.class_names());
  EXPECT_EQ(a.hashing(), b.hashing());
}

TEST(FormatSources, EveryTextFormatReadsTheSameRowsFromEverySource) {
  for (const FormatInfo& info : kFormats) {
    const DataFormat format = info.format;
    if (Lines(format, 0, 1).empty()) continue;  // auto, and the formats read from files only
    SCOPED_TRACE(info.name);
    testing::TempDir dir;
    const std::string ext = format == DataFormat::kCsv ? ".csv" : ".txt";
    const std::string header = format == DataFormat::kCsv ? "class,a,b\n" : "";
    const std::string whole = header + Lines(format, 0, 40);
    const std::string plain = dir.Write("d" + ext, whole);
    LoadOptions options;
    options.format = format;
    const Dataset expected = LoadDataset(plain, options);
    ASSERT_EQ(expected.rows(), 40u);
    struct Source {
      std::string name, path;
    };
    const std::vector<Source> sources = {
        {"gzip", WriteGzip(dir, "d" + ext + ".gz", whole)},
        {"list", dir.Write("a" + ext, header + Lines(format, 0, 17)) + "," +
                     dir.Write("b" + ext, header + Lines(format, 17, 23))},
        {"detected", plain}};
    for (const Source& source : sources) {
      SCOPED_TRACE(source.name);
      LoadOptions read = options;
      if (source.name == "detected") read.format = DataFormat::kAuto;
      ExpectSameRows(expected, LoadDataset(source.path, read));
      const std::string cache = dir.File(source.name + ".bin");
      ConvertToCache(source.path, read, cache);
      ExpectSameRows(expected, LoadDataset(cache));
    }
  }
}

// The formats read from files only are refused from text, by their own words; a list takes no
// IDX file.
TEST(FormatSources, TheFormatsOfFilesOnlyAreRefusedAsText) {
  for (const FormatInfo& info : kFormats) {
    EXPECT_EQ(info.in_list, info.format != DataFormat::kAuto && info.format != DataFormat::kIdx)
        << info.name;
  }
  testing::TempDir dir;
  const std::string text = dir.Write("d.svm", "1 1:1\n");
  LoadOptions idx;
  idx.format = DataFormat::kIdx;
  try {
    LoadDataset(text + "," + text, idx);
    ADD_FAILURE() << "a list read as IDX";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "is IDX images; a list of files reads text or binary "
                                            "caches"))
        << e.what();
  }
}

}  // namespace
}  // namespace parsgd
