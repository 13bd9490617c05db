// A training run's settings (one point of the grid: model, scheme, order, schedule), and what they
// resolve to once the automatic ones are derived from the data. The settings a user gives are
// declared once, with their ranges and help, in config/settings.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parsgd/exec/backend.hpp"
#include "parsgd/model/mlp/mlp_engine.hpp"
#include "parsgd/model/model_kind.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/scheme/scheme_kind.hpp"
#include "parsgd/solver/solver.hpp"

namespace parsgd {

// Per-feature step scaling (a diagonal preconditioner; the weights and the objective are those of
// the features as given).
enum class Normalization { kNone, kMaxAbs };

inline constexpr Named<Normalization> kNormalizations[] = {
    {Normalization::kNone, "none", "one step size for every feature"},
    {Normalization::kMaxAbs, "maxabs",
     "feature j's steps scaled by 1 / max|x_j|^2: SGD as if every feature were scaled to [-1, 1]"},
};

// The linear models' bias b (z = W^T x + b): trained and never regularised (on), or held at 0 (off:
// exactly LIBLINEAR's default problem, which has no bias).
enum class Bias { kOn, kOff };

inline constexpr Named<Bias> kBiases[] = {
    {Bias::kOn, "on", "trained, not regularised"},
    {Bias::kOff, "off", "held at 0: the problem without a bias (LIBLINEAR's default)"},
};

// Early stopping's measure of the held-out rows (--validation-metric).
enum class ValidationMetric { kLoss, kAccuracy, kAuc };

inline constexpr Named<ValidationMetric> kValidationMetrics[] = {
    {ValidationMetric::kLoss, "loss", "the mean loss (lower is better)"},
    {ValidationMetric::kAccuracy, "accuracy", "the share of rows predicted right"},
    {ValidationMetric::kAuc, "auc",
     "the area under the ROC curve of the scores (two classes; one process)"},
};

// What a binary loss does with more than two classes (--multiclass).
enum class Multiclass { kAuto, kOneVsRest, kOff };

inline constexpr Named<Multiclass> kMulticlasses[] = {
    {Multiclass::kAuto, "auto",
     "logistic: one softmax over the K classes (multinomial, as scikit-learn's "
     "LogisticRegression; the run's model is softmax); hinge, squared-hinge and squared: "
     "one-vs-rest"},
    {Multiclass::kOneVsRest, "ovr",
     "one-vs-rest: K binary classifiers, one a class, trained in one pass (scikit-learn's "
     "SGDClassifier)"},
    {Multiclass::kOff, "off", "refused: a binary loss takes two classes"},
};

// The SVM duals' shrinking (--solver dual-cd, hinge and squared-hinge): variables at a bound set
// aside (their rows skipped) while their derivative keeps them there, as LIBLINEAR does.
enum class Shrinking { kOn, kOff };

inline constexpr Named<Shrinking> kShrinkings[] = {
    {Shrinking::kOn, "on", "skip the rows whose dual variable stays at a bound"},
    {Shrinking::kOff, "off", "visit every row every epoch"},
};

// The average scheme's outer optimiser: the averaging step treats (the model before the period -
// the replicas' mean) as a pseudo-gradient d of an outer rule on the model.
enum class OuterKind { kSgd, kMomentum, kNesterov };

inline constexpr Named<OuterKind> kOuterKinds[] = {
    {OuterKind::kSgd, "sgd", "w -= lr d; with lr 1 the plain average"},
    {OuterKind::kMomentum, "momentum", "v = mu v + d; w -= lr v (SlowMo, Wang et al. 2020)"},
    {OuterKind::kNesterov, "nesterov", "v = mu v + d; w -= lr (d + mu v) (DiLoCo's outer step)"},
};

struct OuterConfig {
  OuterKind kind = OuterKind::kSgd;
  double learning_rate = 1;
  double momentum = 0.5;
  // Whether the outer step is the plain average (outer sgd with rate 1).
  bool plain() const { return kind == OuterKind::kSgd && learning_rate == 1; }
};

// The average scheme's mean (in one process over the replicas, across ranks over the ranks): which
// members a coordinate's new value is the mean of.
enum class AverageRule { kAuto, kMean, kTouched, kSum };

inline constexpr Named<AverageRule> kAverageRules[] = {
    {AverageRule::kAuto, "auto",
     "touched, with a period of about 65,536 nonzeros a worker, for per-sample replicas of a "
     "linear model where that period keeps at least 5% of the steps whole (sparse data); else "
     "mean"},
    {AverageRule::kMean, "mean", "every coordinate the mean over all the members"},
    {AverageRule::kTouched, "touched",
     "each coordinate the mean over the members that moved it since the last combination (a "
     "feature one member saw keeps that member's step whole); one no member moved keeps its value"},
    {AverageRule::kSum, "sum",
     "the last combination's model plus every member's change since (the sum of the deltas: "
     "each sample's step counts whole, as in one worker's run)"},
};

// Across ranks (the processes of one run under mpirun, comm/communicator.hpp): how the ranks'
// models meet. Inside each rank the run's --scheme trains on the rank's share of the rows.
enum class RanksScheme { kAverage, kGossip, kSync };

inline constexpr Named<RanksScheme> kRanksSchemes[] = {
    {RanksScheme::kAverage, "average",
     "every --ranks-period, each rank's model (with --average-state its optimiser state) "
     "replaced by the ranks' mean (an allreduce)"},
    {RanksScheme::kGossip, "gossip",
     "every --ranks-period, each rank's model replaced by the mix of itself and its ring "
     "neighbours, a third each (decentralised); the ranks' mean at each epoch's end"},
    {RanksScheme::kSync, "sync",
     "every minibatch's gradient summed over the ranks (data-parallel synchronous SGD; the "
     "scheme inside a rank is sync, --batch the global minibatch)"},
};

struct TrainConfig {
  ModelKind model = ModelKind::kLogistic;
  Solver solver = Solver::kSgd;
  SchemeKind scheme = SchemeKind::kAuto;  // resolved by the trainer (run/scheme_choice.hpp)
  OrderKind order = OrderKind::kAuto;     // resolved by the trainer (OrderFor below)
  // The block order's block: bytes of consecutive rows (as many rows as fit, at least one);
  // 0: kDefaultBlockBytes.
  uint64_t block_size = 0;
  int threads = 0;           // 0: every core this process may use
  // The deterministic schemes' logical workers (sync, the replicas, the MLP's partitions), run on
  // `threads` threads: the result depends on them, not on the threads. 0: as many as the threads.
  int workers = 0;
  int epochs = 0;            // 0: enough for about 10^6 updates, at least 10, at most 1000;
                             // the coordinate-descent solvers: 1000, a cap (tol stops them)
  double tol = -1;           // stopping rule; -1: the solver's default; 0: none (see
                             // ResolvedSettings::tol)
  double learning_rate = 0;  // eta0; 0: derived from the data (see ResolvedSettings)
  ScheduleKind schedule = ScheduleKind::kAuto;
  double decay = 0;  // 0: the schedule's default (invtime 1 per epoch, geometric 0.9)
  double l2 = -1;    // -1: 1 / rows (LIBLINEAR's default C = 1); on hashed text 1 / (20 rows);
                     // 0 where l1 is above 0
  double l1 = 0;     // the L1 penalty l1 ||w||_1 (linear models; sgd and cd)
  // huber, epsilon-insensitive: the loss's width in the targets' units; -1: auto (huber 1.35
  // times the targets' scale, epsilon-insensitive 0.1: run/resolve.cpp)
  double loss_epsilon = -1;
  // Early stopping: the share of the training rows held out (0: none; --validation FILE gives
  // held-out rows of their own), the epochs without improvement it waits, and its measure.
  double validation_fraction = 0;
  int patience = 5;
  ValidationMetric validation_metric = ValidationMetric::kLoss;
  // Not a setting: the caller gives the held-out rows of a file of their own (the command line's
  // --validation FILE; Trainer::SetValidation).
  bool held_out_file = false;
  Multiclass multiclass = Multiclass::kAuto;  // binary losses on more than two classes
  // Averaged SGD (the linear models' --asgd): the model evaluated and saved is the mean of the
  // iterates from this epoch on (0: from the first step); kAsgdOff: none; kAsgdAuto ("on"): from
  // the end of the first epoch, or from the start in a run of one epoch.
  double asgd = -1;
  std::string class_weight = "none";  // "balanced" or "LABEL:W,..." (model/class_weights.hpp)
  Normalization normalize = Normalization::kMaxAbs;
  Bias bias = Bias::kOn;                 // linear models
  Shrinking shrinking = Shrinking::kOn;  // dual-cd, hinge and squared-hinge
  OptimizerConfig optimizer;
  int batch = 0;    // samples per update; 0: 256 for sync (global), 32 for average, else 1
  int period = -1;  // average, gossip: minibatches between combinations; 0: once per
                    // epoch; -1: automatic (10, or a tenth of a shard for --batch 1)
  bool average_state = false;  // average, gossip: combine the optimiser state too
  OuterConfig outer;           // average: the outer optimiser
  AverageRule average_rule = AverageRule::kAuto;  // average: the members a coordinate's mean is of
  double elastic_alpha = -1;   // elastic: the elastic force; -1: automatic (0.9 / workers)
  RanksScheme ranks_scheme = RanksScheme::kAverage;  // across ranks
  int ranks_period = -1;       // across ranks: each rank's updates between two combinations; 0:
                               // once per epoch; -1: automatic (10 per epoch)
  bool deterministic = false;  // refuse schemes whose result depends on timing
  std::vector<int> hidden = {256, 128};  // mlp: hidden layer sizes
  int micro_batches = 0;                 // pipeline: micro-batches of a minibatch; 0: automatic
  double skeleton_ratio = -1;  // subnet: each hidden layer's share of units every worker trains;
                               // -1: automatic (0.25)
  MlpBackend mlp_backend = MlpBackend::kOneDnn;
  Backend backend = Backend::kCpu;
  bool require_gpu = false;  // offload: fail unless the target regions run on a device
  uint64_t seed = 1;
};

inline constexpr double kAsgdOff = -1;
inline constexpr double kAsgdAuto = -2;
inline bool Averages(const TrainConfig& config) { return config.asgd != kAsgdOff; }

// The optimiser a run takes: config.optimizer.kind, or for auto momentum on the MLP (its weights
// are dense) and sgd on the linear models.
inline OptimizerKind ResolvedOptimizer(const TrainConfig& config) {
  if (config.optimizer.kind != OptimizerKind::kAuto) return config.optimizer.kind;
  return config.model == ModelKind::kMlp ? OptimizerKind::kMomentum : OptimizerKind::kSgd;
}

struct Setting;
// Whether the user gave a setting (the command line: its flag; elsewhere: a value other than its
// default).
using GivenSetting = std::function<bool(const Setting&)>;

// Throws SettingError (config/settings.hpp), naming the settings by key, for a value out of its
// setting's range or settings that cannot work together, in a run of `ranks` processes
// (comm/communicator.hpp; more than one: what the ranks can combine, and the outer optimiser
// acting on the ranks' average rather than the replicas'), or for a setting the user gave that
// the run would ignore (Setting::applies; a scheme auto is judged once the trainer resolves it).
// `given` says what the user gave (the command line: the flags given); null: every setting set to
// other than its default. No data needed.
void ValidateConfig(const TrainConfig& config, int ranks = 1, const GivenSetting& given = nullptr);

// A config that passed ValidateConfig for `ranks` processes, with the settings the user gave: the
// trainer's input (run/trainer.hpp), checked once, where the front end reads its settings.
class CheckedConfig {
 public:
  // Throws ValidateConfig's SettingError.
  explicit CheckedConfig(const TrainConfig& config, int ranks = 1, GivenSetting given = nullptr)
      : config_(config), ranks_(ranks), given_(std::move(given)) {
    ValidateConfig(config_, ranks_, given_);
  }
  CheckedConfig(const CheckedConfig&) = default;
  const TrainConfig& config() const { return config_; }
  int ranks() const { return ranks_; }
  // What the user gave (null: every setting set to other than its default).
  bool Given(const Setting& setting) const;

