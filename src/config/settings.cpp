#include "parsgd/config/settings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "parsgd/model/class_weights.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/util/edit_distance.hpp"

namespace parsgd {
namespace {

// The rendering of what(): keys bare.
std::string Bare(std::string_view key) { return std::string(key); }

std::string Rendered(std::string_view marked,
                     const std::function<std::string(std::string_view)>& spell) {
  std::string out;
  std::size_t at = 0;
  while (at < marked.size()) {
    const std::size_t open = marked.find('`', at);
    const std::size_t close = open == std::string_view::npos ? open : marked.find('`', open + 1);
    if (close == std::string_view::npos) {
      out.append(marked.substr(at));
      break;
    }
    out.append(marked.substr(at, open - at))
        .append(spell(marked.substr(open + 1, close - open - 1)));
    at = close + 1;
  }
  return out;
}

// ---- the kinds of entries ----

Setting Entry(std::string key, SettingType type, std::string help, double min = 0, double max = 0,
              bool min_exclusive = false) {
  Setting s;
  s.key = std::move(key);
  s.type = type;
  s.help = std::move(help);
  s.min = min;
  s.max = max;
  s.min_exclusive = min_exclusive;
  return s;
}

// `field` is a generic lambda returning a reference to the member, for const and non-const configs.
template <class Field>
Setting Int(std::string key, std::string help, Field field, int min, int max,
            std::vector<SettingWord> words = {}) {
  Setting s = Entry(std::move(key), SettingType::kInt, std::move(help), min, max);
  s.words = std::move(words);
  s.get = [field](const TrainConfig& c) { return SettingValue(int64_t{field(c)}); };
  s.put = [field](TrainConfig& c, const SettingValue& v) {
    field(c) = static_cast<int>(std::get<int64_t>(v));
  };
  return s;
}

template <class Field>
Setting Real(std::string key, std::string help, Field field, double min, double max,
             bool min_exclusive = false, std::vector<SettingWord> words = {}) {
  Setting s = Entry(std::move(key), SettingType::kReal, std::move(help), min, max, min_exclusive);
  s.words = std::move(words);
  s.get = [field](const TrainConfig& c) { return SettingValue(double{field(c)}); };
  s.put = [field](TrainConfig& c, const SettingValue& v) { field(c) = std::get<double>(v); };
  return s;
}

template <class Enum, class Field>
Setting Choice(std::string key, std::string help, std::span<const Named<Enum>> table, Field field) {
  Setting s = Entry(std::move(key), SettingType::kChoice, std::move(help));
  for (const Named<Enum>& e : table) s.choices.emplace_back(e.name, e.help);
  s.get = [field, table](const TrainConfig& c) {
    return SettingValue(std::string(NameOf(table, field(c))));
  };
  s.put = [field, table](TrainConfig& c, const SettingValue& v) {
    field(c) = *FindByName(table, std::get<std::string>(v));
  };
  return s;
}

template <class Field>
Setting Switch(std::string key, std::string help, Field field) {
  Setting s = Entry(std::move(key), SettingType::kSwitch, std::move(help));
  s.get = [field](const TrainConfig& c) { return SettingValue(bool{field(c)}); };
  s.put = [field](TrainConfig& c, const SettingValue& v) { field(c) = std::get<bool>(v); };
  return s;
}

// ---- where each setting applies, and how it is recorded ----

constexpr unsigned kAllModels = kLinearModels | kMlpModel;
constexpr unsigned kAllSolvers = kSgdSolver | kCdSolver | kDualCdSolver | kNewtonSolver;
constexpr unsigned kAllBackends = kCpuBackend | kOffloadBackend;
constexpr unsigned kSgdOnly = kAllModels | kSgdSolver | kAllBackends;

Setting With(Setting s, Applies applies, SettingRecord record = {}) {
  s.applies = std::move(applies);
  s.record = record;
  return s;
}

// The records of the settings added after the run identity's first version: written only where
// they differ from the behaviour before them.
bool NotSgd(const TrainConfig& c) { return c.solver != Solver::kSgd; }
bool BiasOff(const TrainConfig& c) { return c.bias == Bias::kOff; }
bool Pipeline(const TrainConfig& c) { return c.scheme == SchemeKind::kPipeline; }
bool Subnet(const TrainConfig& c) { return c.scheme == SchemeKind::kSubnet; }
bool OuterStep(const TrainConfig& c) { return !c.outer.plain(); }
bool RuleNotMean(const TrainConfig& c) {
  return c.average_rule != AverageRule::kMean && c.average_rule != AverageRule::kAuto;
}
bool Elastic(const TrainConfig& c) { return c.scheme == SchemeKind::kElastic; }
bool ClassWeighted(const TrainConfig& c) { return c.class_weight != "none"; }
bool L1Penalty(const TrainConfig& c) { return c.l1 > 0; }
bool LossWidth(const TrainConfig& c) { return HasLossEpsilon(c.model); }
bool MulticlassGiven(const TrainConfig& c) { return c.multiclass != Multiclass::kAuto; }
bool HeldOut(const TrainConfig& c) { return c.validation_fraction > 0; }
bool NoAveraging(const TrainConfig& c) { return !Averages(c); }
bool GivesWorkers(const TrainConfig& c) { return c.workers > 0; }
bool BlockOrder(const TrainConfig& c) { return c.order == OrderKind::kBlock; }

// A size in bytes as people write it: digits with an optional binary unit (K or KiB, M or MiB,
// G or GiB); "auto" for 0.
uint64_t ParseByteSize(std::string_view text) {
  if (text == "auto") return 0;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  std::string_view unit(end, text.data() + text.size() - end);
  int shift = -1;
  if (unit.empty()) shift = 0;
  if (unit == "K" || unit == "KiB") shift = 10;
  if (unit == "M" || unit == "MiB") shift = 20;
  if (unit == "G" || unit == "GiB") shift = 30;
  if (ec != std::errc() || end == text.data() || shift < 0 || n == 0 ||
      n > (uint64_t{1} << 40) >> shift) {
    throw SettingError(
        fmt::format("`block-size`: expected auto or a size from 1 to 1024G (bytes, "
                    "or with K, M or G), got '{}'",
                    text));
  }
  return n << shift;
}

std::string ByteSizeText(uint64_t bytes) {
  if (bytes == 0) return "auto";
  for (const auto& [shift, unit] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
    if (bytes % (uint64_t{1} << shift) == 0) return fmt::format("{}{}", bytes >> shift, unit);
  }
  return std::to_string(bytes);
}

std::vector<Setting> MakeTable() {
  const std::vector<SettingWord> automatic = {{"auto", 0}};
  const Applies always;
  std::vector<Setting> t;
  t.push_back(With(Choice<ModelKind>("model", "model and loss", kModelKinds,
                                     [](auto& c) -> auto& { return c.model; }),
                   always, {.identity = "model", .text = true, .metrics = true}));
  t.push_back(With(Choice<Solver>("solver", "how the model is fitted", kSolvers,
                                  [](auto& c) -> auto& { return c.solver; }),
                   always, {.identity = "solver", .when = NotSgd, .text = true, .metrics = true}));
  Setting hidden = Entry("hidden", SettingType::kSizes, "mlp: hidden layer sizes");
  hidden.get = [](const TrainConfig& c) {
    return SettingValue(fmt::format("{}", fmt::join(c.hidden, ",")));
  };
  hidden.put = [](TrainConfig& c, const SettingValue& v) {
    c.hidden = ParseHiddenSizes(std::get<std::string>(v));
  };
  const Applies mlp{.runs = kMlpModel | kAllSolvers | kAllBackends};
  t.push_back(With(std::move(hidden), mlp, {.identity = "hidden", .dash = true, .text = true}));
  t.push_back(With(Choice<MlpBackend>("mlp-backend", "mlp: dense compute", kMlpBackends,
                                      [](auto& c) -> auto& { return c.mlp_backend; }),
                   mlp, {.identity = "mlp_backend", .dash = true}));
  Setting scheme = Choice<SchemeKind>("scheme", "how workers meet the shared model", kSchemeKinds,
                                      [](auto& c) -> auto& { return c.scheme; });
  scheme.choices.clear();  // each row's help with its citation
  for (const SchemeInfo& row : kSchemes) {
    const std::string cite = *row.citation ? fmt::format(" ({})", row.citation) : "";
    scheme.choices.emplace_back(row.name, row.help + cite);
  }
  t.push_back(With(std::move(scheme), always, {.identity = "scheme", .text = true, .metrics = true}));
  t.push_back(With(
      Choice<Backend>(
          "backend",
          "where the workers run (offload: the linear models; schemes " +
              SchemeNames([](const SchemeInfo& r) { return RunsOn(r, Backend::kOffload); }) + ")",
          kBackends, [](auto& c) -> auto& { return c.backend; }),
      always, {.identity = "backend", .text = true, .metrics = true}));
  t.push_back(With(
      Switch("require-gpu",
             "offload: fail unless the target regions really run on a GPU (not the host "
             "fallback)",
             [](auto& c) -> auto& { return c.require_gpu; }),
      {.runs = kAllModels | kAllSolvers | kOffloadBackend}));
  t.push_back(With(Choice<OrderKind>("order",
                                     "sample order (not --solver cd, which visits features, nor "
                                     "newton)",
                                     kOrderKinds, [](auto& c) -> auto& { return c.order; }),
                   {.runs = kAllModels | kSgdSolver | kDualCdSolver | kAllBackends},
                   {.identity = "order", .text = true, .metrics = true}));
  Setting block_size = Entry(
      "block-size", SettingType::kText,
      "the block order's blocks: bytes of consecutive rows (K, M, G: KiB, MiB, GiB; auto: 4M)");
  block_size.get = [](const TrainConfig& c) { return SettingValue(ByteSizeText(c.block_size)); };
  block_size.put = [](TrainConfig& c, const SettingValue& v) {
    c.block_size = ParseByteSize(std::get<std::string>(v));
  };
  block_size.check_text = [](std::string_view text) { ParseByteSize(text); };
  block_size.text_name = "auto|SIZE";
  block_size.words = automatic;
  t.push_back(With(std::move(block_size),
                   {.runs = kAllModels | kSgdSolver | kDualCdSolver | kCpuBackend},
                   {.identity = "block_size", .when = BlockOrder, .text = true}));
  t.push_back(With(Int("threads",
                       "worker threads (offload: device workers; auto: 65,536 on a GPU for hogwild "
                       "and atomic, 1 for sync; elsewhere every core this process may use)",
                       [](auto& c) -> auto& { return c.threads; }, 1, 4096, automatic),
                   always));
  t.push_back(With(Int(
                       "workers",
                       "the deterministic schemes' workers (sync, average, gossip, elastic, "
                       "pipeline, vertical, subnet), run on --threads threads: the same result "
                       "on any thread count (auto: one a thread)",
                       [](auto& c) -> auto& { return c.workers; }, 1, 1 << 16, automatic),
                   // newton's passes give the same result on any thread count by themselves
                   {.runs = kAllModels | kSgdSolver | kCdSolver | kDualCdSolver | kCpuBackend,
                    .schemes = {SchemeKind::kSync, SchemeKind::kAverage, SchemeKind::kGossip,
                                SchemeKind::kElastic, SchemeKind::kPipeline, SchemeKind::kVertical,
                                SchemeKind::kSubnet}},
                   {.identity = "workers", .when = GivesWorkers, .text = true}));
  t.push_back(With(Int("epochs",
                       "passes over the training data (auto: enough for about 10^6 updates, 10 "
                       "to 1000; cd, dual-cd: 1000, a cap for --tol; newton: Newton steps, 1000 "
                       "a cap for --tol)",
                       [](auto& c) -> auto& { return c.epochs; }, 1, 1000000, automatic),
                   always, {.identity = "epochs", .text = true}));
  t.push_back(With(
      Real("tol",
           "stop once the relative duality gap is at most this (dual-cd), an epoch lowers "
           "the objective by at most this of it (cd, newton), or --patience epochs in a row do not "
           "lower the best objective by more than this of the first epoch's (sgd) (auto: dual-cd "
           "1e-4 for hinge, 1e-5 for squared-hinge and logistic; cd 1e-6; newton 1e-5; sgd 1e-3 "
           "where the schedule is adaptive, else none)",
           [](auto& c) -> auto& { return c.tol; }, 0, 1, true, {{"auto", -1}, {"none", 0}}),
      always));
  const Applies sgd{.runs = kSgdOnly};
  t.push_back(With(Real(
                       "validation-fraction",
                       "early stopping: the share of the training rows held out (by the seed; "
                       "of each class), measured after every epoch; the best epoch's model is "
                       "kept (0: none)",
                       [](auto& c) -> auto& { return c.validation_fraction; }, 0, 0.9),
                   sgd, {.identity = "validation_fraction", .when = HeldOut, .text = true}));
  t.push_back(With(Int(
                       "patience",
                       "stop after this many epochs in a row without a better validation "
                       "measure (early stopping: --validation, --validation-fraction), or, with "
                       "--tol, without lowering the best objective by more than tol of the first "
                       "epoch's (where the schedule is adaptive: cut the step to a quarter "
                       "instead, until its last)",
                       [](auto& c) -> auto& { return c.patience; }, 1, 1000000),
                   {.runs = kSgdOnly, .stopping = true}));
  t.push_back(With(Choice<ValidationMetric>(
                       "validation-metric", "early stopping: what the held-out rows are judged by",
                       kValidationMetrics, [](auto& c) -> auto& { return c.validation_metric; }),
                   {.runs = kSgdOnly, .held_out = true}));
  t.push_back(With(Real("learning-rate",
                        "initial step size eta0 (auto: 0.5 / (curvature * mean squared row "
                        "norm); for the optimal schedule Bottou's 1 / (l2 t0))",
                        [](auto& c) -> auto& { return c.learning_rate; }, 0, 1e9, true, automatic),
                   sgd, {.identity = "eta0", .text = true}));
  t.push_back(With(Choice<ScheduleKind>("schedule", "step-size schedule", kScheduleKinds,
                                        [](auto& c) -> auto& { return c.schedule; }),
                   sgd, {.identity = "schedule", .text = true}));
  t.push_back(With(Real("decay",
                        "invtime: rate per epoch; geometric: factor per epoch (auto: 1 for "
                        "invtime, 0.9 for geometric, rows / t0 for optimal)",
                        [](auto& c) -> auto& { return c.decay; }, 0, 1e9, true, automatic),
                   {.runs = kSgdOnly, .schedules = {ScheduleKind::kInvTime, ScheduleKind::kGeometric}},
                   {.identity = "decay", .text = true}));
  t.push_back(With(
      Real("l2",
           "L2 regularisation strength (auto: 1/rows, LIBLINEAR's C = 1; on hashed text 1/(20 "
           "rows); weighted rows: times the heaviest class's mean weight; 0 where l1 is given)",
           [](auto& c) -> auto& { return c.l2; }, 0, 1e9, false, {{"auto", -1}}),
      always, {.identity = "l2", .text = true}));
  t.push_back(With(Real(
                       "l1",
                       "L1 regularisation strength: the objective's l1 ||w||_1, weights set to "
                       "exact zeros (LIBLINEAR -s 6 at l1 = 1/(C rows)); with l2 too, elastic net; "
                       "linear models, sgd and cd",
                       [](auto& c) -> auto& { return c.l1; }, 0, 1e9),
                   {.runs = kLinearModels | kSgdSolver | kCdSolver | kCpuBackend},
                   {.identity = "l1", .when = L1Penalty, .text = true}));
  t.push_back(
      With(Real("loss-epsilon",
                "huber: the residual past which the loss grows linearly; "
                "epsilon-insensitive: the tube within which it is 0; in the targets' "
                "units, scikit-learn's epsilon (auto: huber 1.35 times the targets' "
                "scale, epsilon-insensitive 0.1 times it)",
                [](auto& c) -> auto& { return c.loss_epsilon; }, 0, 1e30, true, {{"auto", -1}}),
           {.runs = kLinearModels | kSgdSolver | kCpuBackend,
            .models = {ModelKind::kHuber, ModelKind::kEpsilonInsensitive}},
           {.identity = "loss_epsilon", .when = LossWidth, .text = true}));
  t.push_back(With(Choice<Multiclass>(
                       "multiclass",
                       "logistic, hinge, squared-hinge, squared on more than two "
                       "classes",
                       kMulticlasses, [](auto& c) -> auto& { return c.multiclass; }),
                   {.runs = kLinearModels | kSgdSolver | kCpuBackend,
                    .models = {ModelKind::kLogistic, ModelKind::kHinge, ModelKind::kSquaredHinge,
                               ModelKind::kSquared}},
                   {.identity = "multiclass", .when = MulticlassGiven, .text = true}));
  t.push_back(With(Real("asgd",
                        "averaged SGD: the model evaluated and saved is the mean of the iterates "
                        "from this epoch on (0: from the first step; on: from the end of the "
                        "first, or the start of a one-epoch run); lazy on sparse rows",
                        [](auto& c) -> auto& { return c.asgd; }, 0, 1e6, false,
                        {{"off", kAsgdOff}, {"on", kAsgdAuto}}),
                   {.runs = kLinearModels | kSgdSolver | kCpuBackend,
                    .schemes = {SchemeKind::kSequential, SchemeKind::kHogwild, SchemeKind::kLocked,
                                SchemeKind::kStriped, SchemeKind::kAtomic, SchemeKind::kSync,
                                SchemeKind::kAverage, SchemeKind::kGossip},
                    .inert = NoAveraging},
                   {.identity = "asgd", .when = Averages, .text = true}));
  Setting class_weight =
      Entry("class-weight", SettingType::kText,
            "each class's weight in the loss: none, balanced (n / (classes x rows of the class)) "
            "or LABEL:W,... (the others 1); every model and solver");
  class_weight.get = [](const TrainConfig& c) { return SettingValue(c.class_weight); };
  class_weight.put = [](TrainConfig& c, const SettingValue& v) {
    c.class_weight = std::get<std::string>(v);
  };
  class_weight.check_text = [](std::string_view text) { ParseClassWeights(text); };
  class_weight.text_name = "none|balanced|LABEL:W,...";
  t.push_back(With(std::move(class_weight), {.runs = kAllModels | kAllSolvers | kAllBackends},
                   {.identity = "class_weight", .when = ClassWeighted, .text = true}));
  t.push_back(With(Choice<Shrinking>("shrinking",
                                     "dual-cd, the SVMs: set aside the variables at a bound",
                                     kShrinkings, [](auto& c) -> auto& { return c.shrinking; }),
                   {.runs = kLinearModels | kDualCdSolver | kCpuBackend,
                    .models = {ModelKind::kHinge, ModelKind::kSquaredHinge}}));
  t.push_back(With(Choice<Bias>("bias", "linear models: the bias b of z = W^T x + b", kBiases,
                                [](auto& c) -> auto& { return c.bias; }),
                   {.runs = kLinearModels | kAllSolvers | kAllBackends},
                   {.identity = "bias", .when = BiasOff, .text = true}));
  t.push_back(With(Choice<Normalization>("normalize", "per-feature step scaling", kNormalizations,
                                         [](auto& c) -> auto& { return c.normalize; }),
                   sgd, {.identity = "normalize", .text = true}));
  t.push_back(With(Choice<OptimizerKind>("optimizer", "per-coordinate update rule",
                                         kOptimizerKinds,
                                         [](auto& c) -> auto& { return c.optimizer.kind; }),
                   sgd, {.identity = "optimizer", .text = true, .metrics = true}));
  constexpr double kBelowOne = 0.999999;
  auto rule = [](std::vector<OptimizerKind> kinds) {
    return Applies{.runs = kSgdOnly, .optimizers = std::move(kinds)};
  };
  t.push_back(With(Real("momentum", "momentum and nesterov: momentum mu",
                        [](auto& c) -> auto& { return c.optimizer.momentum; }, 0, kBelowOne),
                   rule({OptimizerKind::kMomentum, OptimizerKind::kNesterov}),
                   {.identity = "momentum"}));
  t.push_back(With(Real("rho", "rmsprop: decay of the squared-gradient average",
                        [](auto& c) -> auto& { return c.optimizer.rho; }, 0, kBelowOne),
                   rule({OptimizerKind::kRmsProp}), {.identity = "rho"}));
  t.push_back(With(Real("beta1", "adam: decay of the first moment",
                        [](auto& c) -> auto& { return c.optimizer.beta1; }, 0, kBelowOne),
                   rule({OptimizerKind::kAdam}), {.identity = "beta1"}));
  t.push_back(With(Real("beta2", "adam: decay of the second moment",
                        [](auto& c) -> auto& { return c.optimizer.beta2; }, 0, kBelowOne),
                   rule({OptimizerKind::kAdam}), {.identity = "beta2"}));
  t.push_back(With(Real("epsilon", "adagrad, rmsprop, adam: added to the denominator",
                        [](auto& c) -> auto& { return c.optimizer.epsilon; }, 0, 1, true),
                   rule({OptimizerKind::kAdaGrad, OptimizerKind::kRmsProp, OptimizerKind::kAdam}),
                   {.identity = "epsilon"}));
  t.push_back(With(Int("batch",
                       "samples per update: the global minibatch for sync, each worker's for "
                       "average, sequential minibatch SGD for sequential (auto: 256 for sync, 32 "
                       "for average, else 1)",
                       [](auto& c) -> auto& { return c.batch; }, 1, 1 << 30, automatic),
                   sgd, {.identity = "batch", .text = true, .metrics = true}));
  t.push_back(With(Int("period",
                       "average, gossip, elastic, subnet: each worker's minibatches between two "
                       "combining "
                       "steps (auto: 10; with per-sample steps, --batch 1, a tenth of each "
                       "worker's shard)",
                       [](auto& c) -> auto& { return c.period; }, 1, 1 << 30,
                       {{"auto", -1}, {"epoch", 0}}),
                   {.runs = kSgdOnly,
                    .schemes = {SchemeKind::kAverage, SchemeKind::kGossip, SchemeKind::kElastic,
                                SchemeKind::kSubnet}},
                   {.identity = "period", .text = true}));
  t.push_back(With(Int("micro-batches",
                       "pipeline: the micro-batches each minibatch is cut into, flowing through "
                       "the stages (auto: 4 a stage, at most --batch)",
                       [](auto& c) -> auto& { return c.micro_batches; }, 1, 1 << 20, automatic),
                   {.schemes = {SchemeKind::kPipeline}},
                   {.identity = "micro_batches", .when = Pipeline, .text = true}));
  t.push_back(With(Real("skeleton-ratio",
                        "subnet: the share of each hidden layer's units in the skeleton every "
                        "worker trains, the rest dealt among the workers every --period (auto: "
                        "0.25)",
                        [](auto& c) -> auto& { return c.skeleton_ratio; }, 0, 0.999999, false,
                        {{"auto", -1}}),
                   {.schemes = {SchemeKind::kSubnet}},
                   {.identity = "skeleton_ratio", .when = Subnet, .text = true}));
  t.push_back(With(Switch("average-state",
                          "average: average the optimiser state too; gossip: mix it with the "
                          "weights; across ranks the same at each --ranks-period",
                          [](auto& c) -> auto& { return c.average_state; }),
                   {.runs = kSgdOnly,
                    .schemes = {SchemeKind::kAverage, SchemeKind::kGossip},
                    .across_ranks = true},
                   {.identity = "average_state", .text = true}));
  t.push_back(With(Real("elastic-alpha",
                        "elastic: the force pulling each replica toward the centre and the centre "
                        "toward the replicas at each combination; alpha x workers at most 1 "
                        "(auto: 0.9 / workers)",
                        [](auto& c) -> auto& { return c.elastic_alpha; }, 0, 1, true,
                        {{"auto", -1}}),
                   {.runs = kSgdOnly, .schemes = {SchemeKind::kElastic}},
                   {.identity = "elastic_alpha", .when = Elastic, .text = true}));
  const Applies averaged{.runs = kSgdOnly, .schemes = {SchemeKind::kAverage}, .across_ranks = true};
  t.push_back(With(Choice<AverageRule>(
                       "average-rule",
                       "average: the members each coordinate's mean is taken over "
                       "(replicas, and ranks under --ranks-scheme average)",
                       kAverageRules, [](auto& c) -> auto& { return c.average_rule; }),
                   {.runs = kSgdOnly,
                    .schemes = {SchemeKind::kAverage},
                    .across_ranks = true,
                    .inert = [](const TrainConfig& c) { return !RuleNotMean(c); }},
                   {.identity = "average_rule", .when = RuleNotMean, .text = true}));
  t.push_back(With(Choice<OuterKind>("outer-optimizer",
                                     "average: the rule applied at each average to d = model "
                                     "before the period - replicas' mean",
                                     kOuterKinds, [](auto& c) -> auto& { return c.outer.kind; }),
                   averaged, {.identity = "outer_optimizer", .when = OuterStep, .text = true}));
  t.push_back(With(Real("outer-learning-rate", "average: the outer rule's rate lr",
                        [](auto& c) -> auto& { return c.outer.learning_rate; }, 0, 1e9, true),
                   averaged,
                   {.identity = "outer_learning_rate", .when = OuterStep, .text = true}));
  Applies outer_velocity = averaged;
  outer_velocity.outer_kinds = {OuterKind::kMomentum, OuterKind::kNesterov};
  t.push_back(With(Real("outer-momentum", "average: the outer momentum mu",
                        [](auto& c) -> auto& { return c.outer.momentum; }, 0, kBelowOne),
                   outer_velocity,
                   {.identity = "outer_momentum", .when = OuterStep, .text = true}));
  const Applies ranks{.ranks_only = true};
  t.push_back(With(Choice<RanksScheme>("ranks-scheme",
                                       "across ranks (mpirun): how the ranks' models meet",
                                       kRanksSchemes,
                                       [](auto& c) -> auto& { return c.ranks_scheme; }),
                   ranks));
  t.push_back(With(Int("ranks-period",
                       "across ranks: each rank's updates (samples) between two combinations "
                       "(auto: 10 per epoch, at a tenth of the largest rank's share)",
                       [](auto& c) -> auto& { return c.ranks_period; }, 1, 1 << 30,
                       {{"auto", -1}, {"epoch", 0}}),
                   ranks));
  t.push_back(With(Switch(
                       "deterministic",
                       "require bit-identical results run to run (schemes " +
                           SchemeNames([](const SchemeInfo& r) { return r.deterministic; }) +
                           "); the metrics then leave out wall-clock times and the thread "
                           "count (with --workers, the same bytes on any thread count)",
                       [](auto& c) -> auto& { return c.deterministic; }),
                   always));
  Setting seed = Entry("seed", SettingType::kCount, "seed of every random choice (sample order)");
  seed.get = [](const TrainConfig& c) { return SettingValue(c.seed); };
  seed.put = [](TrainConfig& c, const SettingValue& v) { c.seed = std::get<uint64_t>(v); };
  t.push_back(With(std::move(seed), always, {.identity = "seed", .text = true, .metrics = true}));
  return t;
}

// " (or 'auto' or 'epoch')" for a setting with words; empty without.
std::string OrWords(const Setting& s) {
  if (s.words.empty()) return "";
  std::string out = " (or";
  for (std::size_t i = 0; i < s.words.size(); ++i) {
    out += fmt::format("{} '{}'", i == 0 ? "" : " or", s.words[i].word);
  }
  return out + ")";
}

// "an integer or 'auto'": what a malformed value should have been.
std::string Expected(const Setting& s) {
  std::string out = s.type == SettingType::kInt ? "an integer" : "a number";
  for (const SettingWord& w : s.words) out += fmt::format(" or '{}'", w.word);
  return out;
}

const SettingWord* WordOf(const Setting& s, double value) {
  for (const SettingWord& w : s.words) {
    if (w.value == value) return &w;
  }
  return nullptr;
}

[[noreturn]] void Malformed(const Setting& s, std::string_view what, std::string_view text) {
  throw SettingError(fmt::format("`{}`: expected {}, got '{}'", s.key, what, text));
}

template <class T>
T ParseNumber(const Setting& s, std::string_view text, std::string_view what) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) Malformed(s, what, text);
  return value;
}

