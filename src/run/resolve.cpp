// Resolve (resolve.hpp): every automatic setting of a run, in one place and one order.
#include "resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/linear/linear_settings.hpp"
#include "model/mlp/partition/partitions.hpp"
#include "offload/offload_learner.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/kernel/isa.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/memory_limit.hpp"
#include "scheme_choice.hpp"
#include "scheme/replica_settings.hpp"
#include "solver/solvers.hpp"

namespace parsgd {
namespace {

// The default run: about 10^6 updates, at least 10 epochs, at most 1000. Small sets need many
// passes to approach the optimum (seen on scikit-learn's bundled sets: 10 epochs stop 1-4 points of
// test accuracy short of an exact solver, 1000 match it); large sets are near it within 10.
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
  if (config.solver != Solver::kSgd) return 1;              // coordinate steps
  if (config.schedule == ScheduleKind::kOptimal) return 1;  // per-sample steps (ValidateConfig)
  return config.scheme == SchemeKind::kSync ? 256 : IsReplicaScheme(config.scheme) ? 32 : 1;
}


// The coordinate-descent solvers' default stopping rules and cap. The dual solver stops at a
// relative duality gap (which bounds the primal's own distance to the optimum) of 1e-5 for the
// smooth losses (logistic, squared hinge), whose duals close it in a few passes, and 1e-4 for the
// hinge loss, whose gap closes slowly: on the RCV1-shaped set of bench/README.md, 5 to 6 passes
// (logistic) and 45 passes; both leave the primal below or within 1e-5 of LIBLINEAR's at its
// defaults. Primal cd stops at an epoch that lowers the objective by at most 1e-6 of it; newton at
// a step that lowers it by at most 1e-5 of it: near the optimum a Newton step leaves far less than
// it takes (on Fashion-MNIST's T-shirt against the rest, a step of 1.7e-6 left 2e-9), and the step
// after costs the most inner iterations of the run. At most 1000 epochs (LIBLINEAR's cap too).
constexpr double kDualGapTol = 1e-4;
constexpr double kSmoothDualGapTol = 1e-5;
constexpr double kPrimalCdTol = 1e-6;
constexpr double kNewtonTol = 1e-5;
// The adaptive schedule's stall: --patience epochs that lower the best objective by at most this
// of the first epoch's (scikit-learn's tol of 1e-3). On eleven small tables (bench/README.md,
// "Small tables") the runs end after 37-82 epochs; 1e-4 ended them after 43-150, at the same test
// accuracy within a test row or two.
constexpr double kAdaptiveTol = 1e-3;
// --schedule auto: adaptive from this many planned epochs, where the run can end at a stall. Under
// the sample budget these are the sets of at most 20,000 rows, whose objective flattens long
// before the plan's end; a shorter plan (10 to 49 epochs: the larger sets) is all the run gets, and
// the linear schedule's step, annealed to 0 at its end, gives their best last epoch
// (bench/README.md, "Defaults on sets nobody tuned on").
constexpr int kAdaptiveFromEpochs = 50;
constexpr int kCoordinateEpochs = 1000;


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

// What a coordinate solver allocates beside the model, at least. cd: the column copy of the rows
// (an index and a value a nonzero, an offset a column) with the rows themselves (in memory
// already: the copy sits beside them) and the scores X w. dual-cd: a dual variable a row and w(a)
// in double; for the logistic dual the variable's complement, for the SVMs' the row's flag and its
// place in a shard.
// newton: the column copy or 64 row blocks' sums (NewtonSumsByRows), six numbers a row and seven a
// coordinate.
uint64_t SolverBytes(const TrainConfig& config, const Dataset& train) {
  const uint64_t n = train.rows(), d = train.features(), entries = 8 * train.nnz();
  if (config.solver == Solver::kCd)
    return (entries + 8 * (n + 1)) + (entries + 8 * (d + 1)) + 4 * n;
  if (config.solver == Solver::kNewton) {
    const uint64_t sums = NewtonSumsByRows(d, train.nnz()) ? 64 * 20 * (d + 1)
                                                           : entries + 8 * (d + 1);
    return (entries + 8 * (n + 1)) + sums + 36 * n + 68 * (d + 1);
  }
  if (config.solver == Solver::kDualCd)
    return n * (config.model == ModelKind::kLogistic ? 8 : 9) + 8 * d;
  return 0;
}

// Refuses a model that cannot fit in memory before any of it is allocated. The feature and class
// counts come from the data: one stray index (LIBSVM "1 4294967295:1") would otherwise ask for tens
// of GiB and end in std::bad_alloc or the OOM killer. Counts two blocks the learners certainly
// allocate: the parameters with their optimiser state, and before them (freed first) the linear
// models' per-feature statistics (ScanFeatures: a 32-byte record a feature, copied into four
// arrays of 28 bytes a feature before the records are freed: 60 bytes a feature at its peak).
// Everything else comes on top, so the check never refuses a run that could have fitted.
// `replicas`: the replica schemes' per-worker copies of the parameters and state (0 before the
// scheme is resolved, or for the other schemes), each with its worker's buffers of the same size.
// The coordinate solvers' own arrays come on top of the model (SolverBytes); cd's column copy of
// the data is checked with the rows it copies, which are in memory already.
void CheckModelFits(const TrainConfig& config, const Dataset& train, const ResolvedSettings& r,
                    int replicas = 0) {
  const bool linear = IsLinear(config.model);
  const uint64_t params =
      linear ? (train.features() + 1) * static_cast<uint64_t>(r.outputs)
             : MlpParams(train.source(), train.features(), config.hidden, r.outputs);
  const uint64_t copy_bytes = params * sizeof(float) * (1 + StateCount(r.optimizer));
  const uint64_t model_bytes =
      copy_bytes + static_cast<uint64_t>(replicas) * (copy_bytes + params * sizeof(float));
  const uint64_t stats_bytes = linear ? train.features() * 60 : 0;
  const uint64_t solver_bytes = SolverBytes(config, train);
  const uint64_t bytes = std::max(model_bytes + solver_bytes, stats_bytes);
  const uint64_t usable = UsableMemoryBytes();
  if (bytes <= usable) return;
  constexpr double kGiB = double(uint64_t{1} << 30);
  std::string detail =
      replicas == 0 ? fmt::format("{} parameters with optimiser state: {:.1f} GiB", params,
                                  model_bytes / kGiB)
                    : fmt::format(
                          "{} parameters with optimiser state, and a copy of both and a gradient "
                          "for each of the {} replicas: {:.1f} GiB",
                          params, replicas, model_bytes / kGiB);
  if (linear) detail += fmt::format("; per-feature statistics: {:.1f} GiB", stats_bytes / kGiB);
  if (config.solver == Solver::kCd) {
    detail +=
        fmt::format("; the rows and cd's column copy of them: {:.1f} GiB", solver_bytes / kGiB);
  } else if (config.solver == Solver::kNewton) {
    detail +=
        fmt::format("; the rows and newton's sums over them: {:.1f} GiB", solver_bytes / kGiB);
  } else if (config.solver == Solver::kDualCd) {
    detail += fmt::format("; dual-cd's dual variables: {:.1f} GiB", solver_bytes / kGiB);
  }
  throw Error(fmt::format(
      "{}: {} features and {} outputs: training needs at least {:.1f} GiB of memory ({}), more "
      "than the {:.1f} GiB this process may use; is a feature index in the data far larger than "
      "intended, or are there far more distinct labels (one class each) than classes?",
      train.source(), train.features(), r.outputs, bytes / kGiB, detail, usable / kGiB));
}

// Momentum 0.05 is the configuration measured against PyTorch (784-256-128-10, batch 64, momentum
// 0.9). The others: the best of a 3x grid of rates on Fashion-MNIST after 3 epochs
// (bench/README.md) or torch.optim's default where it was within 0.7 points of it (RMSProp, Adam).
double MlpAutoEta0(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov:
      return 0.05;
    case OptimizerKind::kAdaGrad:
      return 0.01;
    case OptimizerKind::kRmsProp:
    case OptimizerKind::kAdam:
      return 0.001;
    case OptimizerKind::kSgd:
    case OptimizerKind::kAuto:
      break;
  }
  return 0.3;
}

