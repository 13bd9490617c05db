#include "epoch_kernel.hpp"

#include <type_traits>

#include "parsgd/util/prefetch.hpp"

namespace parsgd {
namespace {

// The step size is recomputed every kStepBlock samples, and the stop flag checked as often.
constexpr uint64_t kStepBlock = 64;
// Rows are visited in random order, so each row's first bytes miss every cache: fetch the row
// offsets kOffsetsAhead samples ahead, and the row's entries and target kRowAhead samples ahead.
constexpr uint64_t kOffsetsAhead = 32;
constexpr uint64_t kRowAhead = 8;

inline void PrefetchRow(const Dataset& data, const float* targets, uint32_t r) {
  const uint64_t begin = data.offsets()[r];
  const uint64_t end = data.offsets()[r + 1];
  const char* idx = reinterpret_cast<const char*>(data.indices().data() + begin);
  const char* val = reinterpret_cast<const char*>(data.values().data() + begin);
  const uint64_t bytes = (end - begin) * 4;
  for (uint64_t b = 0; b < bytes; b += kCacheLine) {
    Prefetch(idx + b);
    Prefetch(val + b);
  }
  Prefetch(targets + r);
}

template <class Scheme>
Scheme MakeScheme(uint64_t features, int outputs) {
  if constexpr (std::is_constructible_v<Scheme, uint64_t, int>) {
    return Scheme(features, outputs);
  } else {
    return Scheme();
  }
}

template <class Head, class Scheme>
class EpochKernelFor final : public EpochKernel {
 public:
  EpochKernelFor(uint64_t features, int outputs) : scheme_(MakeScheme<Scheme>(features, outputs)) {}

  void RunWorker(const EpochInputs& in, int worker, WorkerState& state) override {
    const std::span<const uint32_t> indices = in.order->Indices(in.epoch, worker, state.order_scratch);
    // This worker's samples, scaled by the worker count, estimate the whole run's progress.
    const double epochs_per_sample =
        static_cast<double>(in.workers) / static_cast<double>(in.data->rows());
    float* z = state.z.data();
    double loss = 0;
    uint64_t done = 0;
    const uint64_t n = indices.size();
    for (uint64_t begin = 0; begin < n; begin += kStepBlock) {
      if (in.stop->load(std::memory_order_relaxed)) break;
      const float eta = in.step.At(in.epoch, static_cast<double>(begin) * epochs_per_sample);
      const uint64_t end = std::min(n, begin + kStepBlock);
      for (uint64_t i = begin; i < end; ++i) {
        if (i + kOffsetsAhead < n) Prefetch(in.data->offsets().data() + indices[i + kOffsetsAhead]);
        if (i + kRowAhead < n) PrefetchRow(*in.data, in.targets, indices[i + kRowAhead]);
        const uint32_t r = indices[i];
        loss += LinearSgdStep<Head>(scheme_, in.params, in.data->row(r), in.targets[r], eta, z);
      }
      done = end;
    }
    state.loss_sum = loss;
    state.updates = done;
  }

 private:
  Scheme scheme_;
};

template <class Head>
std::unique_ptr<EpochKernel> ForScheme(SchemeKind scheme, uint64_t features, int outputs) {
  switch (scheme) {
    case SchemeKind::kSequential:
      return std::make_unique<EpochKernelFor<Head, SequentialScheme>>(features, outputs);
    case SchemeKind::kHogwild:
      return std::make_unique<EpochKernelFor<Head, HogwildScheme>>(features, outputs);
    case SchemeKind::kLocked:
      return std::make_unique<EpochKernelFor<Head, LockedScheme>>(features, outputs);
    case SchemeKind::kStriped:
      return std::make_unique<EpochKernelFor<Head, StripedScheme>>(features, outputs);
    case SchemeKind::kAtomic:
      return std::make_unique<EpochKernelFor<Head, AtomicScheme>>(features, outputs);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<EpochKernel> MakeEpochKernel(ModelKind model, SchemeKind scheme,
                                             uint64_t features, int outputs) {
  switch (model) {
    case ModelKind::kLogistic:
      return ForScheme<BinaryHead<LogisticLoss>>(scheme, features, outputs);
    case ModelKind::kHinge:
      return ForScheme<BinaryHead<HingeLoss>>(scheme, features, outputs);
    case ModelKind::kSquared:
      return ForScheme<BinaryHead<SquaredLoss>>(scheme, features, outputs);
    case ModelKind::kSoftmax:
      return ForScheme<SoftmaxHead>(scheme, features, outputs);
  }
  return nullptr;
}

}  // namespace parsgd
