// The per-worker epoch loop, instantiated once per (loss head, scheme) pair. The run-time choice of
// model and scheme is made once, in MakeEpochKernel; inside, everything per sample is inlined.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/loss.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/scheme/scheme.hpp"
#include "parsgd/train/linear_step.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

// What every worker of one epoch reads (shared, read-only apart from the weights).
struct EpochInputs {
  const Dataset* data;
  const float* targets;
  LinearParams params;
  const SampleOrder* order;
  StepSize step;
  uint64_t epoch;
  int workers;
  const std::atomic<bool>* stop;
};

// One worker's own state, on its own cache lines: scratch buffers and the counters it flushes once
// per epoch (no shared counter is touched per sample).
struct alignas(kCacheLine) WorkerState {
  std::vector<uint32_t> order_scratch;
  std::vector<float> z;
  double loss_sum = 0;
  uint64_t updates = 0;
};

class EpochKernel {
 public:
  virtual ~EpochKernel() = default;
  // Runs worker w's share of the epoch; called concurrently for distinct w.
  virtual void RunWorker(const EpochInputs& in, int worker, WorkerState& state) = 0;
};

std::unique_ptr<EpochKernel> MakeEpochKernel(ModelKind model, SchemeKind scheme,
                                             uint64_t features, int outputs);

}  // namespace parsgd