// The MLP's input scaling (--normalize maxabs): each feature by 1 / max |x_j| over the training
// rows of every rank.
std::vector<float> MlpInputScale(const Dataset& train, Communicator& comm) {
  std::vector<float> max_abs(train.features(), 0.f);
  for (uint64_t e = 0; e < train.nnz(); ++e) {
    float& m = max_abs[train.indices()[e]];
    m = std::max(m, std::abs(train.values()[e]));
  }
  if (comm.size() > 1) comm.MaxAllMagnitudes(max_abs);
  for (float& m : max_abs) m = m > 0 ? 1.f / m : 1.f;
  return max_abs;
}

// --scheme auto: the machine and the data are asked only where the rule needs them
// (run/scheme_choice.hpp).
SchemeChoice AutoScheme(const TrainConfig& config, const Dataset& train, int threads, int outputs,
                        Executor& executor) {
  const bool asks = NeedsRoundTrip(config, threads);
  const bool per_sample = config.batch <= 1;  // minibatches: sync or sequential, by the distance
  const double work = asks && per_sample ? ReplicaWork(train, threads) : -1;
  const double epoch_work =
      asks && per_sample ? static_cast<double>(train.nnz()) * std::max(outputs, 1) : -1;
  const bool measure = asks && work < kReplicaWork && !(per_sample && epoch_work < kShareableWork);
  const double trip = measure ? MeasureRoundTripNs(executor) : -1;
  const bool near = trip >= 0 && trip <= kNearRoundTripNs;
  const double lines = measure && !near && per_sample ? EffectiveWriteLines(train, outputs) : -1;
  return ChooseScheme(config, threads, trip, lines, work, epoch_work);
}

