// The block order and what reads a binary cache larger than memory: the order visits every row
// exactly once an epoch for any block size, worker count and seed, is a pure function of them (so
// a resumed run takes the epochs it would have), and reads a block at a time; a paged view reads
// the rows the file holds (its budget: mapped_file_test.cpp); the CLI refuses, before
// reading, a run whose rows cannot fit (with the numbers and the way through), trains with the
// block order from the file, resumes it exactly, and ends with an error when the file changes or
// is cut short under it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/util/mapped_file.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::Contains;
using testing::RunCli;
using testing::RunShell;

// The epoch's rows, worker after worker (the sequence the shards are cut from).
std::vector<uint32_t> Sequence(SampleOrder& order, uint64_t epoch) {
  order.PrepareEpoch(epoch);
  std::vector<uint32_t> out;
  for (int w = 0; w < order.workers(); ++w) {
    std::vector<uint32_t> scratch;
    const auto shard = order.Indices(epoch, w, scratch);
    EXPECT_EQ(shard.size(), order.ShardSize(w));
    out.insert(out.end(), shard.begin(), shard.end());
  }
  return out;
}

TEST(BlockOrder, VisitsEveryRowOnceAnEpochForAnyBlockWorkersAndSeed) {
  for (uint64_t rows : {1ull, 7ull, 100ull, 1001ull, 4096ull}) {
    for (uint64_t block : {1ull, 3ull, 64ull, 1000ull, 5000ull}) {
      for (int workers : {1, 2, 3, 8}) {
        for (uint64_t seed : {1ull, 2ull}) {
          SampleOrder order(OrderKind::kBlock, rows, workers, seed, block);
          for (uint64_t epoch : {0ull, 1ull}) {
            std::vector<uint32_t> seen = Sequence(order, epoch);
            std::sort(seen.begin(), seen.end());
            std::vector<uint32_t> all(rows);
            std::iota(all.begin(), all.end(), 0u);
            ASSERT_EQ(seen, all) << rows << " rows, blocks of " << block << ", " << workers
                                 << " workers, seed " << seed << ", epoch " << epoch;
          }
        }
      }
    }
  }
}

// The same arguments give the same rows, whichever order the workers ask in and whether the
// epochs before were prepared (a resumed run prepares its first epoch directly).
TEST(BlockOrder, IsAPureFunctionOfSeedEpochWorkersAndBlock) {
  SampleOrder walked(OrderKind::kBlock, 1000, 3, 7, 64);
  std::vector<std::vector<uint32_t>> epochs;
  for (uint64_t e = 0; e < 4; ++e) epochs.push_back(Sequence(walked, e));
  SampleOrder resumed(OrderKind::kBlock, 1000, 3, 7, 64);
  resumed.PrepareEpoch(3);
  std::vector<uint32_t> backwards;
  for (int w = 2; w >= 0; --w) {
    std::vector<uint32_t> scratch;
    const auto shard = resumed.Indices(3, w, scratch);
    backwards.insert(backwards.begin(), shard.begin(), shard.end());
  }
  EXPECT_EQ(backwards, epochs[3]);
  EXPECT_NE(epochs[0], epochs[1]);  // shuffled again each epoch
  SampleOrder other_seed(OrderKind::kBlock, 1000, 3, 8, 64);
  EXPECT_NE(Sequence(other_seed, 0), epochs[0]);
  SampleOrder other_block(OrderKind::kBlock, 1000, 3, 7, 65);
  EXPECT_NE(Sequence(other_block, 0), epochs[0]);
}

// Each block's rows come together in the sequence, shuffled within it, and the blocks come in a
// shuffled order: a worker reads one block after another.
TEST(BlockOrder, ReadsABlockAtATimeInShuffledOrder) {
  const uint64_t rows = 10000, block = 100;
  SampleOrder order(OrderKind::kBlock, rows, 4, 3, block);
  ASSERT_EQ(order.blocks(), 100u);
  const std::vector<uint32_t> sequence = Sequence(order, 0);
  std::vector<uint64_t> blocks;  // the sequence's blocks, in order
  uint64_t in_file_order = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t b = sequence[i] / block;
    if (i == 0 || b != blocks.back()) blocks.push_back(b);
    in_file_order += i > 0 && sequence[i] == sequence[i - 1] + 1;
  }
  EXPECT_EQ(blocks.size(), 100u);  // each block once: contiguous in the sequence
  EXPECT_EQ(std::set<uint64_t>(blocks.begin(), blocks.end()).size(), 100u);
  EXPECT_FALSE(std::is_sorted(blocks.begin(), blocks.end()));
  EXPECT_LT(in_file_order, rows / 10);  // rows shuffled within their block
}

