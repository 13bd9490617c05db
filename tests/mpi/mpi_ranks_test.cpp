// The MPI suite, run by ctest as `mpirun -np N parsgd_mpi_tests` (N = 2, 3): every rank runs
// every test in the same order, its collectives meeting the other ranks' through MPI's world.
// Each rank writes the same files into its own folder (as ranks on other hosts would have their
// own copies). Only EXPECT_ (never ASSERT_) before a collective: a rank that left a test early
// would leave the others waiting.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parsgd/comm/process.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

Communicator* world = nullptr;

TEST(MpiWorld, SumsMaximaBroadcastsAndAgreesOnTheFirstError) {
  Communicator& comm = *world;
  EXPECT_EQ(comm.size(), LaunchedRanks());
  const int r = comm.rank(), n = comm.size();
  std::vector<double> d = {1.0 * r, 0.25};
  comm.SumAll(d);
  EXPECT_EQ(d[0], n * (n - 1) / 2.0);
  EXPECT_EQ(d[1], 0.25 * n);
  EXPECT_EQ(comm.Max(static_cast<uint64_t>(100 + r)), static_cast<uint64_t>(99 + n));
  const std::vector<uint64_t> all = comm.Gather(static_cast<uint64_t>(r * 10));
  for (int k = 0; k < n; ++k) EXPECT_EQ(all[k], static_cast<uint64_t>(k * 10));
  std::string word = r == n - 1 ? "last" : "????";
  comm.Broadcast(std::as_writable_bytes(std::span<char>(word.data(), word.size())), n - 1);
  EXPECT_EQ(word, "last");
  const std::vector<float> mine = {1.f * r, 3.f * r};
  std::vector<float> left(2), right(2);
  comm.ExchangeRing(mine, left, right);
  EXPECT_EQ(left, (std::vector<float>{1.f * ((r + n - 1) % n), 3.f * ((r + n - 1) % n)}));
  EXPECT_EQ(right, (std::vector<float>{1.f * ((r + 1) % n), 3.f * ((r + 1) % n)}));
  std::string error;
  try {
    comm.AgreeOn([&] {
      if (r >= 1) throw Error("rank " + std::to_string(r) + " failed");
    });
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "rank 1 failed");
}

// This rank's rows against the whole file's, from the row the ranks before it hold on.
void ExpectShareOfWhole(const Dataset& share, const Dataset& whole, Communicator& comm) {
  const std::vector<uint64_t> rows = comm.Gather(share.rows());
  uint64_t first = 0, total = 0;
  for (int k = 0; k < comm.size(); ++k) {
    if (k < comm.rank()) first += rows[k];
    total += rows[k];
  }
  EXPECT_EQ(total, whole.rows());
  EXPECT_EQ(share.features(), whole.features());
  EXPECT_EQ(share.zero_based(), whole.zero_based());
  for (uint64_t i = 0; i < share.rows() && first + i < whole.rows(); ++i) {
    EXPECT_EQ(share.label(i), whole.label(first + i));
    const SparseRow a = share.row(i), b = whole.row(first + i);
    EXPECT_EQ(a.nnz, b.nnz);
    for (uint32_t e = 0; e < std::min(a.nnz, b.nnz); ++e) {
      EXPECT_EQ(a.index[e], b.index[e]);
      EXPECT_EQ(a.value[e], b.value[e]);
    }
  }
}

TEST(MpiShards, LibsvmAndBinarySharesAreTheFileInOrder) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 1001; ++i) {
    text.append(i % 3 ? "+1" : "-1");
    for (int j = 0; j < 1 + i % 4; ++j)
      text.append(" ").append(std::to_string(j * 9 + i % 8)).append(":0.5");
    text.append(i % 97 == 3 ? "\n\n# comment\n" : "\n");
  }
  const std::string path = dir.Write("d.svm", text);  // index 0 appears: zero-based, agreed
  const Dataset whole = ReadLibsvm(path);
  ExpectShareOfWhole(LoadShard(path, {}, *world), whole, *world);
  const std::string bin = dir.File("d.bin");
  WriteBinaryCache(whole, bin);
  ExpectShareOfWhole(LoadShard(bin, {}, *world), whole, *world);
}

// fastText text by byte range: the class names are every share's ("Early", first of them, is
// on the last line only), so each rank numbers the labels as the whole file does.
TEST(MpiShards, FasttextSharesNameTheClassesOfTheWholeFile) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 1001; ++i) {
    text.append("__label__").append(i == 1000 ? "Early" : i % 3 ? "yes" : "no");
    text.append(" w").append(std::to_string(i % 13)).append(" v").append(std::to_string(i % 4));
    text.append("\n");
  }
  const std::string path = dir.Write("d.ft", text);
  LoadOptions options;
  options.format = DataFormat::kFasttext;
  const Dataset whole = LoadDataset(path, options);
  const Dataset share = LoadShard(path, options, *world);
  EXPECT_EQ(share.class_names(), whole.class_names());
  ExpectShareOfWhole(share, whole, *world);
}

TEST(MpiShards, AFaultOnOneRankEndsEveryRankWithItsMessage) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 400; ++i) text.append(i == 350 ? "1 2:oops\n" : "1 1:1 2:2\n");
  const std::string bad = dir.Write("bad.svm", text);
  std::string error;
  try {
    LoadShard(bad, {}, *world);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_TRUE(testing::Contains(error, "bad.svm:351:")) << error;
  // The file is missing on rank 1 only.
  const std::string good = dir.Write("good.svm", "1 1:1\n-1 2:1\n1 3:1\n-1 4:1\n");
  const std::string path = world->rank() == 1 ? dir.File("missing.svm") : good;
  error.clear();
  try {
    LoadShard(path, {}, *world);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_TRUE(testing::Contains(error, "missing.svm: cannot open")) << error;
}

}  // namespace
}  // namespace parsgd

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::shared_ptr<parsgd::Communicator> comm = parsgd::ProcessCommunicator();
  parsgd::world = comm.get();
  if (comm->size() < 2) {
    std::fprintf(stderr, "parsgd_mpi_tests: run it on 2 or more ranks (mpirun -np 2 %s)\n",
                 argv[0]);
    return 2;
  }
  if (comm->rank() != 0) {  // one report: rank 0's (a failure elsewhere still fails the run)
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  const bool any = comm->Max(failed != 0 ? 1 : 0) != 0;
  if (failed != 0) std::fprintf(stderr, "rank %d: tests failed\n", comm->rank());
  comm.reset();  // MPI_Finalize
  return any ? 1 : 0;
}