// The coordinate-descent solvers under --scheme auto. dual-cd: one worker (sequential) at any
// thread count, the other threads reading the data and evaluating: two Hogwild! workers
// (PASSCoDe-Wild) ran slower than one on each of the three losses on the RCV1-shaped text (the
// workers' writes to the weights of the frequent features, and the weights set back to w(a) after
// every epoch; bench/README.md, "The coordinate-descent solvers against LIBLINEAR"); its scaling
// on many cores is unmeasured. cd: one worker on one thread; else Shotgun (hogwild: a step writes
// only its own column's scores), or under --deterministic the average scheme (a copy of the scores
// per worker).
SchemeChoice CoordinateScheme(const TrainConfig& config, int threads) {
  if (config.solver == Solver::kNewton) {
    return {SchemeKind::kSync, "newton: every pass over the data shared by the threads"};
  }
  if (config.solver == Solver::kDualCd) {
    return {SchemeKind::kSequential, "dual-cd: one worker was faster than two Hogwild! workers"};
  }
  if (threads <= 1) return {SchemeKind::kSequential, "cd on one thread"};
  if (config.deterministic) {
    return {SchemeKind::kAverage, "cd, --deterministic: a copy of the scores per worker"};
  }
  return {SchemeKind::kHogwild, "cd: Shotgun, each step writes its column's scores"};
}

// --scheme auto across ranks. Under `ranks-scheme` sync: sync. Otherwise the rule of one process
// (AutoScheme), decided by rank 0 on its share and its machine and taken by every rank (Resolve
// broadcasts it), so that every rank runs the same scheme and writes the same run identity.
SchemeChoice RanksSyncScheme(int threads) {
  return {SchemeKind::kSync, threads <= 1 ? "ranks-scheme sync, one thread a rank: sequential "
                                            "minibatch steps, summed over the ranks"
                                          : "ranks-scheme sync: the minibatch shared by the "
                                            "rank's workers, summed over the ranks"};
}

