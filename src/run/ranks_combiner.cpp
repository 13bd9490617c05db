#include "ranks_combiner.hpp"

#include <span>
#include <vector>

#include "scheme/gossip.hpp"
#include "scheme/rank_group.hpp"

namespace parsgd {

void SumOverRanks(EpochTotals& totals, Communicator& ranks) {
  std::vector<double> loss = {totals.loss_sum};
  ranks.SumAll(loss);
  totals.loss_sum = loss[0];
  totals.updates = ranks.Sum(totals.updates);
  totals.partial = ranks.Max(totals.partial ? 1 : 0) != 0;
}

void RanksCombiner::StartEpoch(Learner& learner) {
  average_.Start(learner.RankArrays(false)[0].data());
}

void RanksCombiner::Combine(Learner& learner, Communicator& comm, bool epoch_end) {
  const bool state = average_state_ || epoch_end;
  RankGroup group(comm, learner.RankArrays(state));
  const uint64_t n = learner.RankArrays(false)[0].size();
  if (scheme_ == RanksScheme::kGossip && !epoch_end) {
    GossipCombine::CombineRange(group, 0, n, state, scratch_);
  } else {
    average_.CombineRange(group, 0, n, state);
  }
  learner.RanksCombined(state);
}

}  // namespace parsgd
