#include "parsgd/train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "curvature.hpp"
#include "epoch_runner.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/train/evaluate.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

// The default SGD step size is kAutoStepScale / (c * R2): R2 = mean sum_j m_j x_j^2 (the row's
// squared norm in the preconditioned geometry, bias input included) and c the loss's curvature
// bound, so that a typical step moves a sample's score by about half of what would overshoot the
// loss's quadratic model. Scale-free: multiplying the features by s scales eta0 by 1/s^2, as it
// must. A minibatch of B averages B gradients:
//  - logistic, hinge and softmax have bounded gradients: a step too long adds noise (which the
//    decaying schedule removes) but cannot diverge. Their minibatch step is the single-sample step
//    times B / (1 + B / 256): the linear scaling rule (Goyal et al. 2017) damped past B = 256. On
//    the RCV1-shaped set and Fashion-MNIST it landed within the best of a 2x grid for B = 32 and
//    256, where sqrt(B) scaling and the curvature bound below stopped 1-10 points of accuracy short
//    after 5 epochs (bench/README.md);
//  - squared loss can diverge, so it keeps the bound of Ma, Bassily and Belkin (2018, "The power of
//    interpolation"): B / (R2 + (B - 1) L) with L the largest eigenvalue of the rows' second moment.
// Momentum's steps add up to 1/(1 - mu) of a gradient step, so its eta0 is scaled by (1 - mu).
// RMSProp and Adam move every touched coordinate by about eta, so a row's score moves by about
// eta * L1, L1 = mean sum_j sqrt(m_j) |x_j| (bias included): their eta0 is kAutoStepScale / L1.
// torch.optim's 0.001 suits dense networks; on the sets of bench/README.md it stopped 3-8 points of
// accuracy short, and this rule landed within the best of a 10x grid. AdaGrad's steps shrink as
// each coordinate accumulates gradients, which that scaling does not capture: it starts at 0.3, the
// best of the same grid on both the RCV1-shaped set and Fashion-MNIST.
constexpr double kAutoStepScale = 0.5;
constexpr double kAutoAdaGradStep = 0.3;
constexpr uint64_t kOrderStream = 0x6f72646572;  // "order"

double CurvatureOf(ModelKind kind) {
  switch (kind) {
    case ModelKind::kLogistic:
      return LogisticLoss::kCurvature;
    case ModelKind::kHinge:
      return HingeLoss::kCurvature;
    case ModelKind::kSquared:
      return SquaredLoss::kCurvature;
    case ModelKind::kSoftmax:
      return SoftmaxLoss::kCurvature;
  }
  return 1;
}

// The default run: about 10^6 updates, at least 10 epochs, at most 1000. Small sets need many passes
// to approach the optimum (seen on scikit-learn's bundled sets: 10 epochs stop 1-4 points of test
// accuracy short of an exact solver, 1000 match it); large sets are near it within 10.
int AutoEpochs(uint64_t rows) {
  constexpr uint64_t kUpdates = 1000000;
  return static_cast<int>(std::clamp<uint64_t>((kUpdates + rows - 1) / rows, 10, 1000));
}

double AutoEta0(const TrainConfig& config, double curvature, const ResolvedSettings& r) {
  constexpr double kDampedBatch = 256;
  const double b = r.batch;
  const double single = kAutoStepScale / (curvature * r.mean_squared_norm);
  const double sgd =
      config.model == ModelKind::kSquared
          ? kAutoStepScale / curvature * b / (r.mean_squared_norm + (b - 1) * r.top_eigenvalue)
          : single * b / (1 + b / kDampedBatch);
  switch (config.optimizer.kind) {
    case OptimizerKind::kSgd:
      return sgd;
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov:
      return sgd * (1 - config.optimizer.momentum);
    case OptimizerKind::kAdaGrad:
      return kAutoAdaGradStep;
    case OptimizerKind::kRmsProp:
    case OptimizerKind::kAdam:
      return kAutoStepScale / r.mean_l1_norm;
  }
  return sgd;
}

