// Internal: how the ranks of a run combine their models between two parts of an epoch and at its
// end (--ranks-scheme average and gossip; under sync the ranks sum every step's gradient inside the
// sync scheme instead, scheme/sync_runner.hpp, and their models never differ). The ranks are one
// more level of the replica schemes: the same combining steps (scheme/average.hpp,
// scheme/gossip.hpp) over the ranks' group (scheme/rank_group.hpp) instead of a process's replicas.
//  - average: every rank's model (with --average-state its optimiser state) replaced by the ranks'
//    mean; with an outer optimiser (--outer-optimizer, scheme/outer_rule.hpp) the mean is the
//    outer rule's pull on the model of the last combination, the anchor, and every rank takes the
//    moved anchor.
//  - gossip: each rank's model replaced by the mix of itself and its ring neighbours, a third each.
// At an epoch's end, under either, the model and the optimiser state are replaced by the ranks'
// mean (after the outer step where there is one), so that every rank ends each epoch in the same
// state (the one a checkpoint holds; for gossip the periodic global average of Chen et al.,
// "Accelerating Gossip SGD with Periodic Global Averaging", 2021). After each combination the
// learner's runner takes the combined model up (its replicas, where it has them).
#pragma once

#include <cstdint>
#include <vector>

#include "model/learner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"
#include "scheme/average.hpp"

namespace parsgd {

// An epoch's totals summed over the ranks (loss, updates; partial where any rank's was). Collective.
void SumOverRanks(EpochTotals& totals, Communicator& ranks);

class RanksCombiner {
 public:
  // `size`: the model's parameters.
  RanksCombiner(const TrainConfig& config, uint64_t size)
      : scheme_(config.ranks_scheme),
        average_state_(config.average_state),
        average_(config.average_state, config.outer, config.average_rule, size, "ranks.") {}

  // Before an epoch's first part: the anchor of the outer rule (the ranks' common model).
  void StartEpoch(Learner& learner);
  // After a part; `epoch_end`: after the epoch's last. Collective.
  void Combine(Learner& learner, Communicator& comm, bool epoch_end);

  // The outer rule's velocity (the anchor is remade from the restored model).
  void Save(TrainingState& state) const { average_.Save(state); }
  void Load(const TrainingState& state) { average_.Load(state); }

 private:
  RanksScheme scheme_;
  bool average_state_;
  AverageCombine average_;
  std::vector<float> scratch_;  // gossip's neighbours
};

}  // namespace parsgd