// The scheme --scheme auto takes across ranks (RanksSyncScheme's comment): rank 0's choice, the
// same on every rank. Collective: rank 0 must reach the broadcast even if its rule throws (the
// fallback is sequential).
SchemeChoice RankZeroScheme(const TrainConfig& given, const Dataset& train, const Targets& targets,
                            Executor& executor, Communicator& comm) {
  SchemeChoice choice{SchemeKind::kAuto, ""};
  if (comm.rank() == 0) {
    try {
      const int outputs = IsBinary(given.model) && !targets.one_vs_rest ? 1 : targets.classes;
      choice = AutoScheme(given, train, executor.threads(), outputs, executor);
    } catch (const std::exception&) {
      choice = {SchemeKind::kAuto, ""};
    }
  }
  uint64_t fields[2] = {static_cast<uint64_t>(choice.scheme), static_cast<uint64_t>(choice.batch)};
  comm.Broadcast(std::as_writable_bytes(std::span<uint64_t>(fields)), 0);
  comm.Broadcast(choice.reason, 0);
  choice.scheme = static_cast<SchemeKind>(fields[0]);
  choice.batch = static_cast<int>(fields[1]);
  if (choice.scheme == SchemeKind::kAuto) choice = {SchemeKind::kSequential, "across ranks"};
  choice.reason = "rank 0: " + choice.reason;
  return choice;
}

// --order auto, and the block order's rows a block. `largest_bytes`: the largest share's bytes over
// the ranks (one decision for every rank); `mapped`: whether any rank's rows are read from their
// file. The orders apply to the sample-visiting solvers; cd's order is never read (global).
void ResolveOrder(TrainConfig& config, const Dataset& train, uint64_t largest_bytes, bool mapped,
                  ResolvedSettings& r) {
  if (!TakesSampleOrder(config.solver)) {
    if (config.order == OrderKind::kAuto) config.order = OrderKind::kGlobal;
  } else if (config.backend == Backend::kOffload) {
    if (config.order == OrderKind::kBlock) {
      throw SettingError(
          "`order` block reads the rows from their file a few blocks at a time; `backend` "
          "offload copies every row to the device: train on the cpu backend");
    }
    if (config.order == OrderKind::kAuto) config.order = OrderKind::kGlobal;
  } else {
    config.order =
        ChooseOrder(config.order, largest_bytes, mapped, UsableMemoryBytes(), &r.order_reason);
  }
  r.order = config.order;
  if (config.order == OrderKind::kBlock) {
    r.rows_per_block = RowsPerBlock(config.block_size, train.rows(), ResidentBytes(train));
    if (config.block_size == 0) config.block_size = kDefaultBlockBytes;
  }
}

// --schedule auto (the default): adaptive where sgd plans at least kAdaptiveFromEpochs epochs and
// the run can end at a stall (automatic epochs and tol, the adaptive one; rows held out; a --tol
// above 0), so that it ends when the objective or the held-out measure stops improving, whatever
// the plan; linear otherwise, down to 0 at the plan's end. Where it resolves to linear with
// nothing to stall on, a --patience given would be ignored: refused.
void ResolveSchedule(TrainConfig& config, const ResolvedSettings& r) {
  if (config.schedule != ScheduleKind::kAuto) return;
  const bool held_out = config.validation_fraction > 0 || config.held_out_file;
  const bool stalls = (r.epochs_auto && config.tol < 0) || held_out || config.tol > 0;
  const bool adaptive =
      config.solver == Solver::kSgd && r.epochs >= kAdaptiveFromEpochs && stalls;
  config.schedule = adaptive ? ScheduleKind::kAdaptive : ScheduleKind::kLinear;
  if (!adaptive && !held_out && !(config.tol > 0) && config.patience != TrainConfig{}.patience) {
    throw SettingError(fmt::format(
        "--patience {} would be ignored: --schedule auto is linear for this run's {} planned "
        "epochs (adaptive from {}, where the run can end at a stall), and it holds no rows out "
        "and has no --tol",
        config.patience, r.epochs, kAdaptiveFromEpochs));
  }
}

