// Internal: the ranks of a run as a group the combining steps of the replica schemes combine
// (scheme/average.hpp, scheme/gossip.hpp), the way they combine the replicas of one process
// (scheme/replicas.hpp): the same steps, one level up. Each rank holds its own copy of the arrays
// (the parameters and the optimiser state, Learner::RankArrays); every call is collective, made
// by every rank with the same ranges. The ranks' mean is taken in double (Communicator::MeanAll:
// every rank gets the same bits); the replicas' in float, in replica order.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {

class RankGroup {
 public:
  using Array = Replicas::Array;

  // arrays: this rank's weights, then the optimiser state arrays it combines (none, state0, or
  // state0 and state1), as Learner::RankArrays gives them.
  RankGroup(Communicator& comm, std::vector<std::span<float>> arrays)
      : comm_(comm), arrays_(std::move(arrays)) {}

  int count() const { return comm_.size(); }
  bool has(Array a) const { return static_cast<std::size_t>(a) < arrays_.size(); }

  // Every rank's coordinates [begin, end) of array `a` replaced by the ranks' mean.
  void Average(Array a, uint64_t begin, uint64_t end) {
    comm_.MeanAll(arrays_[a].subspan(begin, end - begin));
  }
  void AverageAll(uint64_t begin, uint64_t end, bool with_state) {
    Average(Replicas::kWeights, begin, end);
    if (!with_state) return;
    if (has(Replicas::kState0)) Average(Replicas::kState0, begin, end);
    if (has(Replicas::kState1)) Average(Replicas::kState1, begin, end);
  }
  // The ranks' mean of coordinates [begin, end) of array `a` into out[begin, end).
  void MeanInto(Array a, uint64_t begin, uint64_t end, float* out) {
    std::memcpy(out + begin, arrays_[a].data() + begin, (end - begin) * sizeof(float));
    comm_.MeanAll(std::span<float>(out + begin, end - begin));
  }
  // The touched rule's mean (Replicas::TouchedMeanInto) over the ranks: each coordinate's mean
  // over the ranks whose value differs from anchor[i] (the same on every rank), in double;
  // anchor[i] where none does.
  void TouchedMeanInto(Array a, uint64_t begin, uint64_t end, const float* anchor, float* out) {
    const uint64_t n = end - begin;
    const float* mine = arrays_[a].data();
    std::vector<double> sums(2 * n, 0.0);  // the moved values' sums, then the counts
    for (uint64_t k = 0; k < n; ++k) {
      if (mine[begin + k] != anchor[begin + k]) {
        sums[k] = mine[begin + k];
        sums[n + k] = 1;
      }
    }
    comm_.SumAll(std::span<double>(sums));
    for (uint64_t k = 0; k < n; ++k) {
      out[begin + k] =
          sums[n + k] == 0 ? anchor[begin + k] : static_cast<float>(sums[k] / sums[n + k]);
    }
  }
  // This rank's coordinates [begin, end) of array `a` set to values[begin, end) (every rank
  // passes the same values).
  void Assign(Array a, uint64_t begin, uint64_t end, const float* values) {
    std::memcpy(arrays_[a].data() + begin, values + begin, (end - begin) * sizeof(float));
  }
  // The ring mix (RingMix) of coordinates [begin, end) of array `a` with the neighbouring ranks'.
  void MixRing(Array a, uint64_t begin, uint64_t end, std::vector<float>& scratch) {
    const std::span<float> mine = arrays_[a].subspan(begin, end - begin);
    scratch.resize(2 * mine.size());
    const std::span<float> left(scratch.data(), mine.size());
    const std::span<float> right(scratch.data() + mine.size(), mine.size());
    comm_.ExchangeRing(mine, left, right);
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = RingMix(left[k], mine[k], right[k]);
  }

 private:
  Communicator& comm_;
  std::vector<std::span<float>> arrays_;
};

}  // namespace parsgd
