// Internal: the average scheme's combining step (scheme/replica_runner.hpp), model averaging as
// DimmWitted's per-core replicas: every replica replaced by the replicas' mean (centralised: one
// average written back to all). --average-state averages the optimiser state too; without it each
// replica keeps its own. The step is written once over a group of members holding copies of the
// arrays: the replicas of one process (scheme/replicas.hpp), or the ranks of a run
// (scheme/rank_group.hpp, run/ranks_combiner.hpp), which average the same way one level up.
//
// Between two averages a replica changes only at the coordinates its samples touched, and all
// replicas are equal after an average, so averaging the coordinates that changed (the local
// trainer's ForChanged: on sparse data the union of the touched features, plus the bias) is exact
// and costs O(touched), not O(model): a short period stays cheap on sparse data.
//
// --average-rule touched takes each coordinate's mean over the members that moved it since the last
// combination (the members whose value differs from the anchor below; a coordinate none moved keeps
// its value): a feature only one replica saw keeps that replica's step whole instead of 1/R of it.
// --average-rule sum takes the anchor plus the sum of the members' changes, a + R (mean - a): every
// sample's step counts whole, as in one worker's run (the plain mean takes 1/R of each). Both keep
// the anchor as the outer rule does, and compose with it (the outer rule's pull is then from the
// rule's value). The optimiser state, where it is averaged, takes the plain mean.
//
// With an outer optimiser (--outer-optimizer; the source texts' "updater at the parameter-server
// level") the step keeps the model of the last combination, the anchor a, and moves it by the
// outer rule (scheme/outer_rule.hpp) from the members' mean; then every member takes a. Outer sgd
// with rate 1 is the plain average: that case runs the plain average's code, so it gives its bytes.
// Outer sgd moves a only where d is not zero, the changed coordinates; an outer velocity keeps
// moving coordinates no replica touched, so outer momentum and nesterov combine every coordinate,
// O(model) per period. The optimiser state, when it is combined, is averaged as without an outer
// rule.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/run/training_state.hpp"
#include "parsgd/util/array.hpp"
#include "scheme/outer_rule.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {

class AverageCombine {
 public:
  static constexpr bool kOwnWeights = false;  // every replica holds the average at an epoch's end

  // size: the model's parameters. `prefix`: the names its state takes in a checkpoint.
  AverageCombine(bool average_state, const OuterConfig& outer, AverageRule rule, uint64_t size,
                 std::string prefix = "")
      : average_state_(average_state),
        outer_(outer),
        rule_(rule),
        size_(size),
        prefix_(std::move(prefix)) {
    if (outer_.kind != OuterKind::kSgd) velocity_ = AlignedArray<float>::Zeroed(size);
  }

  // Before an epoch: the anchor of the outer rule is the members' common model (`weights`).
  void Start(const float* weights) {
    if (!anchored() || !anchor_.empty()) return;
    // The members equal the trainer's model at the start of an epoch, so the anchor is a copy of
    // it (which is why a checkpoint need not keep it).
    anchor_ = AlignedArray<float>(size_);
    std::memcpy(anchor_.data(), weights, size_ * sizeof(float));
    mean_ = AlignedArray<float>(size_);
  }
  void Start(const ParamArrays& trainer, int) { Start(trainer.weights); }
  // Across ranks, after the ranks combined: the members (this process's replicas) took the ranks'
  // model, which is the new anchor.
  void Taken(const ParamArrays& trainer) {
    if (!anchor_.empty()) std::memcpy(anchor_.data(), trainer.weights, size_ * sizeof(float));
  }

  // The step on coordinates [begin, end) of `group`'s members, the optimiser state too where
  // `with_state`.
  template <class Group>
  void CombineRange(Group& group, uint64_t begin, uint64_t end, bool with_state) {
    if (!anchored()) {
      group.AverageAll(begin, end, with_state);
      return;
    }
    // The rule's value, straight into the anchor where no outer rule steps from it.
    float* value = outer_.plain() ? anchor_.data() : mean_.data();
    if (rule_ == AverageRule::kTouched) {
      group.TouchedMeanInto(Replicas::kWeights, begin, end, anchor_.data(), value);
    } else {
      group.MeanInto(Replicas::kWeights, begin, end, mean_.data());
    }
    if (rule_ == AverageRule::kSum) {
      const float members = static_cast<float>(group.count());
      for (uint64_t i = begin; i < end; ++i) {
        value[i] = anchor_[i] + members * (mean_[i] - anchor_[i]);
      }
    } else if (rule_ == AverageRule::kMean && outer_.plain()) {
      std::memcpy(anchor_.data() + begin, mean_.data() + begin, (end - begin) * sizeof(float));
    }
    if (!outer_.plain()) {
      OuterStep(outer_, anchor_.data(), mean_.data(),
                velocity_.empty() ? nullptr : velocity_.data(), begin, end);
    }
    group.Assign(Replicas::kWeights, begin, end, anchor_.data());
    if (!with_state) return;
    if (group.has(Replicas::kState0)) group.Average(Replicas::kState0, begin, end);
    if (group.has(Replicas::kState1)) group.Average(Replicas::kState1, begin, end);
  }

  // Worker w's share of the replicas' step: the coordinates that changed, or every coordinate
  // under an outer velocity.
  template <class Local>
  void Combine(Replicas& replicas, const Local& local, int w, int workers) {
    if (outer_.plain() || outer_.kind == OuterKind::kSgd) {
      local.ForChanged(w, workers, [&](uint64_t b, uint64_t e) {
        CombineRange(replicas, b, e, average_state_);
      });
    } else {
      const uint64_t n = replicas.size();
      CombineRange(replicas, SplitAt(n, w, workers), SplitAt(n, w + 1, workers), average_state_);
    }
  }

  void Finish(const Replicas& replicas, const ParamArrays& trainer) const {
    replicas.CopyTo(trainer);
  }

  void Save(TrainingState& s) const {
    if (!velocity_.empty()) s.Put(prefix_ + "outer.velocity", velocity_.span());
  }
  void Load(const TrainingState& s) {
    anchor_ = {};  // remade from the trainer's restored model at the next epoch
    if (velocity_.empty()) return;
    // A run stopped before its first combination has none yet.
    if (s.Has(prefix_ + "outer.velocity")) {
      s.Get(prefix_ + "outer.velocity", velocity_.span());
    } else {
      velocity_ = AlignedArray<float>::Zeroed(size_);
    }
  }

 private:
  // Whether the step keeps the anchor: an outer rule, or a rule other than the mean (both read it).
  bool anchored() const { return !outer_.plain() || rule_ != AverageRule::kMean; }

  bool average_state_;
  OuterConfig outer_;
  AverageRule rule_;
  uint64_t size_;
  std::string prefix_;
  AlignedArray<float> anchor_, mean_, velocity_;
};

}  // namespace parsgd