// The settings each rank resolves alone (`rows`: every rank's together): the optimiser, the memory
// checks, the scheme, the order, the device, the minibatch, the workers, the period, decay and
// epochs.
void ResolveLocal(const TrainConfig& given, const Dataset& train, const Targets& targets,
                  Executor& executor, uint64_t rows, int ranks,
                  const std::optional<SchemeChoice>& rank0, uint64_t largest_bytes, bool mapped,
                  Resolution& out) {
  TrainConfig& config = out.config;
  ResolvedSettings& r = out.settings;
  config = given;
  config.optimizer.kind = ResolvedOptimizer(config);
  r.optimizer = config.optimizer.kind;
  r.threads = executor.threads();
  r.outputs = IsBinary(config.model) && !targets.one_vs_rest ? 1 : targets.classes;
  r.features = train.features();
  const bool shared = ranks > 1;
  CheckModelFits(config, train, r);
  const bool ranks_sync = shared && config.ranks_scheme == RanksScheme::kSync;
  if (config.scheme == SchemeKind::kAuto) {
    SchemeChoice choice = ranks_sync ? RanksSyncScheme(r.threads)
                          : rank0    ? *rank0
                          : config.solver != Solver::kSgd
                              ? CoordinateScheme(config, r.threads)
                              : AutoScheme(config, train, r.threads, r.outputs, executor);
    config.scheme = choice.scheme;
    if (config.batch == 0) config.batch = choice.batch;
    r.scheme_reason = std::move(choice.reason);
  }
  r.scheme = config.scheme;
  ResolveOrder(config, train, largest_bytes, mapped, r);
  if (config.backend == Backend::kOffload) {
    out.device = ProbeDevice();
    if (config.require_gpu && out.device.ran_on_host) {
      throw SettingError(
          "`require-gpu`: the target region ran on the host: " + DescribeDevice(out.device) +
          ". Check nvidia-smi, that libgomp-plugin-nvptx.so.1 matching this libgomp "
          "is on the library path, and GOMP_DEBUG=1 for why the device was dropped");
    }
    r.device = out.device.name;
  }
  r.batch = config.batch > 0 ? config.batch : AutoBatch(config);
  config.batch = r.batch;
  r.workers = config.backend == Backend::kOffload ? OffloadWorkers(config, out.device, r.threads)
              : config.scheme == SchemeKind::kSequential ? 1
              : config.workers > 0                       ? config.workers
                                                         : r.threads;
  r.shards = r.workers;
  const Isa isa = ActiveIsa();  // PARSGD_ISA checked before any work, whether the run uses it or not
  if (config.backend == Backend::kCpu && config.model != ModelKind::kMlp &&
      (config.solver == Solver::kSgd || config.solver == Solver::kNewton)) {
    r.kernels = IsaName(KernelIsa(isa, (r.features + 1) * r.outputs));
  }
  if (IsModelPartition(config.scheme)) ResolvePartition(config, r);
  if (IsReplicaScheme(config.scheme) && r.workers > 1) CheckModelFits(config, train, r, r.workers);
  if (config.scheme == SchemeKind::kSync && config.solver == Solver::kSgd && r.batch < r.workers) {
    throw SettingError(fmt::format(
        "`batch` {} is smaller than the {} workers that share each minibatch", r.batch, r.workers));
  }
  if (ranks_sync && r.batch < ranks * r.workers) {
    throw SettingError(fmt::format(
        "`batch` {} over {} ranks: each rank's share of the minibatch must hold a sample for each "
        "of its {} workers (at least {})",
        r.batch, ranks, r.workers, ranks * r.workers));
  }
  const ReplicaPlan plan = AutoReplicaPlan(config, train, r.workers, ranks);
  r.period = plan.period;
  r.whole_steps = plan.whole_steps;
  config.period = r.period;
  config.average_rule = plan.rule;
  if (config.scheme == SchemeKind::kElastic) ResolveElasticAlpha(config, r);
  r.decay = config.decay > 0 ? config.decay : DefaultDecay(config.schedule);
  r.epochs_auto = config.epochs == 0;
  const bool coordinate = config.solver != Solver::kSgd;
  r.epochs = !r.epochs_auto ? config.epochs : coordinate ? kCoordinateEpochs : AutoEpochs(rows);
  ResolveSchedule(config, r);
  if (Averages(config)) {
    // --asgd on: after the first epoch, whose first iterates (far from any optimum) would weigh on
    // the mean for the rest of the run (Bottou's ASGD starts there too).
    const double start = config.asgd != kAsgdAuto ? config.asgd : r.epochs > 1 ? 1.0 : 0.0;
    if (start >= r.epochs) {
      throw SettingError(fmt::format(
          "`asgd` {}: the averaging would start after the last of the {} epochs", start, r.epochs));
    }
    config.asgd = start;
    r.asgd_start = std::llround(start * static_cast<double>(train.rows()));
  }
  r.tol_auto = config.tol < 0;
  r.tol = !r.tol_auto ? config.tol
          : config.solver == Solver::kDualCd
              ? (config.model == ModelKind::kHinge ? kDualGapTol : kSmoothDualGapTol)
          : config.solver == Solver::kCd     ? kPrimalCdTol
          : config.solver == Solver::kNewton ? kNewtonTol
          : config.schedule == ScheduleKind::kAdaptive ? kAdaptiveTol
                                         : 0.0;
}