// The range of ordinary values, as messages write it: "between 1 and 64", "a number in (0, 1]".
std::string Range(const Setting& s) {
  if (s.type == SettingType::kInt) return fmt::format("between {} and {}", s.min, s.max);
  return fmt::format("a number in {}{}, {}]", s.min_exclusive ? "(" : "[", s.min, s.max);
}

bool InRange(const Setting& s, double v) {
  const bool above = s.min_exclusive ? v > s.min : v >= s.min;
  return std::isfinite(v) && above && v <= s.max;
}

}  // namespace

SettingError::SettingError(std::string marked)
    : Error(Rendered(marked, Bare)), marked_(std::move(marked)) {}

std::string SettingError::Render(
    const std::function<std::string(std::string_view key)>& spell) const {
  return Rendered(marked_, spell);
}

std::span<const Setting> TrainSettings() {
  static const std::vector<Setting> table = MakeTable();
  return table;
}

const Setting& FindSetting(std::string_view key) {
  const Setting* best = nullptr;
  std::size_t best_distance = 3;  // suggest only close names
  for (const Setting& s : TrainSettings()) {
    if (s.key == key) return s;
    const std::size_t d = EditDistance(key, s.key);
    if (d < best_distance) {
      best = &s;
      best_distance = d;
    }
  }
  throw SettingError(fmt::format("no setting '{}'{}", key,
                                 best ? fmt::format(" (did you mean `{}`?)", best->key) : ""));
}

