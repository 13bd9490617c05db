// The offload backend's learner of the linear models (--backend offload): the same Learner as
// the cpu backend's (model/learner.hpp), its epochs run by OpenMP target kernels.
#pragma once

#include <memory>

#include "model/linear/linear_learner.hpp"
#include "parsgd/offload/device.hpp"

namespace parsgd {

// The workers of an offload run: 1 for sequential; --threads where given; else, on the host
// fallback, the host's threads (as on the cpu backend), and on a device one for minibatch steps
// (their parallelism is inside each step) and 65,536 asynchronous workers for hogwild and atomic.
int OffloadWorkers(const TrainConfig& config, const DeviceInfo& device, int host_threads);

// `config` and `settings` resolved (run/resolve.hpp), `device` as ProbeDevice found it.
std::unique_ptr<Learner> MakeOffloadLearner(const TrainConfig& config,
                                            const ResolvedSettings& settings,
                                            AlignedArray<FeatureRate> rates,
                                            const DeviceInfo& device, const Dataset& train,
                                            const Targets& targets);

}  // namespace parsgd
