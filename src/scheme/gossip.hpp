// Internal: the gossip scheme's combining step (scheme/replica_runner.hpp): decentralised averaging
// (the source texts' "decentralised synchronisation"; D-PSGD, Lian et al. 2017). Replica r is
// replaced by the mix of itself and its ring neighbours r - 1 and r + 1 (mod W), a third each:
// x_r <- (x_{r-1} + x_r + x_{r+1}) / 3, with that order of the additions. With two workers both
// neighbours are the other replica (x_r <- (x_o + x_r + x_o) / 3); with one the step changes
// nothing. No global average is taken: the replicas differ between and after the steps, and the
// model the run reports (and saves) is their mean, taken at each epoch's end. --average-state mixes
// the optimiser state the same way.
//
// Every replica's new values at a coordinate are computed from the old values of all of them, by
// the one worker that owns the coordinate's range, so the step is deterministic and needs no
// second copy of the model. The replicas differ wherever any of them ever moved, so each step mixes
// every coordinate: O(model x W) per period, on sparse models too (use a longer --period there).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "parsgd/run/training_state.hpp"
#include "replicas.hpp"

namespace parsgd {

class GossipCombine {
 public:
  static constexpr bool kOwnWeights = true;  // replicas differ at an epoch's end

  explicit GossipCombine(bool mix_state) : mix_state_(mix_state) {}

  void Start(const ParamArrays&, int workers) { scratch_.resize(workers); }

  template <class Local>
  void Combine(Replicas& replicas, const Local&, int w, int workers) {
    const uint64_t begin = SplitAt(replicas.size(), w, workers);
    const uint64_t end = SplitAt(replicas.size(), w + 1, workers);
    Mix(replicas, Replicas::kWeights, begin, end, scratch_[w]);
    if (!mix_state_) return;
    if (replicas.has(Replicas::kState0)) Mix(replicas, Replicas::kState0, begin, end, scratch_[w]);
    if (replicas.has(Replicas::kState1)) Mix(replicas, Replicas::kState1, begin, end, scratch_[w]);
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
  // The ring mix of array `a` on coordinates [begin, end), in blocks: each block of every replica
  // is copied out first, so the new values are computed from the old ones only.
  static void Mix(Replicas& replicas, Replicas::Array a, uint64_t begin, uint64_t end,
                  std::vector<float>& scratch) {
    const int n = replicas.count();
    if (n == 1) return;
    constexpr uint64_t kBlock = 512;
    scratch.resize(static_cast<std::size_t>(n) * kBlock);
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t len = std::min(kBlock, end - b);
      for (int r = 0; r < n; ++r)
        std::copy_n(replicas.data(r, a) + b, len, scratch.data() + r * kBlock);
      for (int r = 0; r < n; ++r) {
        const float* left = scratch.data() + ((r + n - 1) % n) * kBlock;
        const float* self = scratch.data() + r * kBlock;
        const float* right = scratch.data() + ((r + 1) % n) * kBlock;
        float* out = replicas.data(r, a) + b;
        for (uint64_t i = 0; i < len; ++i) out[i] = (left[i] + self[i] + right[i]) / 3.f;
      }
    }
  }

  bool mix_state_;
  std::vector<std::vector<float>> scratch_;  // per worker
};

}  // namespace parsgd
