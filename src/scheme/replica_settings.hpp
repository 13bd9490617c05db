// Internal: the replica schemes' own settings (scheme/replica_runner.hpp), resolved and described
// beside their runner: the period, and the setup's words for the period, the combined optimiser
// state and the outer optimiser.
#pragma once

#include <cstdint>
#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"

namespace parsgd {

// The automatic period of per-sample replicas (--batch 1): a tenth of a worker's shard, rounded up
// (the period auto takes, and the one the default scheme rule's replica work counts).
uint64_t PerSampleReplicaPeriod(uint64_t rows, int workers);

// --period auto for `config` (its scheme and batch resolved) on `rows` rows over `workers`.
int AutoReplicaPeriod(const TrainConfig& config, uint64_t rows, int workers);

// The share of the training steps that the touched rule keeps whole when each of `workers`
// replicas takes `period` samples between two combinations (0: a whole shard): a step on feature j
// is whole when no other replica's period touched j, which for rows drawn at random has
// probability (1 - n_j / rows)^(period (workers - 1)), n_j the rows holding j. The steps are the
// nonzeros and the bias (one a row, touched by every replica). One pass over the nonzeros.
double WholeStepShare(const Dataset& data, uint64_t period, int workers);

// The nonzeros each per-sample replica trains on between two combinations under the touched rule
// auto takes: short enough that most rare features meet one replica only, long enough that the
// combining step stays a small part of the period.
inline constexpr double kTouchedPeriodNonzeros = 65536;
// The share of whole steps (WholeStepShare) from which auto takes the touched rule.
inline constexpr double kTouchedWholeShare = 0.05;

struct ReplicaPlan {
  int period;
  AverageRule rule;    // never kAuto
  double whole_steps;  // WholeStepShare at `period` where weighed; < 0 otherwise
};

// --period and --average-rule for `config` (its scheme, batch and workers resolved) on `data`, the
// autos resolved: per-sample replicas of a linear model in one process (ranks == 1) take the
// touched rule when their period keeps at least kTouchedWholeShare of the steps whole, and under
// --period auto then combine every kTouchedPeriodNonzeros nonzeros (at most the tenth of a shard);
// every other run takes the mean and AutoReplicaPeriod. Across ranks auto is the mean: the rule
// is also the ranks' and every rank must take the same.
ReplicaPlan AutoReplicaPlan(const TrainConfig& config, const Dataset& data, int workers,
                            int ranks);

// The elastic scheme's force, resolved (auto: 0.9 / workers, the EASGD paper's beta = 0.9) into
// `config` and `r`; throws SettingError where alpha x workers passes 1, where the step would not
// be stable (the centre and replicas overshoot one another).
void ResolveElasticAlpha(TrainConfig& config, ResolvedSettings& r);

// " (period 10) (state averaged) (outer momentum, rate 0.7, momentum 0.5)": the setup's words
// for a replica scheme's settings; `outer`: whether the outer optimiser acts here (one process).
std::string DescribeReplicas(const TrainConfig& config, const ResolvedSettings& settings,
                             bool outer);

}  // namespace parsgd