TEST(BlockOrder, BlocksAreSizedInBytesAndAutoTakesThemForLargeMappedSets) {
  // 1000 rows of 1 KiB: 4 MiB is 4096 rows, capped at the rows; at least one row.
  EXPECT_EQ(RowsPerBlock(0, 100000, 100000 * 1024), 4096u);
  EXPECT_EQ(RowsPerBlock(64 << 10, 100000, 100000 * 1024), 64u);
  EXPECT_EQ(RowsPerBlock(0, 1000, 1000 * 1024), 1000u);
  EXPECT_EQ(RowsPerBlock(10, 1000, 1000 * 1024), 1u);
  std::string reason;
  EXPECT_EQ(ChooseOrder(OrderKind::kAuto, 600, true, 1000, &reason), OrderKind::kBlock);
  EXPECT_TRUE(Contains(reason, "more than half of the")) << reason;
  EXPECT_EQ(ChooseOrder(OrderKind::kAuto, 400, true, 1000, nullptr), OrderKind::kGlobal);
  EXPECT_EQ(ChooseOrder(OrderKind::kAuto, 600, false, 1000, nullptr), OrderKind::kGlobal);
  EXPECT_EQ(ChooseOrder(OrderKind::kLocal, 600, true, 1000, nullptr), OrderKind::kLocal);
}

TEST(PagedView, ReadsTheSameRowsFromTheFile) {
  testing::TempDir dir;
  const Dataset made = testing::MakeProblem(5000, 300, 20, 2, 0.0, 4);
  const std::string path = dir.File("d.bin");
  WriteBinaryCache(made, path);
  const Dataset paged = PagedView(ReadBinaryCache(path), 1 << 20);
  ASSERT_TRUE(paged.mapped());
  EXPECT_EQ(ResidentBytes(paged), ResidentBytes(made));
  ASSERT_EQ(paged.rows(), made.rows());
  for (uint64_t i = 0; i < made.rows(); ++i) {
    ASSERT_EQ(paged.label(i), made.label(i));
    const SparseRow a = paged.row(i), b = made.row(i);
    ASSERT_EQ(a.nnz, b.nnz);
    ASSERT_EQ(std::memcmp(a.index, b.index, a.nnz * 4), 0);
    ASSERT_EQ(std::memcmp(a.value, b.value, a.nnz * 4), 0);
  }
}

class BlockOrderCli : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = dir_.File("train.bin");
    WriteBinaryCache(testing::MakeProblem(6000, 400, 20, 2, 0.1, 11), cache_);
  }
  testing::TempDir dir_;
  std::string cache_;
};

// The block order from the file, deterministic: 4 epochs at once and 2 + 2 from a checkpoint
// write the same model (a schedule that does not depend on the length); its setup line says where
// the rows come from.
TEST_F(BlockOrderCli, TrainsFromTheFileAndResumesExactly) {
  const std::string common = "train --train " + cache_ +
                             " --order block --block-size 16K --scheme sync --batch 32 --threads 2 "
                             "--schedule constant --deterministic";
  const auto whole = RunCli(common + " --epochs 4 --save " + dir_.File("whole.model"));
  ASSERT_EQ(whole.status, 0) << whole.output;
  EXPECT_TRUE(Contains(whole.output, "blocks of 95 rows (16K), read from the file"))
      << whole.output;
  const std::string ckpt = dir_.File("run.ckpt");
  ASSERT_EQ(RunCli(common + " --epochs 2 --checkpoint " + ckpt).status, 0);
  const auto resumed = RunCli(common + " --epochs 4 --checkpoint " + ckpt + " --resume " + ckpt +
                              " --save " + dir_.File("resumed.model"));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_TRUE(testing::ReadFile(dir_.File("whole.model")) ==
              testing::ReadFile(dir_.File("resumed.model")));
  // Another block size is another order: another model.
  const auto other = RunCli("train --train " + cache_ +
                            " --order block --block-size 64K --scheme sync --batch 32 --threads 2 "
                            "--schedule constant --deterministic --epochs 4 --save " +
                            dir_.File("other.model"));
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_FALSE(testing::ReadFile(dir_.File("whole.model")) ==
               testing::ReadFile(dir_.File("other.model")));
  const auto ignored = RunCli("train --train " + cache_ + " --order global --block-size 64K");
  EXPECT_EQ(ignored.status, 2) << ignored.output;
  EXPECT_TRUE(Contains(ignored.output,
                       "--block-size would be ignored: it sizes the blocks of --order block"))
      << ignored.output;
}

