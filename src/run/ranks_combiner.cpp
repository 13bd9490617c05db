#include "ranks_combiner.hpp"

#include <cstring>
#include <span>
#include <vector>

#include "scheme/outer_rule.hpp"

namespace parsgd {

void RanksCombiner::StartEpoch(Learner& learner) {
  if (outer_.plain() || !anchor_.empty()) return;
  const std::span<const float> weights = learner.RankArrays(false)[0];
  anchor_ = AlignedArray<float>(weights.size());
  std::memcpy(anchor_.data(), weights.data(), weights.size() * sizeof(float));
  if (velocity_.empty() && outer_.kind != OuterKind::kSgd) {
    velocity_ = AlignedArray<float>::Zeroed(weights.size());
  }
}

void RanksCombiner::Combine(Learner& learner, Communicator& comm, bool epoch_end) {
  const bool state = average_state_ || epoch_end;
  const std::vector<std::span<float>> arrays = learner.RankArrays(state);
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const std::span<float> values = arrays[a];
    if (scheme_ == RanksScheme::kGossip && !epoch_end) {
      std::vector<float> left(values.size()), right(values.size());
      comm.ExchangeRing(values, left, right);
      for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = (left[k] + values[k] + right[k]) / 3;
      continue;
    }
    comm.MeanAll(values);
    if (a == 0 && !anchor_.empty()) {  // the weights, under an outer optimiser
      OuterStep(outer_, anchor_.data(), values.data(),
                velocity_.empty() ? nullptr : velocity_.data(), 0, values.size());
      std::memcpy(values.data(), anchor_.data(), values.size() * sizeof(float));
    }
  }
  learner.RanksCombined(state);
}

void RanksCombiner::Save(TrainingState& state) const {
  if (!velocity_.empty()) state.Put("ranks.outer.velocity", velocity_.span());
}

void RanksCombiner::Load(const TrainingState& state) {
  anchor_ = {};
  if (!state.Has("ranks.outer.velocity")) {
    velocity_ = {};
    return;
  }
  velocity_ = AlignedArray<float>(state.arrays().at("ranks.outer.velocity").size());
  state.Get("ranks.outer.velocity", velocity_.span());
}

}  // namespace parsgd