// The model's own settings: the linear models' from the data (of every rank), the MLP's from the
// optimiser; then the config made whole.
// `rows`: every rank's together.
// The largest of the classes' mean row weights over every rank's rows (Targets::weights, scaled
// to a mean of 1): 1 without weights, and for real-valued labels (one class). Collective.
double HeaviestClassWeight(const Targets& targets, Communicator& comm) {
  if (targets.regression) return 1;
  const auto k = static_cast<std::size_t>(targets.classes);
  std::vector<double> sums(2 * k, 0.0);  // per class: its weights, its rows
  for (uint64_t i = 0; i < targets.values.size(); ++i) {
    const auto c = static_cast<std::size_t>(targets.ClassOf(i));
    sums[c] += targets.weights.empty() ? 1.0 : targets.weights[i];
    sums[k + c] += 1;
  }
  comm.SumAll(std::span<double>(sums));
  double heaviest = 0;
  for (std::size_t c = 0; c < k; ++c) {
    if (sums[k + c] > 0) heaviest = std::max(heaviest, sums[c] / sums[k + c]);
  }
  return heaviest > 0 ? heaviest : 1;
}

// A regression's targets' scale: their weighted mean absolute deviation from their mean `mean`,
// times sqrt(pi / 2) (the standard deviation of normally spread targets, less swayed by outlying
// ones); 1 where they do not spread. Collective.
double TargetScale(const Targets& targets, double mean, Communicator& comm) {
  std::vector<double> sums = {0, 0};  // sum w |y - mean|, sum w
  for (uint64_t i = 0; i < targets.values.size(); ++i) {
    const double w = targets.weights.empty() ? 1.0 : targets.weights[i];
    sums[0] += w * std::abs(targets.values[i] - mean);
    sums[1] += w;
  }
  comm.SumAll(std::span<double>(sums));
  const double scale = sums[1] > 0 ? std::sqrt(std::acos(-1.0) / 2) * sums[0] / sums[1] : 0;
  return scale > 0 ? scale : 1;
}

