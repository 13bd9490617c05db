// Training across ranks in the tests: threads stand in for the ranks (testing::RunRanks), each
// trains its share of the rows, as LoadShard cuts a binary cache.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd::testing {

// Rank comm.rank()'s share of `whole`.
inline Dataset ShareOf(const Dataset& whole, const Communicator& comm) {
  const auto [first, last] = ShardRange(whole.rows(), comm.rank(), comm.size());
  return RowRange(whole, first, last);
}

// What a rank kept of its run: each epoch's report and what `keep` took from the trainer after it.
template <class Kept>
struct RankRun {
  std::vector<EpochReport> reports;
  std::vector<Kept> kept;  // after each epoch
};

// `epochs` epochs of `config` on `ranks` ranks, each on its share, keep(trainer) after each epoch;
// `resume`: a snapshot every rank restores first; `snapshots`: every rank's at the end. Any rank's
// error fails the test.
template <class Keep>
auto TrainRanks(int ranks, const TrainConfig& config, const Dataset& whole, int epochs, Keep keep,
                const TrainingState* resume = nullptr,
                std::vector<TrainingState>* snapshots = nullptr) {
  using Kept = decltype(keep(std::declval<const Trainer&>()));
  std::vector<RankRun<Kept>> runs(ranks);
  if (snapshots != nullptr) snapshots->assign(ranks, {});
  const std::vector<std::string> errors = RunRanks(ranks, [&](Communicator& comm) {
    const Dataset share = ShareOf(whole, comm);
    auto executor = MakeTbbExecutor(config.threads);
    Trainer trainer(OnlyApplied(config, ranks), share, nullptr, *executor, &comm);
    if (resume != nullptr) trainer.Restore(*resume);
    RankRun<Kept>& run = runs[comm.rank()];
    while (trainer.epochs_done() < epochs) {
      run.reports.push_back(trainer.RunEpoch());
      run.kept.push_back(keep(static_cast<const Trainer&>(trainer)));
    }
    if (snapshots != nullptr) (*snapshots)[comm.rank()] = trainer.Snapshot();
  });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  return runs;
}

}  // namespace parsgd::testing
