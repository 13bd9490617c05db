// The asynchronous schemes for the linear models: the scheme is scheme/async_runner.hpp; here each
// worker's per-sample steps, under the scheme's write policy and guard.
#include <vector>

#include "linear_runner.hpp"
#include "parsgd/data/row_prefetch.hpp"
#include "parsgd/util/error.hpp"
#include "scheme/async_runner.hpp"

namespace parsgd {
namespace {

// The linear models' half of the asynchronous schemes (scheme/async_runner.hpp): one sparse SGD
// step per sample, the step size recomputed every kStepBlock samples.
template <class Head, class Rule, class Scheme>
class LinearAsyncLocal {
 public:
  using Context = LinearContext;

  LinearAsyncLocal(const RunnerShape& shape, Head head)
      : head_(head),
        scheme_(MakeScheme<Scheme>(shape.features, shape.outputs)),
        workers_(shape.workers) {
    for (Worker& w : workers_) w.z.resize(shape.outputs);
  }

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }
  uint64_t Block(const Context&) const { return kStepBlock; }
  double SamplesPerUpdate(const Context&) const { return 1; }

  void Train(const Context& c, int w, std::span<const uint32_t> shard, uint64_t begin, uint64_t end,
             const RuleContext& rc, double& loss) {
    float* z = workers_[w].z.data();
    // --l1's clock advanced by each step: this worker's, and the others' meanwhile.
    RuleContext step = rc;
    const float tick = rc.eta * static_cast<float>(c.workers);
    // --asgd's clock: the samples before this one, this worker's progress times the workers.
    const uint64_t epoch_start = c.epoch * c.data->rows();
    for (uint64_t i = begin; i < end; ++i) {
      step.penalty = rc.penalty + tick * static_cast<float>(i - begin + 1);
      step.samples = epoch_start + i * static_cast<uint64_t>(c.workers) + static_cast<uint64_t>(w);
      PrefetchAhead(*c.data, c.targets, shard, i);
      if constexpr (Head::kOutputs != 1) {
        if (i + 1 < end) {
          PrefetchWeightRows(*c.data, shard[i + 1], c.params.arrays.weights, c.params.features,
                             c.params.outputs);
        }
      }
      const uint32_t r = shard[i];
      loss += LinearSgdStep<Head, Rule>(head_, scheme_, c.params, c.data->row(r), c.targets[r],
                                        RowWeight(c, r), step, z);
    }
  }

 private:
  // One worker's scratch, on its own cache lines.
  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
    std::vector<float> z;
  };

  Head head_;
  Scheme scheme_;
  std::vector<Worker> workers_;
};

template <class Head, class Rule, class Scheme>
std::unique_ptr<LinearRunner> Make(const RunnerShape& shape, Head head) {
  return std::make_unique<AsyncRunner<LinearParams, LinearAsyncLocal<Head, Rule, Scheme>>>(
      shape.workers, shape, head);
}

static_assert(AsyncLocal<LinearAsyncLocal<BinaryHead<ScoreLoss>, SgdRule, HogwildScheme>>);
static_assert(AsyncLocal<LinearAsyncLocal<SoftmaxHead, AdamRule, StripedScheme>>);

}  // namespace

std::unique_ptr<LinearRunner> MakeAsyncRunner(const TrainConfig& config, const RunnerShape& shape) {
  return WithHead(
      LossOf(config.model), config.loss_epsilon, shape.outputs, [&]<class Head>(Head head) {
        return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) {
          return WithAsyncPolicy(
              config.scheme, kAnyAsync,
              [&]<class Policy>(PolicyTag<Policy>) {
                return Make<Head, Rule, Policy>(shape, head);
              },
              [&]() -> std::unique_ptr<LinearRunner> { throw NotAsync(config.scheme); });
        });
      });
}

}  // namespace parsgd