// A regression's auto width, L2 and step, from the targets' scale s (their spread: no residual is
// known before training).
// - The width: Huber's zone 1.35 s (HuberRegressor's 1.35), so that it grows linearly only far from
//   the fit; the insensitive tube 0.1 s (scikit-learn's and LIBLINEAR's 0.1 on targets of scale 1).
// - The auto L2 weighs the penalty against the loss's slope at a residual of s, as 1 / rows weighs
//   it against least squares' (slope s): times min(1, epsilon / s) for Huber, 1 / s for the
//   insensitive loss. Without it the penalty held weights of targets in the hundreds near 0
//   (bench/README.md, "Regression").
// - The auto step: the insensitive loss's slope is 1 at any residual, so a step sized for a row
//   (the score moved by about the step times |x|^2) moves the score by a target of scale 1: times
//   s, it moves it as least squares' step does at a residual of s (prices in dollars then fit as
//   in thousands). Huber's slope grows to its width (1.35 s) and least squares' with the
//   residual: under SGD their step needs no factor. The adaptive optimisers (AdaGrad, RMSProp,
//   Adam) divide each gradient by its own size, so that every loss's step moves a weight by about
//   the step whatever the targets: times s for every loss.
// `mean`: the targets' mean. Collective.
struct RegressionScales {
  double l2 = 1;
  double step = 1;
};
RegressionScales ResolveRegression(TrainConfig& config, const Targets& targets, Communicator& comm,
                                   double& mean) {
  constexpr double kHuberWidth = 1.35, kTubeWidth = 0.1;
  mean = MeanTarget(targets, comm);
  const double s = TargetScale(targets, mean, comm);
  if (config.loss_epsilon < 0) {
    config.loss_epsilon = (config.model == ModelKind::kHuber ? kHuberWidth : kTubeWidth) * s;
  }
  const OptimizerKind optimizer = config.optimizer.kind;
  const bool adaptive = optimizer == OptimizerKind::kAdaGrad ||
                        optimizer == OptimizerKind::kRmsProp || optimizer == OptimizerKind::kAdam;
  switch (config.model) {
    case ModelKind::kHuber:
      return {.l2 = std::min(1.0, config.loss_epsilon / s), .step = adaptive ? s : 1};
    case ModelKind::kEpsilonInsensitive:
      return {.l2 = 1 / s, .step = s};
    default:
      return {.l2 = 1, .step = adaptive ? s : 1};
  }
}

