#include "parsgd/run/trainer.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "model/learner.hpp"
#include "model/linear/linear_learner.hpp"
#include "model/mlp/mlp_learner.hpp"
#include "model/mlp/partition/partitions.hpp"
#include "model/start_model.hpp"
#include "offload/offload_learner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/data/holdout.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"
#include "parsgd/util/rng.hpp"
#include "epoch_evaluation.hpp"
#include "ranks_combiner.hpp"
#include "run_data_checks.hpp"
#include "resolve.hpp"
#include "row_weights.hpp"
#include "scheme/replica_settings.hpp"
#include "stopping.hpp"
#include "util/xxhash64.hpp"

namespace parsgd {
namespace {

// A regression's bias starts at the targets' weighted mean over every rank's rows (`mean`,
// Resolution::target_mean; a boosting library's base score): the bias, never regularised, need not
// travel there step by step (targets in the hundreds took SGD's fixed-size steps many epochs).
void StartAtTheMeanTarget(Learner& learner, double mean) {
  LinearModel start = *learner.linear();
  start.weights()[start.features()] = static_cast<float>(mean);
  learner.StartFrom(start);
}

constexpr uint64_t kOrderStream = 0x6f72646572;  // "order"
constexpr uint64_t kHoldoutStream = 0x68656c64;  // "held"

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The identity of the training data of every rank together: the rows and nonzeros summed, and a
// hash of each rank's share (its rows and targets) hashed again in rank order. One rank: its own
// data's.
std::string DataIdentityOf(const Dataset& d, const Targets& t, Communicator& comm) {
  uint64_t h = Xxh64(d.offsets().data(), (d.rows() + 1) * sizeof(uint64_t), 0);
  h = Xxh64(d.indices().data(), d.nnz() * sizeof(uint32_t), h);
  h = Xxh64(d.values().data(), d.nnz() * sizeof(float), h);
  h = Xxh64(t.values.data(), t.values.size() * sizeof(float), h);
  // Weighted rows (scaled): a resumed run must weigh them alike. Unweighted rows leave the
  // identity as it is without weights.
  if (!t.weights.empty()) h = Xxh64(t.weights.data(), t.weights.size() * sizeof(float), h);
  uint64_t rows = d.rows(), nnz = d.nnz();
  if (comm.size() > 1) {
    const std::vector<uint64_t> shares = comm.Gather(h);
    h = Xxh64(shares.data(), shares.size() * sizeof(uint64_t), 0);
    rows = comm.Sum(rows);
    nnz = comm.Sum(nnz);
  }
  return fmt::format("rows={}\nfeatures={}\nnonzeros={}\nxxh64={:016x}\n", rows, d.features(), nnz,
                     h);
}

// The error of a run whose loss or objective is not finite.
SettingError Diverged(const EpochReport& report, double eta0) {
  return SettingError(fmt::format(
      "epoch {}: the run diverged (objective {}, training loss {}); try a smaller "
      "`learning-rate` than {:.4g}",
      report.epoch, report.evaluated ? fmt::format("{}", report.objective) : "not evaluated",
      report.progressive_loss, eta0));
}

// A setting the user gave that the scheme auto chose would ignore (ValidateConfig judged every
// other dimension before the scheme was known).
void RefuseIgnored(const CheckedConfig& checked, const Resolution& r, int ranks) {
  const TrainConfig& given = checked.config();
  for (const Setting& s : TrainSettings()) {
    if (!checked.Given(s)) continue;
    // --multiclass auto given: it made the run softmax, where the setting has no say.
    if (s.key == "multiclass" && !r.settings.multiclass_reason.empty()) continue;
    const std::string why = WhyNotApplied(s, r.config, ranks);
    if (why.empty()) continue;
    const std::string value = s.is_switch() ? "" : " " + SettingText(s, s.get(given));
    throw SettingError(fmt::format("`{}`{} would be ignored: {} (`scheme` auto chose it: {})",
                                   s.key, value, why, r.settings.scheme_reason));
  }
}

// Logistic on more than two classes under --multiclass auto trains as softmax (multinomial), where
// every setting the user gave applies to softmax; else one-vs-rest, as under --multiclass ovr.
bool AsSoftmax(const CheckedConfig& checked, const Targets& targets) {
  const TrainConfig& c = checked.config();
  if (c.model != ModelKind::kLogistic || c.multiclass != Multiclass::kAuto || !targets.one_vs_rest) {
    return false;
  }
  TrainConfig softmax = c;
  softmax.model = ModelKind::kSoftmax;
  try {
    ValidateConfig(softmax, checked.ranks(),
                   [&](const Setting& s) { return s.key != "multiclass" && checked.Given(s); });
  } catch (const SettingError&) {
    return false;
  }
  return true;
}

}  // namespace

struct Trainer::State {
  std::optional<Holdout> holdout;  // --validation-fraction: the rows kept and those held out
  const Dataset& train;
  const Dataset* test;
  const Dataset* validation = nullptr;  // held-out rows: holdout's, or a file's
  std::optional<Targets> validation_targets;
  Executor& executor;
  SoloCommunicator solo;
  Communicator* comm = &solo;  // the ranks of the run
  std::string data_identity;   // across ranks: made once, by every rank together
  ResolvedSettings settings;
  Targets train_targets;
  std::optional<Targets> test_targets;
  Weighted weighted;  // whether the training and test rows have weights, on any rank
  std::unique_ptr<Learner> learner;
  std::optional<SampleOrder> order;
  StepSize step;
  TrainConfig config;                     // resolved
  std::optional<RanksCombiner> combiner;  // across ranks, under average and gossip
  int epochs_done = 0;
  StoppingRules stopping;

