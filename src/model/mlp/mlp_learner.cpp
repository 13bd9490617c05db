// The MLP's half of training: the model (its input scaling from the data, run/resolve.cpp), the
// optimiser state, the dense epoch runners, and evaluation with one engine per thread.
#include "mlp_learner.hpp"

#include <algorithm>
#include <cmath>

#include "mlp_runner.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kInitStream = 0x696e6974;  // "init"

class MlpLearner final : public Learner {
 public:
  MlpLearner(const TrainConfig& config, const ResolvedSettings& r, std::vector<float> input_scale,
             const Dataset& train, const Targets& targets)
      : config_(config), train_(train), targets_(targets) {
    std::vector<int> sizes = {static_cast<int>(train.features())};
    sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
    sizes.push_back(targets.classes);
    model_ = MlpModel(sizes, DeriveSeed(config.seed, {kInitStream}));
    model_.set_labels(targets.labels);
    if (!input_scale.empty()) std::ranges::copy(input_scale, model_.input_scale().begin());
    l2_ = r.l2;
    state_ = OptimizerState(config.optimizer.kind, model_.params().size());
    runner_ = MakeMlpRunner(config, sizes, r.workers, r.batch);
    workers_ = r.workers;
    batch_ = r.batch;
  }

  EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       Executor& executor, EpochPart part) override {
    const MlpContext context{&train_,    targets_.values.data(),
                             Params(),   &order,
                             step,       config_.optimizer,
                             epoch,      workers_,
                             batch_,     &executor,
                             part.index, part.count,
                             part.ranks, targets_.row_weights()};
    return runner_->Run(context);
  }

  Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) override {
    return EvaluateMlp(model_, data, targets, executor, config_.mlp_backend);
  }
  double Regularizer() const override { return 0.5 * l2_ * model_.SquaredNorm(); }
  const MlpModel* mlp() const override { return &model_; }
  std::vector<std::span<float>> RankArrays(bool state) override {
    return ParamsAndState(model_.params(), state_, state);
  }
  void RanksCombined(bool state) override { runner_->TakeParams(Params(), state); }

  void Save(TrainingState& s) const override {
    s.Put("params", model_.params());
    SaveOptimizerState(state_, s);
    runner_->Save(s);
  }
  void Load(const TrainingState& s) override {
    s.Get("params", model_.params());
    LoadOptimizerState(s, state_);
    runner_->Load(s);
  }
  void StartFrom(const LinearModel&) override {
    throw Error("an mlp run cannot start from a linear model");
  }
  void StartFrom(const MlpModel& model) override {
    std::ranges::copy(model.params(), model_.params().begin());
    std::ranges::copy(model.input_scale(), model_.input_scale().begin());
  }

 private:
  // The model and its optimiser state as the runners see them.
  MlpParams Params() {
    return {state_.With(model_.params().data()), model_.params().size(), static_cast<float>(l2_),
            model_.input_scale().data(), &model_.layers()};
  }

  TrainConfig config_;
  const Dataset& train_;
  const Targets& targets_;
  double l2_ = 0;
  MlpModel model_;
  OptimizerState state_;
  std::unique_ptr<MlpRunner> runner_;
  int workers_ = 1;
  int batch_ = 1;
};

}  // namespace

std::unique_ptr<Learner> MakeMlpLearner(const TrainConfig& config, const ResolvedSettings& settings,
                                        std::vector<float> input_scale, const Dataset& train,
                                        const Targets& targets) {
  return std::make_unique<MlpLearner>(config, settings, std::move(input_scale), train, targets);
}

}  // namespace parsgd
