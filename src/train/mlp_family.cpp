// The MLP's half of training: the model (its input scaling from the data), the optimiser state, the
// dense epoch runners, and evaluation with one engine per thread.
#include <algorithm>
#include <cmath>

#include "dense_runner.hpp"
#include "family.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kInitStream = 0x696e6974;  // "init"

class MlpFamily final : public ModelFamily {
 public:
  MlpFamily(const TrainConfig& config, const ResolvedSettings& r, const Dataset& train,
            const Targets& targets)
      : config_(config), train_(train), targets_(targets) {
    std::vector<int> sizes = {static_cast<int>(train.features())};
    sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
    sizes.push_back(targets.classes);
    model_ = MlpModel(sizes, DeriveSeed(config.seed, {kInitStream}));
    model_.set_labels(targets.labels);
    if (config.normalize == Normalization::kMaxAbs) ScaleInputs();
    l2_ = r.l2;
    state_ = OptimizerState(config.optimizer.kind, model_.params().size());
    runner_ = MakeDenseRunner(config, sizes, r.workers, r.batch);
    workers_ = r.workers;
    batch_ = r.batch;
  }

  EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                       Executor& executor, EpochPart /*part: always whole*/) override {
    const ParamArrays arrays = state_.With(model_.params().data());
    const DenseContext context{&train_,
                               targets_.values.data(),
                               {arrays, model_.params().size(), static_cast<float>(l2_),
                                model_.input_scale().data(), &model_.layers()},
                               &order,
                               step,
                               config_.optimizer,
                               epoch,
                               workers_,
                               batch_,
                               &executor};
    return runner_->Run(context);
  }

  Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) override {
    return EvaluateMlp(model_, data, targets, executor, config_.mlp_backend);
  }
  double Regularizer() const override { return 0.5 * l2_ * model_.SquaredNorm(); }
  const MlpModel* mlp() const override { return &model_; }

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
  // --normalize maxabs: each input feature scaled by 1 / max |x_j| over the training rows.
  void ScaleInputs() {
    std::vector<float> max_abs(train_.features(), 0.f);
    for (uint64_t e = 0; e < train_.nnz(); ++e) {
      float& m = max_abs[train_.indices()[e]];
      m = std::max(m, std::abs(train_.values()[e]));
    }
    for (uint64_t j = 0; j < max_abs.size(); ++j) {
      model_.input_scale()[j] = max_abs[j] > 0 ? 1.f / max_abs[j] : 1.f;
    }
  }

  TrainConfig config_;
  const Dataset& train_;
  const Targets& targets_;
  double l2_ = 0;
  MlpModel model_;
  OptimizerState state_;
  std::unique_ptr<DenseRunner> runner_;
  int workers_ = 1;
  int batch_ = 1;
};

}  // namespace

std::unique_ptr<ModelFamily> MakeMlpFamily(const TrainConfig& config,
                                           const ResolvedSettings& settings, const Dataset& train,
                                           const Targets& targets) {
  return std::make_unique<MlpFamily>(config, settings, train, targets);
}

}  // namespace parsgd
