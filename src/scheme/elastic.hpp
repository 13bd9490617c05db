// Internal: the elastic scheme's combining step (scheme/replica_runner.hpp): elastic averaging SGD
// (EASGD, Zhang, Choromanska and LeCun, NIPS 2015, its synchronous form). Besides the replicas x_r
// the scheme keeps a centre variable c. Every --period minibatches each replica is pulled toward
// the centre and the centre toward the replicas by the same elastic force, alpha (--elastic-alpha)
// times their difference:
//     d_r = x_r - c;   x_r <- x_r - alpha d_r;   c <- c + alpha sum_r d_r,
// the sum taken in replica order from the differences before the step. Unlike the average, the
// replicas keep their distance (they explore) and only the centre, the run's model, converges;
// alpha W (the paper's beta) below 1 keeps the step stable, and the default alpha is 0.9 / W (the
// paper's beta = 0.9). The optimiser state stays each replica's own.
//
// Each worker steps the coordinates of its equal share of the model, all replicas and the centre
// at once, so the step is deterministic. Every coordinate where a replica moved differs from the
// centre, so each step visits every coordinate: O(model x W) per period, as gossip.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "parsgd/run/training_state.hpp"
#include "parsgd/util/array.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {

class ElasticCombine {
 public:
  static constexpr bool kOwnWeights = true;  // replicas differ at an epoch's end

  // size: the model's parameters; alpha: the elastic force, in (0, 1].
  ElasticCombine(float alpha, uint64_t size) : alpha_(alpha), size_(size) {}

  // At the run's start the replicas are copies of the trainer's model, and so is the centre.
  void Start(const ParamArrays& trainer, int) {
    if (!centre_.empty()) return;
    centre_ = AlignedArray<float>(size_);
    std::memcpy(centre_.data(), trainer.weights, size_ * sizeof(float));
  }

  // Worker w's equal share of the coordinates.
  template <class Local>
  void Combine(Replicas& replicas, const Local&, int w, int workers) {
    const uint64_t begin = SplitAt(size_, w, workers), end = SplitAt(size_, w + 1, workers);
    const int n = replicas.count();
    float* c = centre_.data();
    // The pulls, accumulated in replica order, in blocks.
    constexpr uint64_t kBlock = 512;
    float sum[kBlock];
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t len = std::min(kBlock, end - b);
      for (uint64_t i = 0; i < len; ++i) sum[i] = 0.f;
      for (int r = 0; r < n; ++r) {
        float* x = replicas.data(r, Replicas::kWeights) + b;
        for (uint64_t i = 0; i < len; ++i) {
          const float d = x[i] - c[b + i];
          x[i] -= alpha_ * d;
          sum[i] += d;
        }
      }
      for (uint64_t i = 0; i < len; ++i) c[b + i] += alpha_ * sum[i];
    }
  }

  // The run's model: the centre; the trainer's optimiser state the replicas' mean.
  void Finish(const Replicas& replicas, const ParamArrays& trainer) const {
    std::memcpy(trainer.weights, centre_.data(), size_ * sizeof(float));
    if (trainer.state0) replicas.MeanInto(Replicas::kState0, 0, size_, trainer.state0);
    if (trainer.state1) replicas.MeanInto(Replicas::kState1, 0, size_, trainer.state1);
  }

  // Across ranks, after the ranks combined the trainer's model (the centres): the centre is it.
  void Taken(const ParamArrays& trainer) {
    if (!centre_.empty()) std::memcpy(centre_.data(), trainer.weights, size_ * sizeof(float));
  }

  void Save(TrainingState& s) const {
    if (!centre_.empty()) s.Put("elastic.centre", centre_.span());
  }
  void Load(const TrainingState& s) {
    centre_ = {};
    if (!s.Has("elastic.centre")) return;  // before the first epoch: made at Start
    centre_ = AlignedArray<float>(size_);
    s.Get("elastic.centre", centre_.span());
  }

 private:
  float alpha_;
  uint64_t size_;
  AlignedArray<float> centre_;
};

}  // namespace parsgd
