#include "parsgd/run/trainer.hpp"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <utility>
#include <string>

#include "../offload/offload_family.hpp"
#include "../train/family.hpp"
#include "../train/start_model.hpp"
#include "../util/xxhash64.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"
#include "parsgd/util/rng.hpp"
#include "resolve.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kOrderStream = 0x6f72646572;  // "order"

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The stopping rule without a dual (ResolvedSettings::tol): the objective has not fallen below the
// best so far by more than tol of it for `patience` epochs in a row: 5 for SGD (scikit-learn's rule
// and its n_iter_no_change = 5: a stochastic objective rises now and then), 1 for primal cd (whose
// epochs lower it every time). Counted within this process: a resumed run starts counting afresh.
struct Progress {
  std::optional<double> best;
  int stale = 0;

  bool Stalled(double objective, double tol, int patience) {
    if (best && objective > *best - tol * std::abs(*best)) {
      ++stale;
    } else {
      stale = 0;
    }
    if (!best || objective < *best) best = objective;
    return stale >= patience;
  }
};

// The stopping rule after an epoch: the relative duality gap where the solver has a dual, else
// Progress.
bool Converged(const EpochReport& r, Progress& progress, double tol, Solver solver) {
  if (tol <= 0) return false;
  if (const std::optional<double> gap = r.relative_gap()) return *gap <= tol;
  return progress.Stalled(r.objective, tol, solver == Solver::kSgd ? 5 : 1);
}

}  // namespace

struct Trainer::State {
  const Dataset& train;
  const Dataset* test;
  Executor& executor;
  ResolvedSettings settings;
  Targets train_targets;
  std::optional<Targets> test_targets;
  std::unique_ptr<ModelFamily> family;
  std::optional<SampleOrder> order;
  StepSize step;
  TrainConfig config;  // resolved
  int epochs_done = 0;
  Progress progress;

  State(const Dataset& tr, const Dataset* te, Executor& ex) : train(tr), test(te), executor(ex) {}
};

Trainer::Trainer(const TrainConfig& given, const Dataset& train, const Dataset* test,
                 Executor& executor)
    : state_(std::make_unique<State>(train, test, executor)) {
  ValidateConfig(given);
  State& s = *state_;
  if (train.rows() == 0) throw Error(train.source() + ": no training rows");
  s.train_targets = MakeTargets(given.model, train);
  if (test != nullptr) s.test_targets = MakeTargets(given.model, *test, s.train_targets.labels);

  Resolution r = Resolve(given, train, s.train_targets, executor);
  const TrainConfig& config = r.config;
  if (!IsLinear(config.model)) {
    s.family = MakeMlpFamily(config, r.settings, train, s.train_targets);
  } else if (config.backend == Backend::kOffload) {
    s.family = MakeOffloadLinearFamily(config, r.settings, std::move(r.rates), r.device, train,
                                       s.train_targets);
  } else {
    s.family = MakeLinearFamily(config, r.settings, std::move(r.rates), train, s.train_targets);
  }
  s.order.emplace(config.order, train.rows(), r.settings.workers,
                  DeriveSeed(config.seed, {kOrderStream}));
  s.step = StepSize(config.schedule, r.settings.eta0, r.settings.decay, r.settings.epochs);
  s.config = std::move(r.config);
  s.settings = std::move(r.settings);
}

Trainer::~Trainer() = default;

const ResolvedSettings& Trainer::settings() const { return state_->settings; }
const TrainConfig& Trainer::config() const { return state_->config; }
int Trainer::epochs_done() const { return state_->epochs_done; }

const LinearModel& Trainer::model() const {
  const LinearModel* m = state_->family->linear();
  if (m == nullptr) throw Error("Trainer::model(): the model is not linear; use mlp_model()");
  return *m;
}

const MlpModel& Trainer::mlp_model() const {
  const MlpModel* m = state_->family->mlp();
  if (m == nullptr) throw Error("Trainer::mlp_model(): the model is linear; use model()");
  return *m;
}

EpochReport Trainer::RunEpoch() {
  // The executor's workers flush subnormals themselves; this covers the calling thread's own work
  // (the offload kernels it launches, whose host-fallback teams start from its mode).
  FlushDenormalsScope flush;
  State& s = *state_;
  const uint64_t epoch = static_cast<uint64_t>(s.epochs_done);
  const auto start = std::chrono::steady_clock::now();
  s.order->PrepareEpoch(epoch);
  const EpochTotals totals = s.family->RunEpoch(epoch, *s.order, s.step, s.executor);
  EpochReport report;
  report.train_seconds = Seconds(start);
  report.epoch = ++s.epochs_done;
  report.updates = totals.updates;
  report.progressive_loss = totals.updates > 0 ? totals.loss_sum / totals.updates : 0;
  // The dual solver takes exact steps: no step size to report.
  report.learning_rate = s.config.solver == Solver::kSgd ? s.step.At(epoch, 1.0) : 0.0;

  if (s.executor.stop_flag().load(std::memory_order_relaxed)) {
    report.interrupted = true;  // a partial epoch: not worth an evaluation pass
    return report;
  }

  const auto eval_start = std::chrono::steady_clock::now();
  const Evaluation on_train = s.family->Evaluate(s.train, s.train_targets, s.executor);
  report.objective = on_train.mean_loss + s.family->Regularizer();
  report.train_accuracy = on_train.accuracy;
  if (s.test != nullptr) {
    const Evaluation on_test = s.family->Evaluate(*s.test, *s.test_targets, s.executor);
    report.test_loss = on_test.mean_loss;
    report.test_accuracy = on_test.accuracy;
  }
  report.dual_objective = s.family->DualObjective();
  report.eval_seconds = Seconds(eval_start);

  if (!std::isfinite(report.objective) || !std::isfinite(report.progressive_loss)) {
    throw SettingError(fmt::format(
        "epoch {}: the run diverged (objective {}, training loss {}); try a smaller "
        "`learning-rate` than {:.4g}",
        report.epoch, report.objective, report.progressive_loss, s.settings.eta0));
  }
  report.converged = Converged(report, s.progress, s.settings.tol, s.config.solver);
  return report;
}

