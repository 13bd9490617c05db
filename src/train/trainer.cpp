#include "parsgd/train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

#include "family.hpp"
#include "scheme_choice.hpp"
#include "start_model.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"
#include "parsgd/util/memory_limit.hpp"
#include "parsgd/util/rng.hpp"
#include "../util/xxhash64.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kOrderStream = 0x6f72646572;  // "order"

// The default run: about 10^6 updates, at least 10 epochs, at most 1000. Small sets need many passes
// to approach the optimum (seen on scikit-learn's bundled sets: 10 epochs stop 1-4 points of test
// accuracy short of an exact solver, 1000 match it); large sets are near it within 10.
int AutoEpochs(uint64_t rows) {
  constexpr uint64_t kUpdates = 1000000;
  return static_cast<int>(std::clamp<uint64_t>((kUpdates + rows - 1) / rows, 10, 1000));
}

// Default minibatch. Linear models: sync shares one global batch of 256 among the workers per step
// (a barrier each); the average scheme's replicas take minibatches of 32, so that the default
// period of 10 minibatches averages every 320 samples per worker; the others update per sample. The
// MLP: 64, whose matrix products already run near the cores' peak (bench/README.md).
int AutoBatch(const TrainConfig& config) {
  if (config.model == ModelKind::kMlp) return 64;
  return config.scheme == SchemeKind::kSync ? 256 : IsReplicaScheme(config.scheme) ? 32 : 1;
}

// Default period of the replica schemes: 10 minibatches (experiment 3 of docs/experiments.md: on
// convex models the period barely moves convergence, on the MLP a short one helps). Per-sample
// replicas (--batch 1) would then combine every 10 samples, where the two fork-joins of each
// combining step cost more than the training between them (0.14x the samples/s of one Hogwild!
// worker on the RCV1-shaped set, bench/README.md): they combine 10 times per epoch instead.
int AutoPeriod(const TrainConfig& config, uint64_t rows, int workers) {
  if (!IsReplicaScheme(config.scheme) || config.batch != 1) return 10;
  return static_cast<int>(std::min<uint64_t>(PerSampleReplicaPeriod(rows, workers), 1 << 30));
}

OptimizerKind AutoOptimizer(ModelKind model) {
  return model == ModelKind::kMlp ? OptimizerKind::kMomentum : OptimizerKind::kSgd;
}

double DefaultDecay(ScheduleKind kind) { return kind == ScheduleKind::kGeometric ? 0.9 : 1.0; }

// Parameters of the MLP with inputs `features`, the hidden sizes and `classes` outputs (64-bit: the
// feature count comes from the data and is checked here before MlpModel sees it as an int).
uint64_t MlpParams(const std::string& source, uint64_t features, const std::vector<int>& hidden,
                   uint64_t classes) {
  constexpr uint64_t kMaxInputs = uint64_t{1} << 24;  // LayoutMlp's bound on a layer size
  if (features > kMaxInputs) {
    throw Error(fmt::format("{}: {} features: an MLP takes at most 2^24 inputs", source, features));
  }
  std::vector<uint64_t> sizes = {features};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(classes);
  uint64_t params = 0;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) params += (sizes[l] + 1) * sizes[l + 1];
  return params;
}