SettingValue ParseSetting(const Setting& s, std::string_view text) {
  for (const SettingWord& w : s.words) {
    if (text != w.word) continue;
    if (s.type == SettingType::kInt) return int64_t(w.value);
    if (s.type == SettingType::kText) return std::string(text);  // its parser reads the word
    return w.value;
  }
  switch (s.type) {
    case SettingType::kInt: {
      const auto v = ParseNumber<long long>(s, text, Expected(s));
      if (v < s.min || v > s.max) {
        throw SettingError(
            fmt::format("`{}`: must be {}{}, got {}", s.key, Range(s), OrWords(s), text));
      }
      return int64_t{v};
    }
    case SettingType::kReal: {
      const double v = ParseNumber<double>(s, text, Expected(s));
      if (!InRange(s, v)) {
        throw SettingError(
            fmt::format("`{}`: must be {}{}, got {}", s.key, Range(s), OrWords(s), text));
      }
      return v;
    }
    case SettingType::kCount:
      if (!text.empty() && text[0] == '-') Malformed(s, "a non-negative integer", text);
      return ParseNumber<uint64_t>(s, text, "a non-negative integer");
    case SettingType::kChoice:
      for (const auto& [name, help] : s.choices) {
        if (text == name) return std::string(text);
      }
      {
        std::vector<std::string> names;
        for (const auto& [name, help] : s.choices) names.push_back(name);
        Malformed(s, fmt::format("one of {}", fmt::join(names, ", ")), text);
      }
    case SettingType::kSwitch:
      if (text != "" && text != "true" && text != "false") Malformed(s, "true or false", text);
      return text != "false";
    case SettingType::kSizes:
      try {
        ParseHiddenSizes(std::string(text));
      } catch (const Error&) {
        Malformed(s, "layer sizes like 256,128", text);
      }
      return std::string(text);
    case SettingType::kText:
      try {
        s.check_text(text);
      } catch (const Error& e) {
        throw SettingError(fmt::format("`{}`: {}", s.key, e.what()));
      }
      return std::string(text);
  }
  throw Error("ParseSetting: unknown setting type");
}