void Trainer::StartFrom(const Model& model) {
  State& s = *state_;
  if (s.epochs_done > 0) {
    throw Error(fmt::format("Trainer::StartFrom after {} epochs: call it before the first",
                            s.epochs_done));
  }
  if (s.config.solver == Solver::kDualCd) {
    // Its steps need the weights to be w(a) = sum_i a_i y_i x_i, and no a gives a trained model's.
    throw SettingError("`solver` dual-cd starts from its dual variables at 0 (the weights are their "
                       "combination); it cannot start from a trained model");
  }
  const std::string mismatch = StartModelMismatch(model, s.config, s.settings, s.train_targets);
  if (!mismatch.empty()) {
    throw Error(fmt::format("the model does not fit this run on {}:\n{}", s.train.source(),
                            mismatch.substr(0, mismatch.size() - 1)));
  }
  std::visit([&](const auto& m) { s.family->StartFrom(m); }, model);
}

TrainingState Trainer::Snapshot() const {
  TrainingState state;
  state_->family->Save(state);
  state.Put("epochs_done", static_cast<uint64_t>(state_->epochs_done));
  return state;
}

void Trainer::Restore(const TrainingState& state) {
  State& s = *state_;
  const uint64_t epochs = state.Counter("epochs_done");
  if (epochs > static_cast<uint64_t>(s.settings.epochs)) {
    throw Error(fmt::format("the checkpoint is after epoch {}, beyond this run's {} epochs", epochs,
                            s.settings.epochs));
  }
  s.family->Load(state);
  s.epochs_done = static_cast<int>(epochs);
}

std::string Trainer::RunIdentity() const {
  // The order checkpoints have written since their first format: a checkpoint is compared line by
  // line, so never rename or reorder these; a new setting goes at the end, written only where it
  // differs from the behaviour before it existed (AddedSettings).
  static constexpr SettingLine kLines[] = {
      {"model", "model"},   {"scheme", "scheme"},       {"order", "order"},
      {"backend", "backend"}, {"workers", nullptr},     {"epochs", "epochs"},
      {"eta0", "learning-rate"}, {"schedule", "schedule"}, {"decay", "decay"},
      {"l2", "l2"},         {"normalize", "normalize"}, {"optimizer", "optimizer"},
      {"momentum", "momentum"}, {"rho", "rho"},         {"beta1", "beta1"},
      {"beta2", "beta2"},   {"epsilon", "epsilon"},     {"batch", "batch"},
      {"period", "period"}, {"average_state", "average-state"}, {"hidden", nullptr},
      {"mlp_backend", nullptr}, {"seed", "seed"},       {"outputs", nullptr},
      {"features", nullptr}};
  const State& s = *state_;
  const TrainConfig& c = s.config;
  const ResolvedSettings& r = s.settings;
  auto derived = [&](std::string_view name) -> std::string {
    if (name == "workers") return std::to_string(r.workers);
    if (name == "outputs") return std::to_string(r.outputs);
    if (name == "features") return std::to_string(r.features);
    // The MLP's shape and engine; "-" for the linear models, which have neither.
    if (c.model != ModelKind::kMlp) return "-";
    return FormatSetting(FindSetting(name == "hidden" ? "hidden" : "mlp-backend").get(c), true);
  };
  return SettingLines(kLines, c, true, derived) + AddedSettings(c);
}

std::string Trainer::DataIdentity() const {
  const Dataset& d = state_->train;
  uint64_t h = Xxh64(d.offsets().data(), (d.rows() + 1) * sizeof(uint64_t), 0);
  h = Xxh64(d.indices().data(), d.nnz() * sizeof(uint32_t), h);
  h = Xxh64(d.values().data(), d.nnz() * sizeof(float), h);
  const Targets& t = state_->train_targets;
  h = Xxh64(t.values.data(), t.values.size() * sizeof(float), h);
  return fmt::format("rows={}\nfeatures={}\nnonzeros={}\nxxh64={:016x}\n", d.rows(), d.features(),
                     d.nnz(), h);
}

}  // namespace parsgd