// Refuses a model that cannot fit in memory before any of it is allocated. The feature and class
// counts come from the data: one stray index (LIBSVM "1 4294967295:1") would otherwise ask for tens
// of GiB and end in std::bad_alloc or the OOM killer. Counts two blocks the families certainly
// allocate: the parameters with their optimiser state, and before them (freed first) the linear
// models' per-feature statistics (28 bytes a feature, ScanFeatures). Everything else comes on
// top, so the check never refuses a run that could have fitted.
// `replicas`: the replica schemes' per-worker copies of the parameters and state (0 before the
// scheme is resolved, or for the other schemes), each with its worker's buffers of the same size.
void CheckModelFits(const TrainConfig& config, const Dataset& train, const ResolvedSettings& r,
                    int replicas = 0) {
  const bool linear = IsLinear(config.model);
  const uint64_t params =
      linear ? (train.features() + 1) * static_cast<uint64_t>(r.outputs)
             : MlpParams(train.source(), train.features(), config.hidden, r.outputs);
  const uint64_t copy_bytes = params * sizeof(float) * (1 + StateCount(r.optimizer));
  const uint64_t model_bytes = copy_bytes + static_cast<uint64_t>(replicas) * (copy_bytes + params * sizeof(float));
  const uint64_t stats_bytes = linear ? train.features() * 28 : 0;
  const uint64_t bytes = std::max(model_bytes, stats_bytes);
  const uint64_t usable = UsableMemoryBytes();
  if (bytes <= usable) return;
  constexpr double kGiB = double(uint64_t{1} << 30);
  std::string detail =
      replicas == 0
          ? fmt::format("{} parameters with optimiser state: {:.1f} GiB", params, model_bytes / kGiB)
          : fmt::format("{} parameters with optimiser state, and a copy of both and a gradient "
                        "for each of the {} replicas: {:.1f} GiB",
                        params, replicas, model_bytes / kGiB);
  if (linear) detail += fmt::format("; per-feature statistics: {:.1f} GiB", stats_bytes / kGiB);
  throw Error(fmt::format(
      "{}: {} features and {} outputs: training needs at least {:.1f} GiB of memory ({}), more "
      "than the {:.1f} GiB this process may use; is a feature index in the data far larger than "
      "intended, or are there far more distinct labels (one class each) than classes?",
      train.source(), train.features(), r.outputs, bytes / kGiB, detail, usable / kGiB));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
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

  TrainConfig config = given;  // with the automatic choices made
  if (config.optimizer.kind == OptimizerKind::kAuto) config.optimizer.kind = AutoOptimizer(config.model);
  ResolvedSettings& r = s.settings;
  r.optimizer = config.optimizer.kind;
  r.threads = executor.threads();
  r.outputs = IsBinary(config.model) ? 1 : s.train_targets.classes;
  r.features = train.features();
  CheckModelFits(config, train, r);
  if (config.scheme == SchemeKind::kAuto) {
    // The machine and the data are asked only where the rule needs them (scheme_choice.hpp).
    const bool asks = NeedsRoundTrip(config, r.threads);
    const double work = asks ? ReplicaWork(train, r.threads) : -1;
    const bool measure = asks && work < kReplicaWork;
    const double trip = measure ? MeasureRoundTripNs(executor) : -1;
    const bool near = trip >= 0 && trip <= kNearRoundTripNs;
    const double lines = measure && !near ? EffectiveWriteLines(train, r.outputs) : -1;
    SchemeChoice choice = ChooseScheme(config, r.threads, trip, lines, work);
    config.scheme = choice.scheme;
    if (config.batch == 0) config.batch = choice.batch;
    r.scheme_reason = std::move(choice.reason);
  }
  r.scheme = config.scheme;
  r.workers = config.scheme == SchemeKind::kSequential ? 1 : r.threads;
  if (IsReplicaScheme(config.scheme) && r.workers > 1) CheckModelFits(config, train, r, r.workers);
  r.batch = config.batch > 0 ? config.batch : AutoBatch(config);
  config.batch = r.batch;
  r.period = config.period >= 0 ? config.period : AutoPeriod(config, train.rows(), r.workers);
  config.period = r.period;
  r.decay = config.decay > 0 ? config.decay : DefaultDecay(config.schedule);
  r.epochs_auto = config.epochs == 0;
  r.epochs = r.epochs_auto ? AutoEpochs(train.rows()) : config.epochs;

  if (!IsLinear(config.model)) {
    s.family = MakeMlpFamily(config, train, s.train_targets, r);
  } else if (config.backend == Backend::kOffload) {
    s.family = MakeOffloadLinearFamily(config, train, s.train_targets, r);
  } else {
    s.family = MakeLinearFamily(config, train, s.train_targets, r);
  }
  if (config.scheme == SchemeKind::kSync && r.batch < r.workers) {
    throw SettingError(fmt::format("`batch` {} is smaller than the {} workers that share each minibatch",
                            r.batch, r.workers));
  }
  s.order.emplace(config.order, train.rows(), r.workers, DeriveSeed(config.seed, {kOrderStream}));
  s.step = StepSize(config.schedule, r.eta0, r.decay, r.epochs);
  // The config the run uses: every automatic setting resolved.
  config.epochs = r.epochs;
  config.learning_rate = r.eta0;
  config.decay = r.decay;
  config.l2 = r.l2;
  s.config = config;
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
  report.learning_rate = s.step.At(epoch, 1.0);

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
  report.eval_seconds = Seconds(eval_start);

  if (!std::isfinite(report.objective) || !std::isfinite(report.progressive_loss)) {
    throw SettingError(fmt::format(
        "epoch {}: the run diverged (objective {}, training loss {}); try a smaller "
        "`learning-rate` than {:.4g}",
        report.epoch, report.objective, report.progressive_loss, s.settings.eta0));
  }
  return report;
}

void Trainer::StartFrom(const std::variant<LinearModel, MlpModel>& model) {
  State& s = *state_;
  if (s.epochs_done > 0) {
    throw Error(fmt::format("Trainer::StartFrom after {} epochs: call it before the first",
                            s.epochs_done));
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
  // differs from the behaviour before it existed (as OuterSettings does).
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
  return SettingLines(kLines, c, true, derived) + OuterSettings(c);
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
