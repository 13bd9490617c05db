// The linear models' half of training: the model with its rates, the optimiser state, the sparse
// epoch runners.
#include "linear_learner.hpp"

#include <algorithm>

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
    runner_ =
        MakeLinearRunner(config, {train.features(), r.outputs, r.workers, train.rows(),
                                  targets.weights.empty() ? nullptr : targets.weights.data()});
    workers_ = r.workers;
    batch_ = r.batch;
  }

  EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       Executor& executor, EpochPart part) override {
    const LinearContext context{&train_,    targets_.values.data(),
                                Params(),   &order,
                                step,       config_.optimizer,
                                epoch,      workers_,
                                batch_,     &executor,
                                part.index, part.count,
                                part.ranks, targets_.weights.empty() ? nullptr : targets_.weights.data()};
    return runner_->Run(context);
  }

  Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) override {
    return parsgd::Evaluate(setup_.model, data, targets, executor);
  }
  double Regularizer() const override {
    const double l2 = 0.5 * setup_.l2 * setup_.model.SquaredNorm();
    return setup_.l1 > 0 ? l2 + setup_.l1 * setup_.model.AbsoluteSum() : l2;
  }
  std::optional<uint64_t> NonzeroWeights() const override { return setup_.model.Nonzeros(); }
  std::optional<double> DualObjective() override {
    return runner_->DualObjective(train_, targets_.values.data(), Params());
  }
  const LinearModel* linear() const override { return &setup_.model; }
  std::vector<std::span<float>> RankArrays(bool state) override {
    return ParamsAndState(setup_.model.weights(), state_, state);
  }

  void RanksCombined(bool state) override { runner_->TakeParams(Params(), state); }

  void Save(TrainingState& s) const override {
    s.Put("weights", setup_.model.weights());
    SaveOptimizerState(state_, s);
    runner_->Save(s);
  }
  void Load(const TrainingState& s) override {
    s.Get("weights", setup_.model.weights());
    LoadOptimizerState(s, state_);
    runner_->Load(s);
  }
  void StartFrom(const LinearModel& model) override {
    std::ranges::copy(model.weights(), setup_.model.weights().begin());
  }
  void StartFrom(const MlpModel&) override { throw Error("a linear run cannot start from an mlp"); }

 private:
  // The model and its optimiser state as the runners see them.
  LinearParams Params() {
    LinearModel& model = setup_.model;
    return LinearParams{state_.With(model.weights().data()), model.features(), model.outputs(),
                        setup_.rates.empty() ? nullptr : setup_.rates.data(),
                        config_.bias == Bias::kOn,
                        setup_.l1_rates.empty() ? nullptr : setup_.l1_rates.data()};
  }

  TrainConfig config_;
  const Dataset& train_;
  const Targets& targets_;
  LinearSetup setup_;
  OptimizerState state_;  // in the weights' layout
  std::unique_ptr<LinearRunner> runner_;
  int workers_ = 1;
  int batch_ = 1;
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
