// The linear models on an OpenMP target device: the training set, its targets (and row weights),
// the model's weights, the optimiser state and the per-feature rates are mapped once and stay on
// the device across epochs; the test set is mapped at its first evaluation. Per epoch the host
// sends the sample order (4 bytes per row, made by the same SampleOrder as the CPU backend, so
// both backends visit the same rows in the same sequence) and the step-size table; only metrics
// come back. The model's weights come back when the trained model is read (Trainer::model()).
//
// Workers: on a device, --threads counts device workers (default kDeviceWorkers for hogwild and
// atomic, 1 for sync, whose parallelism is inside each minibatch); on the host fallback the
// default is the executor's threads, as on the CPU backend.
#include "offload_learner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "device_array.hpp"
#include "linear_kernels.hpp"
#include "model/linear/linear_learner.hpp"
#include "model/linear/linear_runner.hpp"
#include "parsgd/util/error.hpp"
#include "scheme/sync_split.hpp"

namespace parsgd {
namespace {

using offload::DeviceArray;
using offload::Geometry;
using offload::Transfer;

constexpr int kThreadsPerTeam = 128;
constexpr int kDeviceWorkers = 512 * kThreadsPerTeam;  // hogwild and atomic on a GPU
constexpr int kMaxEvalTeams = 1024;

// Whether the run takes minibatch steps (one kernel per step) rather than an asynchronous epoch.
bool IsMinibatch(const TrainConfig& config) {
  return config.scheme == SchemeKind::kSync ||
         (config.scheme == SchemeKind::kSequential && config.batch > 1);
}

// A data set, its targets and their row weights (where the rows have weights), mapped.
struct MappedRows {
  MappedRows(const Dataset& data, const Targets& targets)
      : offsets(data.offsets().data(), data.rows() + 1),
        indices(data.indices().data(), data.nnz()),
        values(data.values().data(), data.nnz()),
        target_values(targets.values.data(), data.rows()),
        row_weights(targets.row_weights(), targets.weights.empty() ? 0 : data.rows()),
        view{data.offsets().data(), data.indices().data(), data.values().data(),
             targets.values.data(), data.rows(),           data.nnz(),
             targets.row_weights()} {}
  DeviceArray<const uint64_t> offsets;
  DeviceArray<const uint32_t> indices;
  DeviceArray<const float> values;
  DeviceArray<const float> target_values;
  DeviceArray<const float> row_weights;
  offload::Rows view;
};

using AsyncFn = EpochTotals (*)(const offload::Rows&, const offload::Params&,
                                const offload::AsyncEpoch&, Geometry);
using SyncFn = void (*)(const offload::Rows&, const offload::Params&, const offload::SyncBuffers&,
                        uint64_t, uint64_t, uint64_t, int, const RuleContext, int, bool);
using EvalFn = Evaluation (*)(const offload::Rows&, const offload::Params&, float*, double*,
                              double*, Geometry);

class OffloadLearner final : public Learner {
 public:
  OffloadLearner(const TrainConfig& config, const ResolvedSettings& r, LinearSetup setup,
                 const DeviceInfo& device, const Dataset& train, const Targets& targets)
      : config_(config), train_(train), device_(device), setup_(std::move(setup)) {
    on_host_ = device_.ran_on_host;
    state_ = OptimizerState(config.optimizer.kind, setup_.model.weights().size());
    minibatch_ = IsMinibatch(config);
    workers_ = r.workers;
    batch_ = r.batch;
    // On the host fallback libgomp starts a fresh thread team for every target region that asks
    // for more than one thread (milliseconds a region, against microseconds with one thread;
    // docs/offload.md): only the asynchronous epoch, one region per epoch whose workers must
    // really run concurrently, gets the host's threads; the per-step and reduction regions run
    // on one.
    threads_ = on_host_ ? 1 : kThreadsPerTeam;
    async_threads_ = on_host_ ? std::min(r.threads, std::max(workers_, 1)) : kThreadsPerTeam;
    ChooseKernels(config);

    LinearModel& model = setup_.model;
    const uint64_t size = model.weights().size();
    params_ = {model.weights().data(),
               state_.state0.empty() ? nullptr : state_.state0.data(),
               state_.state1.empty() ? nullptr : state_.state1.data(),
               size,
               setup_.rates.empty() ? nullptr : setup_.rates.data(),
               model.features(),
               model.outputs()};
    weights_ = DeviceArray<float>(params_.weights, size);
    state0_ = DeviceArray<float>(params_.state0, params_.state0 ? size : 0);
    state1_ = DeviceArray<float>(params_.state1, params_.state1 ? size : 0);
    rates_ = DeviceArray<const FeatureRate>(params_.rates, params_.rates ? model.features() : 0);
    train_rows_ =
        mapped_.emplace(KeyOf(train, targets), std::make_unique<MappedRows>(train, targets))
            .first->second.get();

    order_host_.assign(train.rows(), 0);
    order_ = DeviceArray<uint32_t>(order_host_.data(), order_host_.size(), Transfer::kAllocate);
    if (minibatch_) {
      AllocateSync(model);
    } else {
      const SampleOrder split(OrderKind::kSequential, train.rows(), workers_, 0);  // the shards
      shard_host_.resize(workers_ + 1);
      for (int w = 0; w <= workers_; ++w) shard_host_[w] = split.ShardBegin(w);
      shard_ = DeviceArray<uint64_t>(shard_host_.data(), shard_host_.size());
      scratch_host_.assign(static_cast<uint64_t>(workers_) * model.outputs(), 0.f);
      scratch_ =
          DeviceArray<float>(scratch_host_.data(), scratch_host_.size(), Transfer::kAllocate);
    }
  }

  EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       Executor& executor, EpochPart /*part: always whole*/) override {
    if (order.workers() != workers_) throw Error("offload: the sample order has the wrong workers");
    return minibatch_ ? RunSyncEpoch(epoch, order, step, executor)
                      : RunAsync(epoch, order, step, executor.stop_flag());
  }

  Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor&) override {
    auto [at, fresh] = mapped_.try_emplace(KeyOf(data, targets));
    if (fresh) at->second = std::make_unique<MappedRows>(data, targets);
    const uint64_t rows = std::max<uint64_t>(data.rows(), 1);
    const Geometry g =
        on_host_ ? Geometry{1, threads_}
                 : Geometry{static_cast<int>(std::min<uint64_t>(
                                (rows + kThreadsPerTeam - 1) / kThreadsPerTeam, kMaxEvalTeams)),
                            kThreadsPerTeam};
    const uint64_t need = static_cast<uint64_t>(g.teams) * g.threads * params_.outputs;
    if (eval_scratch_.size() < need) {  // unmap before the host array moves
      eval_scratch_ = DeviceArray<float>();
      eval_scratch_host_.assign(need, 0.f);
      eval_scratch_ = DeviceArray<float>(eval_scratch_host_.data(), need, Transfer::kAllocate);
    }
    if (row_loss_.size() < data.rows()) {
      row_loss_ = DeviceArray<double>();
      row_right_ = DeviceArray<double>();
      row_loss_host_.assign(data.rows(), 0.0);
      row_right_host_.assign(data.rows(), 0.0);
      row_loss_ = DeviceArray<double>(row_loss_host_.data(), data.rows(), Transfer::kAllocate);
      row_right_ = DeviceArray<double>(row_right_host_.data(), data.rows(), Transfer::kAllocate);
    }
    return eval_(at->second->view, params_, eval_scratch_.get(), row_loss_.get(), row_right_.get(),
                 g);
  }

  double Regularizer() const override {
    return 0.5 * setup_.l2 * offload::SquaredNormOnDevice(params_, ReduceGeometry(params_.size));
  }

  void Save(TrainingState& s) const override {
    weights_.FromDevice();
    state0_.FromDevice();
    state1_.FromDevice();
    s.Put("weights", setup_.model.weights());
    SaveOptimizerState(state_, s);
  }
  void Load(const TrainingState& s) override {
    s.Get("weights", setup_.model.weights());
    LoadOptimizerState(s, state_);
    weights_.ToDevice();
    state0_.ToDevice();
    state1_.ToDevice();
  }
  void StartFrom(const LinearModel& model) override {
    std::ranges::copy(model.weights(), setup_.model.weights().begin());
    weights_.ToDevice();
  }
  void StartFrom(const MlpModel&) override { throw Error("a linear run cannot start from an mlp"); }

  const LinearModel* linear() const override {
    weights_.FromDevice();
    return &setup_.model;
  }

 private:
  using Key = std::pair<const Dataset*, const float*>;
  static Key KeyOf(const Dataset& data, const Targets& targets) {
    return {&data, targets.values.data()};
  }

  void ChooseKernels(const TrainConfig& config) {
    // The kernels are compiled once per loss and build the empty heads they take; the regression
    // losses (whose heads hold a width) and one-vs-rest run on the cpu backend only
    // (ValidateConfig).
    switch (LossOf(config.model)) {
      case Loss::kLogistic:
        return ChooseKernelsOf<BinaryHead<LogisticLoss>>(config);
      case Loss::kHinge:
        return ChooseKernelsOf<BinaryHead<HingeLoss>>(config);
      case Loss::kSquaredHinge:
        return ChooseKernelsOf<BinaryHead<SquaredHingeLoss>>(config);
      case Loss::kSquared:
        return ChooseKernelsOf<BinaryHead<SquaredLoss>>(config);
      case Loss::kSoftmax:
        return ChooseKernelsOf<SoftmaxHead>(config);
      case Loss::kHuber:
      case Loss::kEpsilonInsensitive:
        break;
    }
    throw Error(fmt::format("backend offload: no kernels for model {}",
                            NameOf<ModelKind>(kModelKinds, config.model)));
  }