  State(const TrainConfig& given, const Dataset& tr, const Dataset* te, const Dataset* held,
        Executor& ex, int rank)
      : holdout(given.validation_fraction > 0
                    ? std::optional<Holdout>(HoldOut(
                          tr, given.validation_fraction,
                          DeriveSeed(given.seed, {kHoldoutStream, static_cast<uint64_t>(rank)})))
                    : std::nullopt),
        train(holdout ? holdout->kept : tr),
        test(te),
        validation(holdout ? &holdout->held : held),
        executor(ex) {}
};

Trainer::Trainer(const TrainConfig& config, const Dataset& train_rows, const Dataset* test,
                 Executor& executor, Communicator* comm, const Dataset* validation)
    : Trainer(CheckedConfig(config, comm != nullptr ? comm->size() : 1), train_rows, test, executor,
              comm, validation) {}

Trainer::Trainer(const CheckedConfig& checked, const Dataset& train_rows, const Dataset* test,
                 Executor& executor, Communicator* comm, const Dataset* validation) {
  TrainConfig given = checked.config();  // the model may turn softmax once the classes are known
  if (given.held_out_file != (validation != nullptr)) {
    throw Error(validation != nullptr
                    ? "Trainer: held-out rows given without the config's held_out_file"
                    : "Trainer: the config's held_out_file is set but no held-out rows are given");
  }
  state_ = std::make_unique<State>(given, train_rows, test, validation, executor,
                                   comm != nullptr ? comm->rank() : 0);
  State& s = *state_;
  const Dataset& train = s.train;
  if (comm != nullptr) s.comm = comm;
  Communicator& ranks = *s.comm;
  const bool shared = ranks.size() > 1;
  if (checked.ranks() != ranks.size()) {
    throw Error(fmt::format("Trainer: the settings were checked for {} ranks; the run has {}",
                            checked.ranks(), ranks.size()));
  }
  // Every step that may fail on one rank alone is agreed on before the next collective one.
  CheckTrainingRows(train, ranks);
  const bool one_vs_rest = given.multiclass != Multiclass::kOff;
  s.train_targets = shared ? MakeShareTargets(given.model, train, ranks, one_vs_rest)
                           : MakeTargets(given.model, train, one_vs_rest);
  std::string multiclass_reason;
  if (AsSoftmax(checked, s.train_targets)) {
    given.model = ModelKind::kSoftmax;
    s.train_targets.one_vs_rest = false;
    multiclass_reason = fmt::format(
        "logistic on {} classes trains one softmax over them (multinomial, as scikit-learn's "
        "LogisticRegression); --multiclass ovr trains a binary model a class",
        s.train_targets.classes);
  }
  if (s.train_targets.one_vs_rest &&
      (given.solver != Solver::kSgd || given.backend != Backend::kCpu)) {
    ranks.AgreeOn([&] {
      throw SettingError(fmt::format(
          "`model` {} on {} classes trains one-vs-rest under `solver` sgd on `backend` cpu, not "
          "{}; model softmax takes more than two classes under `solver` sgd, on either backend",
          NameOf<ModelKind>(kModelKinds, given.model), s.train_targets.classes,
          given.solver != Solver::kSgd
              ? fmt::format("`solver` {}", NameOf<Solver>(kSolvers, given.solver))
              : std::string("`backend` offload")));
    });
  }
  ranks.AgreeOn([&] {
    if (test != nullptr) s.test_targets = MakeTargets(given.model, *test, s.train_targets.labels);
    if (s.validation != nullptr) {
      s.validation_targets = MakeTargets(given.model, *s.validation, s.train_targets.labels);
    }
  });
  s.weighted =
      WeighRows(given, train, s.train_targets, s.test_targets, s.validation_targets, ranks);
  if (s.validation != nullptr) {
    ranks.AgreeOn([&] {
      CheckValidationMetric(given.validation_metric, s.train_targets.regression,
                            s.train_targets.classes, ranks.size());
    });
  }

  Resolution r = Resolve(given, train, s.train_targets, executor, ranks);
  r.settings.multiclass_reason = std::move(multiclass_reason);
  const TrainConfig& config = r.config;
  if (given.scheme == SchemeKind::kAuto) {
    ranks.AgreeOn([&] { RefuseIgnored(checked, r, ranks.size()); });
  }
  // Across ranks the outer optimiser acts on the ranks' average (RanksCombiner), not inside a rank.
  TrainConfig inside = config;
  if (shared) inside.outer = OuterConfig{};
  ranks.AgreeOn([&] {
    if (!IsLinear(config.model)) {
      s.learner =
          MakeMlpLearner(inside, r.settings, std::move(r.input_scale), train, s.train_targets);
    } else if (config.backend == Backend::kOffload) {
      s.learner = MakeOffloadLearner(inside, r.settings, std::move(r.rates), r.device, train,
                                     s.train_targets);
    } else {
      s.learner = MakeLinearLearner(inside, r.settings, std::move(r.rates), std::move(r.l1_rates),
                                    train, s.train_targets);
    }
  });
  if (s.train_targets.regression && config.bias == Bias::kOn) {
    StartAtTheMeanTarget(*s.learner, r.target_mean);
  }
  if (shared && config.ranks_scheme != RanksScheme::kSync) {
    s.combiner.emplace(config, s.learner->RankArrays(false)[0].size());
  }
  // Each rank its own stream of orders over its own rows.
  const uint64_t seed =
      shared ? DeriveSeed(config.seed, {kOrderStream, static_cast<uint64_t>(ranks.rank())})
             : DeriveSeed(config.seed, {kOrderStream});
  s.order.emplace(config.order, train.rows(), r.settings.shards, seed, r.settings.rows_per_block);
  s.step = StepSize(config.schedule, r.settings.eta0, r.settings.decay, r.settings.epochs);
  s.config = std::move(r.config);
  s.settings = std::move(r.settings);
  if (shared) s.data_identity = DataIdentityOf(train, s.train_targets, ranks);
}

Trainer::~Trainer() = default;

const ResolvedSettings& Trainer::settings() const { return state_->settings; }
const TrainConfig& Trainer::config() const { return state_->config; }
const std::vector<double>& Trainer::class_weights() const { return state_->weighted.classes; }
int Trainer::epochs_done() const { return state_->epochs_done; }
bool Trainer::early_stopping() const { return state_->validation != nullptr; }
std::optional<EpochReport> Trainer::best_epoch() const { return state_->stopping.early.best; }

void Trainer::UseBestEpoch() {
  State& s = *state_;
  const EarlyStop& early = s.stopping.early;
  if (!early.best || early.best->epoch == s.epochs_done || !early.model) return;
  std::visit([&](const auto& m) { s.learner->StartFrom(m); }, *early.model);
}
Communicator& Trainer::communicator() const { return *state_->comm; }

const LinearModel& Trainer::model() const {
  const LinearModel* m = state_->learner->linear();
  if (m == nullptr) throw Error("Trainer::model(): the model is not linear; use mlp_model()");
  return *m;
}

const MlpModel& Trainer::mlp_model() const {
  const MlpModel* m = state_->learner->mlp();
  if (m == nullptr) throw Error("Trainer::mlp_model(): the model is linear; use model()");
  return *m;
}

EpochReport Trainer::RunEpoch(bool evaluate) {
  // The executor's workers flush subnormals themselves; this covers the calling thread's own work
  // (the offload kernels it launches, whose host-fallback teams start from its mode).
  FlushDenormalsScope flush;
  State& s = *state_;
  Communicator& ranks = *s.comm;
  const bool shared = ranks.size() > 1;
  const uint64_t epoch = static_cast<uint64_t>(s.epochs_done);
  const auto start = std::chrono::steady_clock::now();
  const std::atomic<bool>& stop = s.executor.stop_flag();
  s.order->PrepareEpoch(epoch);
  EpochTotals totals;
  double comm_seconds = 0;
  bool stopped = false;
  const uint64_t parts = s.settings.rank_parts;
  // Under --ranks-scheme sync the sync scheme sums every step's gradient over the ranks.
  Communicator* sums = shared && !s.combiner ? &ranks : nullptr;
  if (s.combiner) s.combiner->StartEpoch(*s.learner);
  for (uint64_t part = 0; part < parts && !stopped; ++part) {
    EpochTotals t;
    // A worker's error on one rank ends every rank (after the part it was in).
    ranks.AgreeOn([&] {
      t = s.learner->RunEpoch(epoch, *s.order, s.step, s.executor, {part, parts, sums});
    });
    totals.loss_sum += t.loss_sum;
    totals.updates += t.updates;
    comm_seconds += t.comm_seconds;
    totals.exchanged_bytes += t.exchanged_bytes;
    totals.busy_seconds += t.busy_seconds;
    totals.stage_seconds += t.stage_seconds;
    totals.partial = totals.partial || t.partial;
    const auto combine_start = std::chrono::steady_clock::now();
    stopped = shared ? ranks.Max(stop.load(std::memory_order_relaxed) ? 1 : 0) != 0
                     : stop.load(std::memory_order_relaxed);
    if (s.combiner && !stopped) s.combiner->Combine(*s.learner, ranks, part + 1 == parts);
    comm_seconds += Seconds(combine_start);
  }
  CheckFilesUnchanged({&s.train, s.test, s.validation}, epoch + 1, ranks);
  // Arrays the ranks average at every epoch's end (--asgd's means), whatever their scheme.
  if (shared && !stopped) {
    for (const std::span<float> mean : s.learner->RankMeans()) ranks.MeanAll(mean);
  }
  if (shared) SumOverRanks(totals, ranks);
  EpochReport report;
  report.partial = totals.partial;
  report.train_seconds = Seconds(start);
  report.comm_seconds = comm_seconds;
  report.epoch = ++s.epochs_done;
  report.updates = totals.updates;
  report.exchanged_bytes = totals.exchanged_bytes;
  if (totals.stage_seconds > 0) report.bubble = 1 - totals.busy_seconds / totals.stage_seconds;
  report.progressive_loss = totals.updates > 0 ? totals.loss_sum / totals.updates : 0;
  // The dual solver takes exact steps: no step size to report.
  report.learning_rate = s.config.solver == Solver::kSgd ? s.step.At(epoch, 1.0) : 0.0;

  if (stopped) {
    report.interrupted = true;  // a partial epoch: not worth an evaluation pass
    return report;
  }
  const auto done = static_cast<uint64_t>(s.epochs_done);
  const bool replayed_end = s.stopping.Replayed(done, s.step);
  if (!evaluate) {
    report.converged = replayed_end;
    report.evaluated = false;
    if (!std::isfinite(report.progressive_loss)) throw Diverged(report, s.settings.eta0);
    return report;
  }

  const auto eval_start = std::chrono::steady_clock::now();
  EvaluateEpoch(report, *s.learner,
                {.train = s.train,
                 .train_targets = s.train_targets,
                 .test = s.test,
                 .test_targets = s.test_targets ? &*s.test_targets : nullptr,
                 .validation = s.validation,
                 .validation_targets = s.validation_targets ? &*s.validation_targets : nullptr,
                 .weighted = s.weighted,
                 .metric = s.config.validation_metric},
                s.executor, ranks);
  report.eval_seconds = Seconds(eval_start);

  if (!std::isfinite(report.objective) || !std::isfinite(report.progressive_loss)) {
    throw Diverged(report, s.settings.eta0);
  }
  report.converged = s.stopping.Decide(
      report, replayed_end, s.config, s.settings.tol, done, s.step, s.validation != nullptr, [&] {
        const LinearModel* linear = s.learner->linear();
        return linear ? Model(*linear) : Model(*s.learner->mlp());
      });
  return report;
}

void Trainer::Replay(int last, std::vector<uint64_t> cuts) {
  State& s = *state_;
  if (s.epochs_done > 0 || last < 1 || last > s.settings.epochs) {
    throw Error(fmt::format("Trainer::Replay to epoch {} after {} epochs of a run of {}", last,
                            s.epochs_done, s.settings.epochs));
  }
  s.stopping.plan = {.cuts = std::move(cuts), .replay_last = last};
}
const std::vector<uint64_t>& Trainer::step_cuts() const { return state_->stopping.plan.cuts; }

void Trainer::StartFrom(const Model& model) {
  State& s = *state_;
  if (s.epochs_done > 0) {
    throw Error(
        fmt::format("Trainer::StartFrom after {} epochs: call it before the first", s.epochs_done));
  }
  if (s.config.solver == Solver::kDualCd) {
    // Its steps need the weights to be w(a) = sum_i a_i y_i x_i, and no a gives a trained model's.
    throw SettingError(
        "`solver` dual-cd starts from its dual variables at 0 (the weights are their "
        "combination); it cannot start from a trained model");
  }
  const std::string mismatch = StartModelMismatch(model, s.config, s.settings, s.train_targets);
  if (!mismatch.empty()) {
    throw Error(fmt::format("the model does not fit this run on {}:\n{}", s.train.source(),
                            mismatch.substr(0, mismatch.size() - 1)));
  }
  std::visit([&](const auto& m) { s.learner->StartFrom(m); }, model);
}

TrainingState Trainer::Snapshot() const {
  TrainingState state;
  state_->learner->Save(state);
  if (state_->combiner) state_->combiner->Save(state);
  state.Put("epochs_done", static_cast<uint64_t>(state_->epochs_done));
  const StoppingRules& rules = state_->stopping;
  SaveEarlyStop(rules.early, state);
  if (state_->config.schedule == ScheduleKind::kAdaptive) {
    SaveAdaptive(state_->step, rules.progress, rules.early, state);
  }
  return state;
}

void Trainer::Restore(const TrainingState& state) {
  State& s = *state_;
  const uint64_t epochs = state.Counter("epochs_done");
  if (epochs > static_cast<uint64_t>(s.settings.epochs)) {
    throw Error(fmt::format("the checkpoint is after epoch {}, beyond this run's {} epochs", epochs,
                            s.settings.epochs));
  }
  s.learner->Load(state);
  if (s.combiner) s.combiner->Load(state);
  s.epochs_done = static_cast<int>(epochs);
  StoppingRules& rules = s.stopping;
  if (s.validation != nullptr) {
    if (const LinearModel* m = s.learner->linear()) {
      LoadEarlyStop(state, *m, rules.early);
    } else {
      LoadEarlyStop(state, *s.learner->mlp(), rules.early);
    }
  }
  if (s.config.schedule == ScheduleKind::kAdaptive) {
    LoadAdaptive(state, epochs, s.step, rules.progress, rules.early);
  }
}

std::string Trainer::RunIdentity() const {
  // Its version first; then every setting that shapes the run, as the settings table records it
  // (SettingRecord: a checkpoint is compared key by key, so a setting added later is written only
  // where it differs from the behaviour before it existed), and what the run derived.
  const State& s = *state_;
  const ResolvedSettings& r = s.settings;
  std::string out = fmt::format("identity={}\n", kIdentityVersion) + IdentityLines(s.config) +
                    fmt::format("workers={}\noutputs={}\nfeatures={}\n", r.workers, r.outputs,
                                r.features);
  if (r.ranks > 1) {
    out += fmt::format("ranks={}\nranks_scheme={}\nranks_period={}\n", r.ranks,
                       NameOf<RanksScheme>(kRanksSchemes, s.config.ranks_scheme), r.ranks_period);
  }
  return out;
}

std::string Trainer::SchemeDetails() const {
  const State& s = *state_;
  switch (SchemeOf(s.settings.scheme).family) {
    case SchemeFamily::kReplica:
      // Across ranks the outer optimiser acts on the ranks' average (the ranks' line says it).
      return DescribeReplicas(s.config, s.settings, s.settings.ranks == 1);
    case SchemeFamily::kPartition:
      return DescribePartition(s.settings);
    default:
      return "";
  }
}

std::string Trainer::DataIdentity() const {
  const State& s = *state_;
  if (!s.data_identity.empty()) return s.data_identity;
  return DataIdentityOf(s.train, s.train_targets, *s.comm);
}

}  // namespace parsgd