// Rows sorted by class under the block order: the setup line warns (experiment 9); the same rows
// in no order do not.
TEST_F(BlockOrderCli, RowsSortedByClassAreWarnedOf) {
  const Dataset rows = ReadBinaryCache(cache_);
  std::vector<uint64_t> order(rows.rows());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint64_t a, uint64_t b) { return rows.label(a) < rows.label(b); });
  std::vector<testing::Entries> entries;
  std::vector<float> labels;
  for (uint64_t r : order) {
    const SparseRow x = rows.row(r);
    testing::Entries e;
    for (uint32_t k = 0; k < x.nnz; ++k) e.push_back({x.index[k], x.value[k]});
    entries.push_back(e);
    labels.push_back(rows.label(r));
  }
  const std::string sorted = dir_.File("sorted.bin");
  WriteBinaryCache(testing::MakeDataset(entries, labels, rows.features()), sorted);
  const char* warning = "warning: the rows come in runs of one class (1 changes of label in 6000";
  const auto warned = RunCli("train --train " + sorted + " --order block --epochs 1");
  ASSERT_EQ(warned.status, 0) << warned.output;
  EXPECT_TRUE(Contains(warned.output, warning)) << warned.output;
  const auto quiet = RunCli("train --train " + cache_ + " --order block --epochs 1");
  ASSERT_EQ(quiet.status, 0) << quiet.output;
  EXPECT_FALSE(Contains(quiet.output, "warning:")) << quiet.output;
}

// A cache whose header declares 3 GiB of rows, as a sparse file (nothing of it is read), under an
// address-space limit of 2 GiB: refused before reading, with its numbers and the way through.
TEST_F(BlockOrderCli, ARunWhoseRowsCannotFitIsRefusedBeforeReadingWithTheWayThrough) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory takes more address space than the limit set here";
#endif
  const uint64_t rows = uint64_t{1} << 20, nnz = (uint64_t{3} << 30) / 8;
  const std::string big = dir_.File("big.bin");
  {
    const std::string header =
        testing::WithDeclaredShape(testing::ReadFile(cache_), rows, 400, nnz).substr(0, 128);
    std::ofstream(big, std::ios::binary) << header;
  }
  std::filesystem::resize_file(big,
                               cache_internal::CanonicalLayout(rows, nnz)->file_size);  // sparse
  const std::string limited = "ulimit -v 2097152 && " + std::string(PARSGD_CLI_PATH) + " ";
  const auto global = RunShell(limited + "train --train " + big + " --order global");
  EXPECT_EQ(global.status, 1) << global.output;
  for (const char* part : {"big.bin: its rows need 3", "MiB in memory",
                           "more than the 2048 MiB "
                           "this process may use",
                           "train with --order block (or auto)"}) {
    EXPECT_TRUE(Contains(global.output, part)) << part << "\n" << global.output;
  }
  // A block a thread that cannot fit in half of it: refused, naming --block-size.
  const auto block =
      RunShell(limited + "train --train " + big + " --order block --block-size 1G --threads 2");
  EXPECT_EQ(block.status, 1) << block.output;
  for (const char* part : {"--block-size 1024 MiB for 2 threads reads 2048 MiB of the file at once",
                           "give a smaller --block-size"}) {
    EXPECT_TRUE(Contains(block.output, part)) << part << "\n" << block.output;
  }
  const auto cd = RunShell(limited + "train --train " + big + " --solver cd");
  EXPECT_EQ(cd.status, 1) << cd.output;
  EXPECT_TRUE(Contains(cd.output, "--solver cd copies every row into columns")) << cd.output;
  const auto held = RunShell(limited + "train --train " + big + " --validation-fraction 0.1");
  EXPECT_EQ(held.status, 1) << held.output;
  EXPECT_TRUE(Contains(held.output, "hold the validation rows out in a file of their own"))
      << held.output;
  // A text training file with a test cache too large: the way through starts with a cache.
  const std::string text = dir_.Write("small.svm", "1 1:1\n0 2:1\n");
  const auto svm = RunShell(limited + "train --train " + text + " --test " + big);
  EXPECT_EQ(svm.status, 1) << svm.output;
  for (const char* part :
       {"big.bin: its rows need 3", "convert ", "small.svm to a binary cache", "--order block"}) {
    EXPECT_TRUE(Contains(svm.output, part)) << part << "\n" << svm.output;
  }
}

