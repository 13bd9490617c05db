// The resolution of a run's settings: every automatic setting made, once, in one order, before the
// model is allocated. The Trainer calls it first and hands the result to the model's family, which
// only reads it.
//
// Order: the optimiser; the memory check of the model; the scheme (--scheme auto, which may also
// choose the minibatch: run/scheme_choice.hpp); the sample order (--order auto) and the block
// order's rows a block; the offload device; the minibatch; the workers;
// the memory check of the replicas; the period; decay and epochs; then the model's own: for the
// linear models the per-feature rates, the L2 strength and the step size from the data
// (model/linear/linear_settings.hpp), for the MLP from the optimiser.
#pragma once

#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/offload/device.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

struct Resolution {
  TrainConfig config;               // every automatic setting made (Trainer::config())
  ResolvedSettings settings;        // the same, with what the data and the machine said
  AlignedArray<FeatureRate> rates;  // linear models: the per-feature rates (empty: none needed)
  AlignedArray<float> l1_rates;     // linear models with --l1: the L1 term's per-feature rates
  std::vector<float> input_scale;   // mlp with --normalize maxabs: 1 / max |x_j| of every rank's
                                    // rows (1 for a feature never seen); empty otherwise
  DeviceInfo device;                // --backend offload: where its target regions run
  double target_mean = 0;           // a regression: the targets' mean over every rank (MeanTarget)
};

// `given` has passed ValidateConfig. Asks the machine only where --scheme auto's rule needs it (a
// cache line's round trip on the executor's threads) and, for --backend offload, the device.
// Throws parsgd::Error naming the training data when the model (with its replicas) cannot fit in
// memory, SettingError when the settings cannot work on this data or device.
// Over several ranks (`comm`), `train` is this rank's share: the settings that depend on the rows
// (epochs, l2, rates, step size) are those of every share together; the ones that depend on the
// machine (threads, workers) are each rank's own. Collective; an error on one rank is thrown on
// every rank (AgreedError).
Resolution Resolve(const TrainConfig& given, const Dataset& train, const Targets& targets,
                   Executor& executor, Communicator& comm);

}  // namespace parsgd
