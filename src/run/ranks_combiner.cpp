#include "ranks_combiner.hpp"

#include <span>

#include "scheme/gossip.hpp"
#include "scheme/rank_group.hpp"

namespace parsgd {

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