// Default minibatch: sync shares one global batch among the workers per step (a barrier each); the
// average scheme's replicas take minibatches of 32, so that the default period of 10 minibatches
// averages every 320 samples per worker rather than every 10.
int AutoBatch(SchemeKind scheme) {
  return scheme == SchemeKind::kSync ? 256 : scheme == SchemeKind::kAverage ? 32 : 1;
}

double DefaultDecay(ScheduleKind kind) { return kind == ScheduleKind::kGeometric ? 0.9 : 1.0; }

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

struct Trainer::State {
  TrainConfig config;
  const Dataset& train;
  const Dataset* test;
  Executor& executor;
  ResolvedSettings settings;
  Targets train_targets;
  std::optional<Targets> test_targets;
  AlignedArray<FeatureRate> rates;  // per feature; empty when no feature needs one
  LinearModel model;
  AlignedArray<float> state0, state1;  // the optimiser's state, in the weights' layout
  std::optional<SampleOrder> order;
  StepSize step;
  std::unique_ptr<EpochRunner> runner;
  int epochs_done = 0;

  State(const TrainConfig& c, const Dataset& tr, const Dataset* te, Executor& ex)
      : config(c), train(tr), test(te), executor(ex) {}

  // Per-feature statistics of the training rows, in one pass: d_j, max |x_j|, sum |x_j|, sum x_j^2.
  struct FeatureStats {
    std::vector<uint64_t> rows_with;
    std::vector<float> max_abs;
    std::vector<double> abs_sums;
    std::vector<double> squares;
  };
  FeatureStats ScanFeatures() const {
    const uint64_t f_count = train.features();
    FeatureStats f{std::vector<uint64_t>(f_count, 0), std::vector<float>(f_count, 0.f),
                   std::vector<double>(f_count, 0.0), std::vector<double>(f_count, 0.0)};
    for (uint64_t e = 0; e < train.nnz(); ++e) {
      const uint32_t j = train.indices()[e];
      const float v = train.values()[e];
      ++f.rows_with[j];
      f.max_abs[j] = std::max(f.max_abs[j], std::abs(v));
      f.abs_sums[j] += std::abs(v);
      f.squares[j] += static_cast<double>(v) * v;
    }
    return f;
  }

  // The regulariser, the step multipliers and the mean preconditioned squared norm of a row.
  void ResolveFeatureRates(const FeatureStats& f) {
    const double n = static_cast<double>(train.rows());
    settings.l2_auto = config.l2 < 0;
    settings.l2 = settings.l2_auto ? 1.0 / n : config.l2;
    const bool scaled = config.normalize == Normalization::kMaxAbs;
    double squares = 0, l1 = 0;
    if (scaled || settings.l2 > 0) rates = AlignedArray<FeatureRate>(train.features());
    for (uint64_t j = 0; j < train.features(); ++j) {
      const double m = scaled && f.max_abs[j] > 0 ? 1.0 / (double(f.max_abs[j]) * f.max_abs[j]) : 1.0;
      const double r = f.rows_with[j] > 0 ? settings.l2 * n / f.rows_with[j] : 0.0;
      squares += m * f.squares[j];
      l1 += std::sqrt(m) * f.abs_sums[j];
      if (!rates.empty()) rates[j] = {static_cast<float>(m), static_cast<float>(m * r)};
    }
    settings.mean_squared_norm = squares / n + 1.0;
    settings.mean_l1_norm = l1 / n + 1.0;
  }
};