void ResolveModel(TrainConfig& config, const Dataset& train, const Targets& targets,
                  uint64_t rows, Executor& executor, Communicator& comm, Resolution& out) {
  ResolvedSettings& r = out.settings;
  r.l2_auto = config.l2 < 0;
  r.eta0_auto = config.learning_rate == 0;
  if (IsLinear(config.model)) {
    // Auto L2 under weighted rows: the heaviest class's rows regularised as unweighted rows are
    // at C = 1 (on a set of 3% positives under --class-weight balanced, 1 / rows let the rare
    // class overfit: bench/README.md, "Row and class weights").
    const double heaviest = r.l2_auto || r.eta0_auto ? HeaviestClassWeight(targets, comm) : 1.0;
    const RegressionScales regression =
        targets.regression ? ResolveRegression(config, targets, comm, out.target_mean)
                           : RegressionScales{};
    const double scale = r.l2_auto ? heaviest * regression.l2 : 1.0;
    LinearSettings linear = comm.size() > 1
                                ? ResolveLinearSettings(config, train, executor, comm, scale)
                                : ResolveLinearSettings(config, train, executor, scale);
    // The auto step is sized for a row of weight 1; a row of weight w moves its score w times as
    // far. The losses whose derivative is bounded (logistic, hinge, softmax) take that in their
    // stride; the squared losses' grows with the overshoot: their step is divided by the weight.
    const Loss loss = LossOf(config.model);
    if (r.eta0_auto && (loss == Loss::kSquared || loss == Loss::kSquaredHinge)) {
      linear.eta0 /= heaviest;
    }
    if (r.eta0_auto) linear.eta0 *= regression.step;
    out.rates = std::move(linear.rates);
    out.l1_rates = std::move(linear.l1_rates);
    r.l2 = linear.l2;
    r.l1 = config.l1;
    r.eta0 = linear.eta0;
    r.mean_squared_norm = linear.mean_squared_norm;
    r.mean_l1_norm = linear.mean_l1_norm;
    r.top_eigenvalue = linear.top_eigenvalue;
    // optimal: eta0 / (1 + decay e) after e epochs is 1 / (l2 (t0 + t)) after t = e rows samples
    // when eta0 = 1 / (l2 t0) and decay = rows / t0.
    // With --l1 the strength is l2 + l1 (scikit-learn's alpha for its L1 and elastic-net
    // penalties).
    if (config.schedule == ScheduleKind::kOptimal) {
      r.decay = r.eta0 * (r.l2 + config.l1) * double(rows);
    }
  } else {
    r.l2 = r.l2_auto ? 0.0 : config.l2;
    r.eta0 = r.eta0_auto ? MlpAutoEta0(config.optimizer.kind) : config.learning_rate;
    if (config.normalize == Normalization::kMaxAbs) out.input_scale = MlpInputScale(train, comm);
  }
  config.epochs = r.epochs;
  config.tol = r.tol;
  config.learning_rate = r.eta0;
  config.decay = r.decay;
  config.l2 = r.l2;
}

}  // namespace

Resolution Resolve(const TrainConfig& given, const Dataset& train, const Targets& targets,
                   Executor& executor, Communicator& comm) {
  Resolution out;
  const bool ranks = comm.size() > 1;
  // Collectives first, so that no rank waits in one for a rank that has thrown.
  const uint64_t rows = ranks ? comm.Sum(train.rows()) : train.rows();
  const uint64_t largest_share = ranks ? comm.Max(train.rows()) : train.rows();
  const uint64_t bytes = ResidentBytes(train);
  const uint64_t largest_bytes = ranks ? comm.Max(bytes) : bytes;
  const bool mapped = ranks ? comm.Max(train.mapped() ? 1 : 0) != 0 : train.mapped();
  std::optional<SchemeChoice> rank0;
  if (ranks && given.scheme == SchemeKind::kAuto && given.ranks_scheme != RanksScheme::kSync) {
    rank0 = RankZeroScheme(given, train, targets, executor, comm);
  }
  comm.AgreeOn([&] {
    ResolveLocal(given, train, targets, executor, rows, comm.size(), rank0, largest_bytes, mapped,
                 out);
  });
  ResolvedSettings& r = out.settings;
  TrainConfig& config = out.config;
  r.ranks = comm.size();
  if (ranks && config.ranks_scheme != RanksScheme::kSync) {
    // The period counts each rank's updates: samples for the per-sample schemes, minibatches
    // (of `batch` samples) otherwise; every rank cuts its epoch into as many parts as the largest
    // share needs. auto: 10 combinations an epoch.
    const uint64_t updates = std::max<uint64_t>(1, (largest_share + r.batch - 1) / r.batch);
    r.ranks_period = config.ranks_period >= 0
                         ? config.ranks_period
                         : static_cast<int>(std::clamp<uint64_t>((updates + 9) / 10, 1, 1 << 30));
    config.ranks_period = r.ranks_period;
    r.rank_parts = r.ranks_period == 0
                       ? 1
                       : (updates + r.ranks_period - 1) / static_cast<uint64_t>(r.ranks_period);
  }
  ResolveModel(config, train, targets, rows, executor, comm, out);
  return out;
}

}  // namespace parsgd