// The cache's header gives the model's size too (its features and label set): a model that cannot
// fit is refused before reading, naming the way (fewer hash bits); a smaller one trains.
TEST_F(BlockOrderCli, AModelThatCannotFitIsRefusedFromTheCacheHeader) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory takes more address space than the limit set here";
#endif
  const std::string text =
      dir_.Write("t.txt", "__label__a one two\n__label__b three\n__label__c four five\n");
  const std::string limited = "ulimit -v 2097152 && " + std::string(PARSGD_CLI_PATH) + " ";
  ASSERT_EQ(RunCli("convert " + text + " " + dir_.File("wide.bin") + " --hash-bits 28").status, 0);
  const auto wide =
      RunShell(limited + "train --train " + dir_.File("wide.bin") + " --model softmax");
  EXPECT_EQ(wide.status, 1) << wide.output;
  for (const char* part :
       {"wide.bin: the model of its 268435456 features needs 3072 MiB", "a smaller --hash-bits"}) {
    EXPECT_TRUE(Contains(wide.output, part)) << part << "\n" << wide.output;
  }
  ASSERT_EQ(RunCli("convert " + text + " " + dir_.File("narrow.bin") + " --hash-bits 16").status,
            0);
  const auto narrow = RunShell(limited + "train --train " + dir_.File("narrow.bin") +
                               " --model softmax --epochs 1");
  EXPECT_EQ(narrow.status, 0) << narrow.output;
}

// The file cut short, or written in place, while the run reads it: an error naming it, exit 1.
TEST_F(BlockOrderCli, AFileChangedOrCutShortUnderTheRunIsAnErrorNotGarbage) {
  const std::string copy = dir_.File("copy.bin");
  const std::string bytes = testing::ReadFile(cache_);
  const std::string run = std::string(PARSGD_CLI_PATH) + " train --train " + copy +
                          " --order block --block-size 16K --threads 1 --epochs 100000 ";
  // Started in the background; changed once its first epoch is under way (the file mapped). The
  // log is emptied before the run starts: the background run's own redirection may come after the
  // first look at it, which must not find the line of an earlier run.
  auto under_run = [&](const std::string& change) {
    std::ofstream(copy, std::ios::binary) << bytes;
    const std::string log = dir_.File("run.log");
    return RunShell(": > " + log + "; " + run + " > " + log +
                    " 2>&1 & pid=$!; for i in $(seq 600); do grep -q ' 1/' " + log +
                    " && break; sleep 0.1; done; " + change + "; wait $pid; status=$?; cat " +
                    log + "; exit $status");
  };
  const auto cut = under_run("truncate -s 4096 " + copy);
  EXPECT_EQ(cut.status, 1) << cut.output;
  // Which check sees it first depends on where the run is: a read of a block past the new end, or
  // the file's size checked at the end of an epoch. Either error names the file and the change.
  EXPECT_TRUE(Contains(cut.output, "copy.bin: the file was cut short while it was read") ||
              Contains(cut.output, "copy.bin: changed while the run read it (its size changed"))
      << cut.output;
  const auto written =
      under_run("printf xxxx | dd of=" + copy + " bs=1 seek=100000 conv=notrunc 2>/dev/null");
  EXPECT_EQ(written.status, 1) << written.output;
  EXPECT_TRUE(
      Contains(written.output, "copy.bin: changed while the run read it (it was written to)"))
      << written.output;
}

}  // namespace
}  // namespace parsgd