 private:
  TrainConfig config_;
  int ranks_;
  GivenSetting given_;
};

// The settings a run actually uses once the automatic ones are derived from the data.
struct ResolvedSettings {
  std::string device = "cpu";  // where the workers ran: "cpu", "host-fallback" or the GPU's name
  // The vector path of the sparse kernels (parsgd/kernel/isa.hpp) a linear run on the CPU takes:
  // SGD's scores and steps, Newton's row pass; empty where the run uses none of them.
  std::string kernels;
  SchemeKind scheme = SchemeKind::kSequential;  // resolved: never kAuto
  std::string scheme_reason;  // why auto chose it; empty when the scheme was given
  // Why logistic on more than two classes trains as softmax (--multiclass auto); empty otherwise.
  std::string multiclass_reason;
  OptimizerKind optimizer = OptimizerKind::kSgd;  // resolved: never kAuto
  OrderKind order = OrderKind::kGlobal;           // resolved: never kAuto
  std::string order_reason;                       // why auto chose the block order; empty otherwise
  uint64_t rows_per_block = 0;                    // the block order's; 0 for the others
  int threads = 1;                                // threads of the executor
  int workers = 1;  // workers that update the model (1 for the sequential scheme)
  int epochs = 1;
  bool epochs_auto = false;
  // The stopping rule: the dual solver stops once its relative duality gap (P(w) - D(a)) / |P(w)|
  // is at most tol; primal cd once an epoch lowers the objective by at most tol of it; sgd once 5
  // epochs in a row end above the best objective so far minus tol of it (scikit-learn's rule); 0
  // never stops before the last epoch (the SGD solver's default).
  double tol = 0;
  bool tol_auto = false;
  int batch = 1;
  int period = 10;  // resolved: >= 1, or 0 for once per epoch
  // The average scheme's automatic rule: the share of the steps the period keeps whole (taken by
  // one replica only between two combinations), where auto weighed it; < 0 otherwise.
  double whole_steps = -1;
  // The sample order's shards: one per worker, or one where every worker computes on the same
  // minibatches (pipeline, vertical).
  int shards = 1;
  int micro_batches = 1;      // pipeline
  double skeleton_ratio = 0;  // subnet
  double elastic_alpha = 0;   // elastic
  double eta0 = 0;
  bool eta0_auto = false;
  double decay = 0;
  double l2 = 0;
  bool l2_auto = false;
  double l1 = 0;
  // --asgd: the samples (of the run, over every epoch) after which the iterates are averaged; -1:
  // no averaging.
  int64_t asgd_start = -1;
  int ranks = 1;  // processes of the run (comm/communicator.hpp)
  // Across ranks: the parts each rank's epoch is cut into, a combination after each (1: once per
  // epoch); and the resolved --ranks-period (0 for once per epoch).
  uint64_t rank_parts = 1;
  int ranks_period = 0;
  int outputs = 1;  // K
  uint64_t features = 0;
  double mean_squared_norm = 0;  // mean over rows of sum_j m_j x_j^2, + 1 (the bias input) with
                                 // --bias on
  double mean_l1_norm = 0;       // mean over rows of sum_j sqrt(m_j) |x_j|, + 1 with --bias on
  double top_eigenvalue = 0;     // largest eigenvalue of mean x x^T (squared loss, minibatches)
};

}  // namespace parsgd
