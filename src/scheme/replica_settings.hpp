// Internal: the replica schemes' own settings (scheme/replica_runner.hpp), resolved and described
// beside their runner: the period, and the setup's words for the period, the combined optimiser
// state and the outer optimiser.
#pragma once

#include <cstdint>
#include <string>

#include "parsgd/config/train_config.hpp"

namespace parsgd {

// The automatic period of per-sample replicas (--batch 1): a tenth of a worker's shard, rounded up
// (the period auto takes, and the one the default scheme rule's replica work counts).
uint64_t PerSampleReplicaPeriod(uint64_t rows, int workers);

// --period auto for `config` (its scheme and batch resolved) on `rows` rows over `workers`.
int AutoReplicaPeriod(const TrainConfig& config, uint64_t rows, int workers);

// The elastic scheme's force, resolved (auto: 0.9 / workers, the EASGD paper's beta = 0.9) into
// `config` and `r`; throws SettingError where alpha x workers passes 1, where the step would not
// be stable (the centre and replicas overshoot one another).
void ResolveElasticAlpha(TrainConfig& config, ResolvedSettings& r);

// " (period 10) (state averaged) (outer momentum, rate 0.7, momentum 0.5)": the setup's words
// for a replica scheme's settings; `outer`: whether the outer optimiser acts here (one process).
std::string DescribeReplicas(const TrainConfig& config, const ResolvedSettings& settings,
                             bool outer);

}  // namespace parsgd
