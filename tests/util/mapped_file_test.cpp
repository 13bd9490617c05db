// Reading data holds it once: MappedFile::Release gives a mapping's pages back (and the bytes read
// the same after), and nothing else's; a PageBudget keeps a mapping's pages near its budget;
// ResidentCopy of a binary cache gives its mapping's pages back as it copies; the text readers give
// their text's pages back as they parse, with the same rows.
#include "parsgd/util/mapped_file.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/util/page_budget.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// This process's resident pages of mapped files, in KiB: RssFile and RssShmem of /proc/self/status
// (a file on tmpfs, where a temporary folder may be, counts as shared memory).
uint64_t ResidentFileKib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t total = 0;
  int found = 0;
  while (status >> key) {
    if (key == "RssFile:" || key == "RssShmem:") {
      uint64_t kib = 0;
      status >> kib;
      total += kib;
      ++found;
    }
    status.ignore(1 << 20, '\n');
  }
  if (found != 2) ADD_FAILURE() << "no RssFile or RssShmem in /proc/self/status";
  return total;
}

uint64_t Sum(const MappedFile& file) {
  uint64_t sum = 0;
  for (std::byte b : file.bytes()) sum += static_cast<uint8_t>(b);
  return sum;
}

TEST(MappedFile, ReleaseGivesThePagesBackAndTheBytesReadTheSame) {
  testing::TempDir dir;
  std::string text(16 << 20, '\0');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 7 + i / 4096);
  const auto file = MappedFile::Open(dir.Write("data", text));
  const uint64_t before = ResidentFileKib();
  const uint64_t sum = Sum(*file);  // every page touched
  const uint64_t touched = ResidentFileKib();
  ASSERT_GE(touched, before + 12 * 1024) << "reading 16 MiB mapped fewer pages than expected";
  file->Release(file->chars(), file->size());
  EXPECT_LE(ResidentFileKib(), touched - 12 * 1024);
  EXPECT_EQ(Sum(*file), sum);  // read again from the file
  // Part of a page is kept: only the whole pages inside the range go.
  file->Release(file->chars() + 1, 100);
  EXPECT_EQ(Sum(*file), sum);
}

// Read a MiB at a time, with a look after each (the watcher is told to wait an hour), the file's
// pages held never pass the budget by more than the MiB read since the last look.
TEST(PageBudget, KeepsTheMappedPagesNearItsBudgetAndTheBytesTheSame) {
  testing::TempDir dir;
  std::string text(32 << 20, '\0');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 13 + i / 4096);
  const auto file = MappedFile::Open(dir.Write("data", text));
  const uint64_t expected = Sum(*file);
  file->Release(file->chars(), file->size());
  const uint64_t budget = 4 << 20;
  PageBudget pages({file}, budget, 3600 * 1000);
  const uint64_t start = ResidentFileBytes();
  uint64_t sum = 0, most = 0;
  for (std::size_t at = 0; at < file->size(); at += 1 << 20) {
    for (std::size_t i = at; i < at + (1 << 20); ++i) sum += static_cast<uint8_t>(file->bytes()[i]);
    pages.Check();
    most = std::max(most, ResidentFileBytes() - std::min(start, ResidentFileBytes()));
  }
  EXPECT_EQ(sum, expected);
  EXPECT_LE(most, budget + (1 << 20));
  EXPECT_GE(pages.releases(), 32u / 4);
}

TEST(MappedFile, ReleaseLeavesMemoryOutsideTheMappingAlone) {
  testing::TempDir dir;
  const auto file = MappedFile::Open(dir.Write("small", std::string(8192, 'x')));
  std::vector<char> own(1 << 20, 'y');  // anonymous memory: MADV_DONTNEED would zero it
  file->Release(own.data(), own.size());
  for (char c : own) ASSERT_EQ(c, 'y');
}

TEST(ResidentCopy, IsTheCacheInOwnMemoryAndTheMappedOriginalStillReads) {
  testing::TempDir dir;
  const Dataset made = testing::MakeProblem(20000, 500, 30, 2, 0.0, 5);
  const std::string path = dir.File("d.bin");
  WriteBinaryCache(made, path);
  const Dataset mapped = ReadBinaryCache(path);
  ASSERT_TRUE(mapped.mapped());
  const Dataset own = ResidentCopy(mapped);
  EXPECT_FALSE(own.mapped());
  for (const Dataset* d : {&own, &mapped}) {  // the original's pages given back, read again
    ASSERT_EQ(d->rows(), made.rows());
    ASSERT_EQ(d->nnz(), made.nnz());
    for (uint64_t i = 0; i < made.rows(); ++i) {
      ASSERT_EQ(d->label(i), made.label(i));
      const SparseRow a = d->row(i), b = made.row(i);
      ASSERT_EQ(a.nnz, b.nnz);
      for (uint32_t e = 0; e < a.nnz; ++e) {
        ASSERT_EQ(a.index[e], b.index[e]);
        ASSERT_EQ(a.value[e], b.value[e]);
      }
    }
  }
}

// The rows' weights are copied too: nothing of the copy reads the file.
TEST(ResidentCopy, CopiesTheRowsWeights) {
  testing::TempDir dir;
  Dataset::Parts parts = testing::MakeProblem(1000, 50, 5, 2, 0.0, 5).parts();
  AlignedArray<float> weights(1000);
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.5f + static_cast<float>(i % 3);
  parts.weights = SharedArray<float>(std::move(weights));
  WriteBinaryCache(Dataset(std::move(parts)), dir.File("w.bin"));
  const Dataset mapped = ReadBinaryCache(dir.File("w.bin"));
  const Dataset own = ResidentCopy(mapped);
  ASSERT_EQ(own.weights().size(), 1000u);
  const char* begin = mapped.mapping()->chars();
  const auto* at = reinterpret_cast<const char*>(own.weights().data());
  EXPECT_FALSE(at >= begin && at < begin + mapped.mapping()->size());
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(own.weights()[i], mapped.weights()[i]);
}

// A file read in small chunks (each chunk's text given back once parsed, and the pages around
// each chunk bound once found) gives the rows the same text parsed from memory gives.
TEST(ReadLibsvm, GivingTheTextBackAsItParsesKeepsEveryRow) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 30000; ++i) {
    text += (i % 3 == 0 ? "+1" : "-1");
    for (int j = 1; j <= 1 + i % 9; ++j) {
      text.append(" ").append(std::to_string(j * 13 + i % 7));
      text.append(":0.").append(std::to_string(i % 97 + 1));
    }
    text += "\n";
  }
  const std::string path = dir.Write("d.svm", text);
  for (uint64_t chunk : {uint64_t{4096}, uint64_t{100000}}) {
    const Dataset read = ReadLibsvm(path, {.chunk_bytes = chunk});
    const Dataset parsed = ParseLibsvm(text, path, {.chunk_bytes = chunk});
    ASSERT_EQ(read.rows(), 30000u);
    ASSERT_EQ(read.nnz(), parsed.nnz());
    EXPECT_EQ(read.features(), parsed.features());
    for (uint64_t i = 0; i < read.rows(); ++i) {
      ASSERT_EQ(read.label(i), parsed.label(i));
      const SparseRow a = read.row(i), b = parsed.row(i);
      ASSERT_EQ(a.nnz, b.nnz);
      for (uint32_t e = 0; e < a.nnz; ++e) {
        ASSERT_EQ(a.index[e], b.index[e]) << "row " << i;
        ASSERT_EQ(a.value[e], b.value[e]) << "row " << i;
      }
    }
  }
}

}  // namespace
}  // namespace parsgd