void CheckSetting(const Setting& s, const SettingValue& value) {
  auto refuse = [&](const std::string& what) {
    throw SettingError(fmt::format("`{}`: {}, got {}", s.key, what, FormatSetting(value, false)));
  };
  // A word's value, as a config built in code holds it: "(or 0 for 'auto')".
  std::string words;
  for (const SettingWord& w : s.words) words += fmt::format(" or {} for '{}'", w.value, w.word);
  if (!words.empty()) words = " (or " + words.substr(4) + ")";
  switch (s.type) {
    case SettingType::kInt: {
      const auto* v = std::get_if<int64_t>(&value);
      if (v == nullptr) refuse("expected an integer");
      if ((*v < s.min || *v > s.max) && WordOf(s, double(*v)) == nullptr) {
        refuse(fmt::format("must be {}{}", Range(s), words));
      }
      return;
    }
    case SettingType::kReal: {
      const auto* v = std::get_if<double>(&value);
      if (v == nullptr) refuse("expected a number");
      if (!InRange(s, *v) && WordOf(s, *v) == nullptr)
        refuse(fmt::format("must be {}{}", Range(s), words));
      return;
    }
    case SettingType::kCount:
      if (!std::holds_alternative<uint64_t>(value)) refuse("expected a non-negative integer");
      return;
    case SettingType::kSwitch:
      if (!std::holds_alternative<bool>(value)) refuse("expected true or false");
      return;
    case SettingType::kChoice:
    case SettingType::kSizes:
    case SettingType::kText: {
      const auto* v = std::get_if<std::string>(&value);
      if (v == nullptr) refuse("expected a name");
      ParseSetting(s, *v);  // names one of the choices; sizes are positive
      return;
    }
  }
}

