// Internal: the average scheme's combining step (scheme/replica_runner.hpp), model averaging as
// DimmWitted's per-core replicas: every replica replaced by the replicas' mean (centralised: one
// average written back to all). --average-state averages the optimiser state too; without it each
// replica keeps its own.
//
// Between two averages a replica changes only at the coordinates its samples touched, and all
// replicas are equal after an average, so averaging the coordinates that changed (the local
// trainer's ForChanged: on sparse data the union of the touched features, plus the bias) is exact
// and costs O(touched), not O(model): a short period stays cheap on sparse data.
//
// With an outer optimiser (--outer-optimizer; the source texts' "updater at the parameter-server
// level") the step keeps the model of the last combination, the anchor a, and moves it by the
// outer rule (scheme/outer_rule.hpp) from the replicas' mean; then every replica takes a. Outer sgd
// with rate 1 is the plain average: that case runs the plain average's code, so it gives its bytes.
// Outer sgd moves a only where d is not zero, the changed coordinates; an outer velocity keeps
// moving coordinates no replica touched, so outer momentum and nesterov combine every coordinate,
// O(model) per period. The optimiser state, with --average-state, is averaged as without an outer
// rule.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "outer_rule.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/run/training_state.hpp"
#include "parsgd/util/array.hpp"
#include "replicas.hpp"

namespace parsgd {

class AverageCombine {
 public:
  static constexpr bool kOwnWeights = false;  // every replica holds the average at an epoch's end

  // size: the model's parameters.
  AverageCombine(bool average_state, const OuterConfig& outer, uint64_t size)
      : average_state_(average_state), outer_(outer), size_(size) {
    if (outer_.kind != OuterKind::kSgd) velocity_ = AlignedArray<float>::Zeroed(size);
  }

  void Start(const ParamArrays& trainer, int) {
    if (outer_.plain() || !anchor_.empty()) return;
    // The replicas equal the trainer's model at the start of an epoch, so the anchor is a copy of
    // it (which is why a checkpoint need not keep it).
    anchor_ = AlignedArray<float>(size_);
    std::memcpy(anchor_.data(), trainer.weights, size_ * sizeof(float));
    mean_ = AlignedArray<float>(size_);
  }

  template <class Local>
  void Combine(Replicas& replicas, const Local& local, int w, int workers) {
    if (outer_.plain()) {
      local.ForChanged(w, workers,
                       [&](uint64_t b, uint64_t e) { replicas.AverageAll(b, e, average_state_); });
    } else if (outer_.kind == OuterKind::kSgd) {
      local.ForChanged(w, workers, [&](uint64_t b, uint64_t e) { OuterRange(replicas, b, e); });
    } else {
      const uint64_t n = replicas.size();
      OuterRange(replicas, SplitAt(n, w, workers), SplitAt(n, w + 1, workers));
    }
  }

  void Finish(const Replicas& replicas, const ParamArrays& trainer) const {
    replicas.CopyTo(trainer);
  }

  void Save(TrainingState& s) const {
    if (!velocity_.empty()) s.Put("outer.velocity", velocity_.span());
  }
  void Load(const TrainingState& s) {
    anchor_ = {};  // remade from the trainer's restored model at the next epoch
    if (!velocity_.empty()) s.Get("outer.velocity", velocity_.span());
  }

 private:
  // The outer step on coordinates [begin, end): the anchor moves, every replica takes it.
  void OuterRange(Replicas& replicas, uint64_t begin, uint64_t end) {
    replicas.MeanInto(Replicas::kWeights, begin, end, mean_.data());
    float* a = anchor_.data();
    OuterStep(outer_, a, mean_.data(), velocity_.empty() ? nullptr : velocity_.data(), begin, end);
    for (int r = 0; r < replicas.count(); ++r) {
      std::memcpy(replicas.data(r, Replicas::kWeights) + begin, a + begin,
                  (end - begin) * sizeof(float));
    }
    if (!average_state_) return;
    if (replicas.has(Replicas::kState0)) replicas.Average(Replicas::kState0, begin, end);
    if (replicas.has(Replicas::kState1)) replicas.Average(Replicas::kState1, begin, end);
  }

  bool average_state_;
  OuterConfig outer_;
  uint64_t size_;
  AlignedArray<float> anchor_, mean_, velocity_;
};

}  // namespace parsgd