  template <class Head>
  void ChooseKernelsOf(const TrainConfig& config) {
    eval_ = &offload::RunEvaluate<Head>;
    WithRule(config.optimizer.kind, [&]<class Rule>(Rule) {
      sync_ = &offload::RunSyncStep<Head, Rule>;
      async_ = config.scheme == SchemeKind::kAtomic
                   ? &offload::RunAsyncEpoch<Head, Rule, AtomicScheme>
                   : &offload::RunAsyncEpoch<Head, Rule, HogwildScheme>;
    });
  }

  void AllocateSync(const LinearModel& model) {
    const uint64_t rows = train_.rows(), features = model.features();
    const int outputs = model.outputs();
    losses_host_.assign(rows, 0.0);
    d_host_.assign(static_cast<uint64_t>(batch_) * outputs, 0.f);
    sum_host_.assign((features + 1) * outputs, 0.f);
    count_host_.assign(features, 0);
    touched_host_.assign(features, 0);
    touched_count_host_[0] = touched_count_host_[1] = 0;
    losses_ = DeviceArray<double>(losses_host_.data(), rows, Transfer::kAllocate);
    d_ = DeviceArray<float>(d_host_.data(), d_host_.size(), Transfer::kAllocate);
    sum_ = DeviceArray<float>(sum_host_.data(), sum_host_.size());
    count_ = DeviceArray<uint32_t>(count_host_.data(), features);
    touched_ = DeviceArray<uint32_t>(touched_host_.data(), features, Transfer::kAllocate);
    touched_count_ = DeviceArray<uint32_t>(touched_count_host_, 2);
  }

  Geometry ReduceGeometry(uint64_t n) const {
    if (on_host_) return {1, threads_};
    return {static_cast<int>(std::clamp<uint64_t>((n + kThreadsPerTeam - 1) / kThreadsPerTeam, 1,
                                                  kMaxEvalTeams)),
            kThreadsPerTeam};
  }

  EpochTotals RunAsync(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       const std::atomic<bool>& stop) {
    std::vector<uint32_t> scratch;
    uint64_t longest = 0;
    for (int w = 0; w < workers_; ++w) {
      const std::span<const uint32_t> rows = order.Indices(epoch, w, scratch);
      std::copy(rows.begin(), rows.end(), order_host_.begin() + shard_host_[w]);
      longest = std::max<uint64_t>(longest, rows.size());
    }
    order_.ToDevice();
    // The CPU backend's schedule: a worker's i-th sample uses the step size at i * workers
    // samples into the epoch, recomputed every kStepBlock samples.
    const double rows = static_cast<double>(train_.rows());
    const uint64_t blocks = std::max<uint64_t>((longest + kStepBlock - 1) / kStepBlock, 1);
    auto fill = [&] {
      for (uint64_t b = 0; b < blocks; ++b) {
        const double samples = static_cast<double>(b * kStepBlock) * workers_;
        contexts_host_[b] =
            MakeRuleContext(config_.optimizer, StepAt(step, epoch, samples, train_.rows()),
                            static_cast<double>(epoch) * rows + samples + 1);
      }
    };
    if (contexts_.size() < blocks) {  // the host array may move: unmap it first
      contexts_ = DeviceArray<RuleContext>();
      contexts_host_.resize(blocks);
      fill();
      contexts_ = DeviceArray<RuleContext>(contexts_host_.data(), blocks);
    } else {
      fill();
      contexts_.ToDevice(blocks);
    }
    // The stop flag reaches the workers only where the region runs in host memory.
    if (on_host_) done_host_.assign(workers_, 0);
    const offload::AsyncEpoch a{order_.get(),
                                shard_.get(),
                                contexts_.get(),
                                contexts_.size(),
                                scratch_.get(),
                                workers_,
                                on_host_ ? &stop : nullptr,
                                on_host_ ? done_host_.data() : nullptr};
    const Geometry g{on_host_ ? 1 : (workers_ + kThreadsPerTeam - 1) / kThreadsPerTeam,
                     async_threads_};
    return async_(train_rows_->view, params_, a, g);
  }

