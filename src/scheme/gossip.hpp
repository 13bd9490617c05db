// Internal: the gossip scheme's combining step (scheme/replica_runner.hpp): decentralised averaging
// (the source texts' "decentralised synchronisation"; D-PSGD, Lian et al. 2017). Member r is
// replaced by the mix of itself and its ring neighbours r - 1 and r + 1 (mod W), a third each:
// x_r <- (x_{r-1} + x_r + x_{r+1}) / 3, with that order of the additions (RingMix,
// scheme/replicas.hpp). With two members both neighbours are the other one; with one the step
// changes nothing. No global average is taken: the replicas differ between and after the steps,
// and the model the run reports (and saves) is their mean, taken at each epoch's end.
// --average-state mixes the optimiser state the same way. Written once over a group: the replicas
// of one process, or the ranks of a run (scheme/rank_group.hpp).
//
// Every replica's new values at a coordinate are computed from the old values of all of them, by
// the one worker that owns the coordinate's range, so the step is deterministic and needs no
// second copy of the model. The replicas differ wherever any of them ever moved, so each step mixes
// every coordinate: O(model x W) per period, on sparse models too (use a longer --period there).
#pragma once

#include <cstdint>
#include <vector>

#include "parsgd/run/training_state.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {

class GossipCombine {
 public:
  static constexpr bool kOwnWeights = true;  // replicas differ at an epoch's end

  explicit GossipCombine(bool mix_state) : mix_state_(mix_state) {}

  void Start(const ParamArrays&, int workers) { scratch_.resize(workers); }

  // The step on coordinates [begin, end) of `group`'s members, the optimiser state too where
  // `with_state`; `scratch`: the caller's buffer.
  template <class Group>
  static void CombineRange(Group& group, uint64_t begin, uint64_t end, bool with_state,
                           std::vector<float>& scratch) {
    group.MixRing(Replicas::kWeights, begin, end, scratch);
    if (!with_state) return;
    if (group.has(Replicas::kState0)) group.MixRing(Replicas::kState0, begin, end, scratch);
    if (group.has(Replicas::kState1)) group.MixRing(Replicas::kState1, begin, end, scratch);
  }

  // Worker w's equal share of the coordinates.
  template <class Local>
  void Combine(Replicas& replicas, const Local&, int w, int workers) {
    const uint64_t n = replicas.size();
    CombineRange(replicas, SplitAt(n, w, workers), SplitAt(n, w + 1, workers), mix_state_,
                 scratch_[w]);
  }

  // The run's model: the replicas' mean (weights, and the state the trainer keeps).
  void Finish(const Replicas& replicas, const ParamArrays& trainer) const {
    const uint64_t n = replicas.size();
    replicas.MeanInto(Replicas::kWeights, 0, n, trainer.weights);
    if (trainer.state0) replicas.MeanInto(Replicas::kState0, 0, n, trainer.state0);
    if (trainer.state1) replicas.MeanInto(Replicas::kState1, 0, n, trainer.state1);
  }

  void Save(TrainingState&) const {}
  void Load(const TrainingState&) {}

 private:
  bool mix_state_;
  std::vector<std::vector<float>> scratch_;  // per worker
};

}  // namespace parsgd
