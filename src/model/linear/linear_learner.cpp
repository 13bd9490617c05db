// The linear models' half of training: the model with its rates, the optimiser state, the sparse
// epoch runners.
#include "linear_learner.hpp"

#include <algorithm>
#include <optional>

#include "linear_runner.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

class LinearLearner final : public Learner {
 public:
  LinearLearner(const TrainConfig& config, const ResolvedSettings& r, LinearSetup setup,
                const Dataset& train, const Targets& targets)
      : config_(config), train_(train), targets_(targets), setup_(std::move(setup)) {
    state_ = OptimizerState(config.optimizer.kind, setup_.model.weights().size(),
                            !setup_.l1_rates.empty());
    runner_ = MakeLinearRunner(
        config, {train.features(), r.outputs, r.workers, train.rows(), targets.row_weights()});
    workers_ = r.workers;
    batch_ = r.batch;
    if (r.asgd_start >= 0) {  // --asgd: the averaged model beside the iterate
      averaged_ = setup_.model;
      const auto start = static_cast<uint64_t>(r.asgd_start);
      since_ = AlignedArray<uint64_t>::Zeroed(train.features() + 1);
      std::fill_n(since_.data(), since_.size(), start);
      average_ = {averaged_->weights().data(), since_.data(), start};
    }
  }

  EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       Executor& executor, EpochPart part) override {
    const LinearContext context{&train_,    targets_.values.data(),
                                Params(),   &order,
                                step,       config_.optimizer,
                                epoch,      workers_,
                                batch_,     &executor,
                                part.index, part.count,
                                part.ranks, targets_.row_weights()};
    const EpochTotals totals = runner_->Run(context);
    // --asgd: every mean brought up to the part's end (the samples it took: each runner's clock
    // counts them), where the run reads the averaged model or the ranks combine the iterates.
    if (part.index == 0) epoch_done_ = 0;
    epoch_done_ += totals.updates;
    if (averaged_) AverageUpTo(epoch * train_.rows() + epoch_done_);
    return totals;
  }

  Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) override {
    return parsgd::Evaluate(Reported(), data, targets, executor);
  }
  double Regularizer() const override {
    const double l2 = 0.5 * setup_.l2 * Reported().SquaredNorm();
    return setup_.l1 > 0 ? l2 + setup_.l1 * Reported().AbsoluteSum() : l2;
  }
  std::optional<uint64_t> NonzeroWeights() const override { return Reported().Nonzeros(); }
  std::optional<double> DualObjective() override {
    return runner_->DualObjective(train_, targets_.values.data(), Params());
  }
  const LinearModel* linear() const override { return &Reported(); }
  std::vector<std::span<float>> RankArrays(bool state) override {
    return ParamsAndState(setup_.model.weights(), state_, state);
  }

  void RanksCombined(bool state) override { runner_->TakeParams(Params(), state); }
  std::vector<std::span<float>> RankMeans() override {
    if (!averaged_) return {};
    return {averaged_->weights()};
  }

  void Save(TrainingState& s) const override {
    s.Put("weights", setup_.model.weights());
    SaveOptimizerState(state_, s);
    runner_->Save(s);
    if (averaged_) {  // caught up to the clock at the epoch's end: one clock for all
      s.Put("asgd_mean", averaged_->weights());
      s.Put("asgd_clock", clock_);
    }
  }
  void Load(const TrainingState& s) override {
    s.Get("weights", setup_.model.weights());
    LoadOptimizerState(s, state_);
    runner_->Load(s);
    if (averaged_) {
      s.Get("asgd_mean", averaged_->weights());
      clock_ = s.Counter("asgd_clock");
      std::fill_n(since_.data(), since_.size(), std::max(clock_, average_.start));
    }
  }
  void StartFrom(const LinearModel& model) override {
    std::ranges::copy(model.weights(), setup_.model.weights().begin());
    // With --asgd also the mean, which the run reports (the best epoch's model put back): at the
    // start the first catch-up replaces it anyway.
    if (averaged_) std::ranges::copy(model.weights(), averaged_->weights().begin());
  }
  void StartFrom(const MlpModel&) override { throw Error("a linear run cannot start from an mlp"); }

 private:
  // The model and its optimiser state as the runners see them.
  LinearParams Params() {
    LinearModel& model = setup_.model;
    return LinearParams{state_.With(model.weights().data()),
                        model.features(),
                        model.outputs(),
                        setup_.rates.empty() ? nullptr : setup_.rates.data(),
                        config_.bias == Bias::kOn,
                        setup_.l1_rates.empty() ? nullptr : setup_.l1_rates.data(),
                        averaged_ ? &average_ : nullptr,
                        KernelIsa(ActiveIsa(), model.weights().size())};
  }

  void AverageUpTo(uint64_t now) {
    clock_ = now;
    CatchUpAll(average_, setup_.model.weights().data(), setup_.model.features(),
               setup_.model.outputs(), now);
  }
  // The model the run evaluates and saves: with --asgd, once averaging has started, the mean of
  // the iterates; else the iterate.
  const LinearModel& Reported() const {
    return averaged_ && clock_ > average_.start ? *averaged_ : setup_.model;
  }

  TrainConfig config_;
  const Dataset& train_;
  const Targets& targets_;
  LinearSetup setup_;
  OptimizerState state_;  // in the weights' layout
  std::unique_ptr<LinearRunner> runner_;
  int workers_ = 1;
  int batch_ = 1;
  // --asgd: the averaged model (its weights the means), each feature's clock, the clock of the
  // last epoch's end.
  std::optional<LinearModel> averaged_;
  AlignedArray<uint64_t> since_;
  LazyAverage average_{};
  uint64_t clock_ = 0;
  uint64_t epoch_done_ = 0;  // the samples of the epoch's parts so far
};

}  // namespace

LinearSetup MakeLinearSetup(const TrainConfig& config, const ResolvedSettings& settings,
                            AlignedArray<FeatureRate> rates, const Targets& targets) {
  LinearSetup setup;
  setup.rates = std::move(rates);
  setup.l2 = settings.l2;
  setup.model = LinearModel(config.model, settings.features, settings.outputs, targets.labels);
  setup.model.set_regression(targets.regression);
  if (HasLossEpsilon(config.model)) {
    setup.model.set_loss_epsilon(static_cast<float>(config.loss_epsilon));  // resolved
  }
  return setup;
}

std::unique_ptr<Learner> MakeLinearLearner(const TrainConfig& config,
                                           const ResolvedSettings& settings,
                                           AlignedArray<FeatureRate> rates,
                                           AlignedArray<float> l1_rates, const Dataset& train,
                                           const Targets& targets) {
  LinearSetup setup = MakeLinearSetup(config, settings, std::move(rates), targets);
  setup.l1 = settings.l1;
  setup.l1_rates = std::move(l1_rates);
  return std::make_unique<LinearLearner>(config, settings, std::move(setup), train, targets);
}

}  // namespace parsgd
