#include "parsgd/order/sample_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_support.hpp"

namespace parsgd {
namespace {

std::vector<std::vector<uint32_t>> AllWorkers(SampleOrder& order, uint64_t epoch) {
  order.PrepareEpoch(epoch);
  std::vector<std::vector<uint32_t>> out;
  for (int w = 0; w < order.workers(); ++w) {
    std::vector<uint32_t> scratch;
    auto span = order.Indices(epoch, w, scratch);
    out.emplace_back(span.begin(), span.end());
  }
  return out;
}

std::vector<uint32_t> Iota(uint64_t begin, uint64_t end) {
  std::vector<uint32_t> v(end - begin);
  std::iota(v.begin(), v.end(), static_cast<uint32_t>(begin));
  return v;
}

class EveryOrder : public ::testing::TestWithParam<std::tuple<OrderKind, int>> {};

TEST_P(EveryOrder, WorkersVisitShardSizesSummingToRows) {
  auto [kind, workers] = GetParam();
  for (uint64_t rows : {1ull, 7ull, 100ull, 1001ull}) {
    SampleOrder order(kind, rows, workers, 3);
    auto all = AllWorkers(order, 0);
    uint64_t total = 0;
    for (int w = 0; w < workers; ++w) {
      EXPECT_EQ(all[w].size(), order.ShardSize(w));
      total += all[w].size();
      for (uint32_t i : all[w]) EXPECT_LT(i, rows);
    }
    EXPECT_EQ(total, rows);
  }
}

TEST_P(EveryOrder, IsAPureFunctionOfSeedEpochWorkerAndWorkers) {
  auto [kind, workers] = GetParam();
  SampleOrder a(kind, 500, workers, 11), b(kind, 500, workers, 11);
  b.PrepareEpoch(7);  // a different history must not matter
  EXPECT_EQ(AllWorkers(a, 2), AllWorkers(b, 2));
  EXPECT_EQ(AllWorkers(a, 5), AllWorkers(b, 5));
}

TEST_P(EveryOrder, ShardSizesDifferByAtMostOne) {
  auto [kind, workers] = GetParam();
  SampleOrder order(kind, 1003, workers, 1);
  uint64_t lo = ~0ull, hi = 0;
  for (int w = 0; w < workers; ++w) {
    lo = std::min(lo, order.ShardSize(w));
    hi = std::max(hi, order.ShardSize(w));
  }
  EXPECT_LE(hi - lo, 1u);
}

INSTANTIATE_TEST_SUITE_P(SampleOrder, EveryOrder,
                         ::testing::Combine(::testing::Values(OrderKind::kRandom,
                                                              OrderKind::kGlobal, OrderKind::kLocal,
                                                              OrderKind::kSequential),
                                            ::testing::Values(1, 2, 3, 8)),
    testing::ParamName());

TEST(SampleOrder, GlobalShuffleVisitsEachIndexOnce) {
  for (int workers : {1, 2, 5}) {
    SampleOrder order(OrderKind::kGlobal, 1000, workers, 9);
    for (uint64_t epoch : {0, 1, 2}) {
      auto all = AllWorkers(order, epoch);
      std::vector<uint32_t> seen;
      for (auto& part : all) seen.insert(seen.end(), part.begin(), part.end());
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, Iota(0, 1000));
    }
  }
}

TEST(SampleOrder, GlobalShuffleChangesEveryEpochAndMovesRowsBetweenShards) {
  SampleOrder order(OrderKind::kGlobal, 1000, 2, 9);
  auto e0 = AllWorkers(order, 0);
  auto e1 = AllWorkers(order, 1);
  EXPECT_NE(e0, e1);
  std::sort(e0[0].begin(), e0[0].end());
  std::sort(e1[0].begin(), e1[0].end());
  EXPECT_NE(e0[0], e1[0]);  // worker 0 sees a different set of rows
}

TEST(SampleOrder, LocalShuffleKeepsEachWorkerOnItsShard) {
  SampleOrder order(OrderKind::kLocal, 1000, 3, 9);
  std::vector<uint32_t> previous;
  for (uint64_t epoch : {0, 1, 2}) {
    auto all = AllWorkers(order, epoch);
    for (int w = 0; w < 3; ++w) {
      auto sorted = all[w];
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, Iota(order.ShardBegin(w), order.ShardBegin(w + 1)));
    }
    EXPECT_NE(all[0], Iota(order.ShardBegin(0), order.ShardBegin(1)));  // shuffled
    EXPECT_NE(all[0], previous);                                        // reshuffled
    previous = all[0];
  }
}

TEST(SampleOrder, SequentialIsFileOrderInContiguousShards) {
  SampleOrder order(OrderKind::kSequential, 10, 3, 9);
  auto all = AllWorkers(order, 4);
  EXPECT_EQ(all[0], Iota(0, 3));
  EXPECT_EQ(all[1], Iota(3, 6));
  EXPECT_EQ(all[2], Iota(6, 10));
}

TEST(SampleOrder, RandomDrawsWithReplacementFromAllRows) {
  SampleOrder order(OrderKind::kRandom, 100, 2, 9);
  auto e0 = AllWorkers(order, 0);
  auto e1 = AllWorkers(order, 1);
  EXPECT_NE(e0[0], e1[0]);
  EXPECT_NE(e0[0], e0[1]);
  // 100 draws from 100 rows: some row repeats (probability 1 - 100!/100^100) and worker 0 reaches
  // beyond its own half.
  std::vector<uint32_t> both = e0[0];
  both.insert(both.end(), e0[1].begin(), e0[1].end());
  std::sort(both.begin(), both.end());
  EXPECT_NE(std::adjacent_find(both.begin(), both.end()), both.end());
  EXPECT_GE(*std::max_element(e0[0].begin(), e0[0].end()), 50u);
}

TEST(SampleOrder, RandomDrawsAreUniform) {
  const uint64_t rows = 10, draws_per_epoch = rows;
  std::vector<int> counts(rows, 0);
  SampleOrder order(OrderKind::kRandom, rows, 1, 5);
  const int epochs = 20000;
  for (int e = 0; e < epochs; ++e) {
    const auto all = AllWorkers(order, e);
    for (uint32_t i : all[0]) ++counts[i];
  }
  // Each row expects 20000 draws, standard deviation ~134; 6 sigma bounds chance away.
  for (int c : counts) EXPECT_NEAR(c, epochs * draws_per_epoch / rows, 800);
}

TEST(SampleOrder, ShuffleIsAPermutationAndDependsOnTheSeed) {
  std::vector<uint32_t> a = Iota(0, 64), b = Iota(0, 64);
  Shuffle(a, 1);
  Shuffle(b, 2);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, Iota(0, 64));
}

}  // namespace
}  // namespace parsgd