void ApplySetting(TrainConfig& config, std::string_view key, std::string_view text) {
  const Setting& s = FindSetting(key);
  s.put(config, ParseSetting(s, text));
}

std::string SettingText(const Setting& s, const SettingValue& value) {
  if (const auto* v = std::get_if<int64_t>(&value)) {
    if (const SettingWord* w = WordOf(s, double(*v))) return w->word;
  }
  if (const auto* v = std::get_if<double>(&value)) {
    if (const SettingWord* w = WordOf(s, *v)) return w->word;
  }
  return FormatSetting(value, false);
}

std::string FormatSetting(const SettingValue& value, bool exact) {
  return std::visit(
      [exact](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>) {
          return exact ? fmt::format("{:.17g}", v) : fmt::format("{}", v);
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

namespace {

// "a, b and c".
template <class T, class Name>
std::string JoinAnd(const std::vector<T>& items, Name name) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += name(items[i]);
  }
  return out;
}

template <class T>
bool Holds(const std::vector<T>& items, T value) {
  return items.empty() || std::find(items.begin(), items.end(), value) != items.end();
}

// The models, solvers or backends of `mask` among `group` bits, as a message names them.
std::string RunsNames(unsigned mask, std::initializer_list<std::pair<unsigned, const char*>> group) {
  std::vector<const char*> names;
  for (const auto& [bit, name] : group) {
    if (mask & bit) names.push_back(name);
  }
  return JoinAnd(names, [](const char* n) { return std::string(n); });
}

std::string JsonValue(const Setting& s, const SettingValue& value) {
  if (s.type == SettingType::kChoice || s.type == SettingType::kSizes ||
      s.type == SettingType::kText) {
    return fmt::format("\"{}\"", std::get<std::string>(value));
  }
  return FormatSetting(value, false);
}

}  // namespace

std::string WhyNotApplied(const Setting& s, const TrainConfig& c, int ranks) {
  const Applies& a = s.applies;
  if (a.inert != nullptr && a.inert(c)) return "";  // its off value: no run ignores it
  const bool across = ranks > 1;
  if (a.ranks_only && !across) return "it applies across ranks (mpirun); this run is one process";
  // A setting of the ranks' combination applies across ranks whatever the model, solver, backend
  // and scheme inside a rank; its own conditions (the optimiser, the outer rule) still hold.
  const bool inside = !(a.across_ranks && across);
  const unsigned model = IsLinear(c.model) ? kLinearModels : kMlpModel;
  const char* model_name = NameOf<ModelKind>(kModelKinds, c.model);
  if (inside && (!(a.runs & model) || !Holds(a.models, c.model))) {
    const std::string models =
        !a.models.empty()
            ? JoinAnd(a.models, [](ModelKind m) { return std::string(NameOf<ModelKind>(kModelKinds, m)); })
            : RunsNames(a.runs, {{kLinearModels, "the linear models"}, {kMlpModel, "mlp"}});
    return fmt::format("it applies to `model` {}; this run's is {}", models, model_name);
  }
  if (inside && !(a.runs & SolverBit(c.solver))) {
    return fmt::format("it applies to `solver` {}; this run's is {}",
                       RunsNames(a.runs, {{kSgdSolver, "sgd"}, {kCdSolver, "cd"},
                                          {kDualCdSolver, "dual-cd"}, {kNewtonSolver, "newton"}}),
                       NameOf<Solver>(kSolvers, c.solver));
  }
  const unsigned backend = c.backend == Backend::kCpu ? kCpuBackend : kOffloadBackend;
  if (inside && !(a.runs & backend)) {
    return fmt::format("it applies to `backend` {}; this run's is {}",
                       RunsNames(a.runs, {{kCpuBackend, "cpu"}, {kOffloadBackend, "offload"}}),
                       NameOf<Backend>(kBackends, c.backend));
  }
  if (inside && c.scheme != SchemeKind::kAuto && !Holds(a.schemes, c.scheme)) {
    return fmt::format("it applies to `scheme` {}{}; this run's is {}",
                       JoinAnd(a.schemes, [](SchemeKind k) { return std::string(SchemeName(k)); }),
                       a.across_ranks ? " (and across ranks)" : "", SchemeName(c.scheme));
  }
  const OptimizerKind optimizer = ResolvedOptimizer(c);
  if (!Holds(a.optimizers, optimizer)) {
    return fmt::format(
        "it applies to `optimizer` {}; this run's is {}{}",
        JoinAnd(a.optimizers,
                [](OptimizerKind k) { return std::string(NameOf<OptimizerKind>(kOptimizerKinds, k)); }),
        NameOf<OptimizerKind>(kOptimizerKinds, optimizer),
        c.optimizer.kind == OptimizerKind::kAuto ? fmt::format(" (auto for {})", model_name) : "");
  }
  if (!Holds(a.schedules, c.schedule)) {
    return fmt::format(
        "it applies to `schedule` {}; this run's is {}",
        JoinAnd(a.schedules,
                [](ScheduleKind k) { return std::string(NameOf<ScheduleKind>(kScheduleKinds, k)); }),
        NameOf<ScheduleKind>(kScheduleKinds, c.schedule));
  }
  const bool held_out = c.validation_fraction > 0 || c.held_out_file;
  if (a.held_out && !held_out) {
    return "it applies where rows are held out (--validation FILE or --validation-fraction); this "
           "run holds none out";
  }
  // --schedule auto may resolve to adaptive (run/resolve.cpp, ResolveSchedule, which refuses it
  // where it does not).
  if (a.stopping && !held_out && !(c.tol > 0) && c.schedule != ScheduleKind::kAdaptive &&
      c.schedule != ScheduleKind::kAuto) {
    return "it applies where rows are held out (--validation FILE or --validation-fraction), "
           "with --tol, or under --schedule adaptive or auto; this run has none of them";
  }
  if (!Holds(a.outer_kinds, c.outer.kind)) {
    return fmt::format(
        "it applies to `outer-optimizer` {}; this run's is {}",
        JoinAnd(a.outer_kinds,
                [](OuterKind k) { return std::string(NameOf<OuterKind>(kOuterKinds, k)); }),
        NameOf<OuterKind>(kOuterKinds, c.outer.kind));
  }
  return "";
}

bool DiffersFromDefault(const Setting& s, const TrainConfig& given) {
  static const TrainConfig defaults;
  return s.get(given) != s.get(defaults);
}

std::string IdentityLines(const TrainConfig& c) {
  std::string out;
  for (const Setting& s : TrainSettings()) {
    const SettingRecord& r = s.record;
    if (r.identity == nullptr || (r.when != nullptr && !r.when(c))) continue;
    const bool dash = r.dash && !WhyNotApplied(s, c).empty();
    out += fmt::format("{}={}\n", r.identity, dash ? "-" : FormatSetting(s.get(c), true));
  }
  return out;
}

std::string SettingsTextLines(const TrainConfig& c) {
  std::string out;
  for (const Setting& s : TrainSettings()) {
    const SettingRecord& r = s.record;
    if (!r.text || (r.when != nullptr && !r.when(c))) continue;
    std::string name = s.key;
    std::replace(name.begin(), name.end(), '-', '_');
    out += fmt::format("{}={}\n", name, FormatSetting(s.get(c), false));
  }
  return out;
}

std::string MetricsFields(const TrainConfig& c) {
  std::string out;
  for (const Setting& s : TrainSettings()) {
    if (!s.record.metrics) continue;
    std::string name = s.key;
    std::replace(name.begin(), name.end(), '-', '_');
    out += fmt::format("\"{}\":{},", name, JsonValue(s, s.get(c)));
  }
  return out;
}

std::string ValueName(const Setting& s) {
  switch (s.type) {
    case SettingType::kInt:
    case SettingType::kCount:
    case SettingType::kReal: {
      std::string out = s.type == SettingType::kReal ? "X" : "N";
      for (const SettingWord& w : s.words) out += "|" + w.word;
      return out;
    }
    case SettingType::kChoice:
      return "NAME";
    case SettingType::kSwitch:
      return "";
    case SettingType::kSizes:
      return "SIZES";
    case SettingType::kText:
      return s.text_name;
  }
  return "";
}

}  // namespace parsgd