  // The CPU minibatch runner's batches (scheme/sync_split.hpp), so both backends sum the same
  // samples at every step.
  EpochTotals RunSyncEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                           Executor& executor) {
    std::vector<std::vector<uint32_t>> scratch(workers_);
    std::vector<std::span<const uint32_t>> shards(workers_);
    for (int w = 0; w < workers_; ++w) shards[w] = order.Indices(epoch, w, scratch[w]);
    const SyncSplit split(std::move(shards), batch_);
    const uint64_t steps = split.steps();
    std::vector<uint64_t> step_begin(steps + 1, 0), step_bound(steps, 0);
    const uint64_t* offsets = train_.offsets().data();
    uint64_t filled = 0;
    for (uint64_t s = 0; s < steps; ++s) {
      step_begin[s] = filled;
      for (int w = 0; w < workers_; ++w) {
        for (uint32_t r : split.Part(s, w)) {
          order_host_[filled++] = r;
          step_bound[s] += offsets[r + 1] - offsets[r];
        }
      }
    }
    step_begin[steps] = filled;
    order_.ToDevice();

    const offload::SyncBuffers b{order_.get(),
                                 losses_.get(),
                                 d_.get(),
                                 sum_.get(),
                                 count_.get(),
                                 touched_.get(),
                                 touched_count_.get(),
                                 static_cast<uint64_t>(batch_)};
    const std::atomic<bool>& stop = executor.stop_flag();
    uint64_t done = 0;
    for (uint64_t s = 0; s < steps && !stop.load(std::memory_order_relaxed); ++s) {
      const uint64_t size = step_begin[s + 1] - step_begin[s];
      const RuleContext rc = MakeRuleContext(
          config_.optimizer, StepAt(step, epoch, static_cast<double>(done), train_.rows()),
          static_cast<double>(epoch * steps + s + 1));
      sync_(train_rows_->view, params_, b, step_begin[s], size, step_bound[s],
            static_cast<int>(parity_), rc, threads_, on_host_);
      parity_ ^= 1;
      done += size;
    }
    return {offload::SumOnDevice(losses_.get(), done, ReduceGeometry(done)), done};
  }

  TrainConfig config_;
  const Dataset& train_;
  DeviceInfo device_;
  bool on_host_ = true;
  bool minibatch_ = false;
  int workers_ = 1;
  int batch_ = 1;
  int threads_ = 1;        // per team
  int async_threads_ = 1;  // per team, for the asynchronous epoch
  unsigned parity_ = 0;
  AsyncFn async_ = nullptr;
  SyncFn sync_ = nullptr;
  EvalFn eval_ = nullptr;

  // Host arrays first: each DeviceArray below maps one of them and must be released before it.
  LinearSetup setup_;
  OptimizerState state_;
  offload::Params params_{};
  std::vector<uint32_t> order_host_;
  std::vector<uint64_t> shard_host_;
  std::vector<uint64_t> done_host_;  // host fallback: samples each worker processed
  std::vector<float> scratch_host_, eval_scratch_host_;
  std::vector<RuleContext> contexts_host_;
  std::vector<double> losses_host_, row_loss_host_, row_right_host_;
  std::vector<float> d_host_, sum_host_;
  std::vector<uint32_t> count_host_, touched_host_;
  uint32_t touched_count_host_[2] = {0, 0};

  mutable DeviceArray<float> weights_;
  mutable DeviceArray<float> state0_, state1_;
  DeviceArray<const FeatureRate> rates_;
  std::map<Key, std::unique_ptr<MappedRows>> mapped_;  // the training set, then the test set
  const MappedRows* train_rows_ = nullptr;
  DeviceArray<uint32_t> order_;
  DeviceArray<uint64_t> shard_;
  DeviceArray<float> scratch_, eval_scratch_;
  DeviceArray<RuleContext> contexts_;
  DeviceArray<double> losses_, row_loss_, row_right_;
  DeviceArray<float> d_, sum_;
  DeviceArray<uint32_t> count_, touched_, touched_count_;
};

}  // namespace

int OffloadWorkers(const TrainConfig& config, const DeviceInfo& device, int host_threads) {
  if (config.scheme == SchemeKind::kSequential) return 1;
  if (config.threads > 0) return config.threads;
  return device.ran_on_host ? host_threads : IsMinibatch(config) ? 1 : kDeviceWorkers;
}

std::unique_ptr<Learner> MakeOffloadLearner(const TrainConfig& config,
                                            const ResolvedSettings& settings,
                                            AlignedArray<FeatureRate> rates,
                                            const DeviceInfo& device, const Dataset& train,
                                            const Targets& targets) {
  return std::make_unique<OffloadLearner>(
      config, settings, MakeLinearSetup(config, settings, std::move(rates), targets), device, train,
      targets);
}

}  // namespace parsgd