Trainer::Trainer(const TrainConfig& config, const Dataset& train, const Dataset* test,
                 Executor& executor)
    : state_(std::make_unique<State>(config, train, test, executor)) {
  ValidateConfig(config);
  State& s = *state_;
  if (train.rows() == 0) throw Error(train.source() + ": no training rows");
  s.train_targets = MakeTargets(config.model, train);
  const int outputs = IsBinary(config.model) ? 1 : s.train_targets.classes;
  if (test != nullptr) s.test_targets = MakeTargets(config.model, *test, s.train_targets.classes);

  s.ResolveFeatureRates(s.ScanFeatures());

  ResolvedSettings& r = s.settings;
  r.threads = executor.threads();
  r.workers = config.scheme == SchemeKind::kSequential ? 1 : r.threads;
  r.outputs = outputs;
  r.features = train.features();
  r.batch = config.batch > 0 ? config.batch : AutoBatch(config.scheme);
  if (config.scheme == SchemeKind::kSync && r.batch < r.workers) {
    throw Error(fmt::format("--batch {} is smaller than the {} workers that share each minibatch",
                            r.batch, r.workers));
  }
  if (r.batch > 1 && config.model == ModelKind::kSquared) {
    r.top_eigenvalue = EstimateTopEigenvalue(train, s.rates.empty() ? nullptr : s.rates.data());
  }
  r.eta0_auto = config.learning_rate == 0;
  r.eta0 = r.eta0_auto
               ? AutoEta0(config, CurvatureOf(config.model), r)
               : config.learning_rate;
  r.decay = config.decay > 0 ? config.decay : DefaultDecay(config.schedule);
  r.epochs_auto = config.epochs == 0;
  r.epochs = r.epochs_auto ? AutoEpochs(train.rows()) : config.epochs;

  s.model = LinearModel(config.model, train.features(), outputs, s.train_targets.labels);
  const uint64_t size = s.model.weights().size();
  const int states = StateCount(config.optimizer.kind);
  if (states > 0) s.state0 = AlignedArray<float>::Zeroed(size);
  if (states > 1) s.state1 = AlignedArray<float>::Zeroed(size);
  s.order.emplace(config.order, train.rows(), r.workers, DeriveSeed(config.seed, {kOrderStream}));
  s.step = StepSize(config.schedule, r.eta0, r.decay, r.epochs);
  TrainConfig resolved = config;
  resolved.batch = r.batch;
  s.runner = MakeEpochRunner(resolved, {train.features(), outputs, r.workers});
}

Trainer::~Trainer() = default;

const ResolvedSettings& Trainer::settings() const { return state_->settings; }
int Trainer::epochs_done() const { return state_->epochs_done; }
const LinearModel& Trainer::model() const { return state_->model; }

EpochReport Trainer::RunEpoch() {
  State& s = *state_;
  const uint64_t epoch = static_cast<uint64_t>(s.epochs_done);
  const ParamArrays arrays{s.model.weights().data(), s.state0.empty() ? nullptr : s.state0.data(),
                           s.state1.empty() ? nullptr : s.state1.data()};
  const EpochContext context{&s.train,
                             s.train_targets.values.data(),
                             LinearParams{arrays, s.model.features(), s.model.outputs(),
                                          s.rates.empty() ? nullptr : s.rates.data()},
                             &*s.order,
                             s.step,
                             s.config.optimizer,
                             epoch,
                             s.settings.workers,
                             s.settings.batch,
                             &s.executor};

  const auto start = std::chrono::steady_clock::now();
  s.order->PrepareEpoch(epoch);
  const EpochTotals totals = s.runner->Run(context);
  EpochReport report;
  report.train_seconds = Seconds(start);
  report.epoch = ++s.epochs_done;
  report.updates = totals.updates;
  report.progressive_loss = totals.updates > 0 ? totals.loss_sum / totals.updates : 0;
  report.learning_rate = s.step.At(epoch, 1.0);

  const auto eval_start = std::chrono::steady_clock::now();
  const Evaluation on_train = Evaluate(s.model, s.train, s.train_targets, s.executor);
  report.objective = on_train.mean_loss + 0.5 * s.settings.l2 * s.model.SquaredNorm();
  report.train_accuracy = on_train.accuracy;
  if (s.test != nullptr) {
    const Evaluation on_test = Evaluate(s.model, *s.test, *s.test_targets, s.executor);
    report.test_loss = on_test.mean_loss;
    report.test_accuracy = on_test.accuracy;
  }
  report.eval_seconds = Seconds(eval_start);

  if (!std::isfinite(report.objective) || !std::isfinite(report.progressive_loss)) {
    throw Error(fmt::format(
        "epoch {}: the run diverged (objective {}, training loss {}); try a smaller "
        "--learning-rate than {:.4g}",
        report.epoch, report.objective, report.progressive_loss, s.settings.eta0));
  }
  return report;
}

}  // namespace parsgd
