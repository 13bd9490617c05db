#include "parsgd/config/train_config.hpp"

#include <fmt/format.h>

#include "parsgd/config/settings.hpp"

namespace parsgd {

namespace {

// The solvers other than sgd (--solver dual-cd, cd, newton): the settings that apply to them.
void ValidateCoordinateSolver(const TrainConfig& c) {
  auto fail = [](const std::string& what) { throw SettingError(what); };
  const bool dual = c.solver == Solver::kDualCd;
  const std::string solver = std::string(NameOf<Solver>(kSolvers, c.solver));
  const ModelKind m = c.model;
  const bool model_ok = m == ModelKind::kLogistic || m == ModelKind::kSquaredHinge ||
                        (dual ? m == ModelKind::kHinge : m == ModelKind::kSquared);
  if (!model_ok) {
    fail(fmt::format("`solver` {} trains `model` {}; not {}", solver,
                     dual ? "hinge, squared-hinge (the SVMs' duals, LIBLINEAR -s 3, -s 1) and "
                            "logistic (LIBLINEAR -s 7)"
                          : "squared, squared-hinge and logistic",
                     NameOf<ModelKind>(kModelKinds, c.model)));
  }
  if (dual && c.bias != Bias::kOff) {
    fail(
        "`solver` dual-cd solves the problem without a bias (an unregularised bias adds the "
        "constraint sum y_i a_i = 0, which coordinate descent cannot keep): give `bias` off");
  }
  if (c.backend != Backend::kCpu) fail(fmt::format("`solver` {} runs on `backend` cpu", solver));
  if (dual && c.l2 == 0) {
    fail("`solver` dual-cd needs `l2` above 0: the box of the dual is [0, C], C = 1 / (rows l2)");
  }
  if (c.batch > 1) {
    fail(c.solver == Solver::kNewton
             ? fmt::format("`solver` newton steps on the gradient over every row; `batch` {}",
                           c.batch)
             : fmt::format("`solver` {} steps one {} at a time; `batch` {}", solver,
                           dual ? "sample" : "coordinate", c.batch));
  }
  if (c.optimizer.kind != OptimizerKind::kAuto && c.optimizer.kind != OptimizerKind::kSgd) {
    fail(fmt::format("`solver` {} takes {} steps: `optimizer` {} does not apply", solver,
                     c.solver == Solver::kNewton ? "Newton" : "exact coordinate",
                     NameOf<OptimizerKind>(kOptimizerKinds, c.optimizer.kind)));
  }
}

// The scheme's row (scheme/scheme_kind.hpp) against the run: the model, the solver, the backend,
// minibatches, --deterministic and ranks. Each message names the schemes that would do, from the
// rows.
void ValidateScheme(const TrainConfig& c, int ranks) {
  const SchemeInfo& s = SchemeOf(c.scheme);
  auto fail = [](const std::string& what) { throw SettingError(what); };
  auto names = [&](auto pred) { return SchemeNames(pred); };
  auto runs_here = [&](const SchemeInfo& o) {
    return TrainsModel(o, c.model) && RunsSolver(o, c.solver) && RunsOn(o, c.backend);
  };
  if (!TrainsModel(s, c.model)) {
    fail(fmt::format("`model` {} trains under the schemes {}; not {} ({})",
                     NameOf<ModelKind>(kModelKinds, c.model),
                     names([&](const SchemeInfo& o) { return TrainsModel(o, c.model); }), s.name,
                     s.help));
  }
  if (!RunsSolver(s, c.solver)) {
    fail(fmt::format("`solver` {} runs under the schemes {}; not {}",
                     NameOf<Solver>(kSolvers, c.solver),
                     names([&](const SchemeInfo& o) { return RunsSolver(o, c.solver); }), s.name));
  }
  if (!RunsOn(s, c.backend)) {
    fail(fmt::format("`backend` {} runs the schemes {}; not {}",
                     NameOf<Backend>(kBackends, c.backend),
                     names([&](const SchemeInfo& o) { return RunsOn(o, c.backend); }), s.name));
  }
  if (c.batch > 1 && IsLinear(c.model) && !s.minibatch) {
    fail(fmt::format(
        "`batch` {} with `scheme` {}: it updates a linear model per sample; "
        "minibatches apply to the {} schemes",
        c.batch, s.name, names([&](const SchemeInfo& o) { return o.minibatch && runs_here(o); })));
  }
  if (c.deterministic && !s.deterministic) {
    fail(fmt::format(
        "`deterministic` with `scheme` {}: its update order depends on thread "
        "timing; use {}",
        s.name,
        SchemeNames([&](const SchemeInfo& o) { return o.deterministic && runs_here(o); }, " or ")));
  }
  if (ranks > 1 && !RunsInsideRanks(s)) {
    fail(fmt::format(
        "`scheme` {} across ranks is not written yet: inside a rank use {}", s.name,
        SchemeNames([&](const SchemeInfo& o) { return RunsInsideRanks(o) && runs_here(o); }, " or ")));
  }
}

// Across ranks: what the ranks can combine. The coordinate solvers keep scores or dual variables
// that an average of the ranks' weights would not match; the offload backend keeps the model on
// the device. Under `ranks-scheme` sync every step's minibatch gradient is summed over the ranks,
// so the scheme inside a rank is the one that takes global minibatch steps: sync. The outer
// optimiser acts on the ranks' average (the outermost one: where DiLoCo and SlowMo place it).
void ValidateRanks(const TrainConfig& c) {
  if (c.solver != Solver::kSgd) {
    throw SettingError(fmt::format(
        "`solver` {} across ranks: the ranks' weights averaged would not match its scores or "
        "dual variables; across ranks the solver is sgd (for now)",
        NameOf<Solver>(kSolvers, c.solver)));
  }
  if (c.backend == Backend::kOffload) {
    throw SettingError("`backend` offload across ranks is not written yet: use the cpu backend");
  }
  if (c.ranks_scheme == RanksScheme::kSync) {
    if (c.scheme != SchemeKind::kAuto && c.scheme != SchemeKind::kSync) {
      throw SettingError(fmt::format(
          "`scheme` {} inside each rank with `ranks-scheme` sync, which sums every minibatch's "
          "gradient over the ranks: the scheme inside a rank is sync (`scheme` auto chooses it; "
          "with one thread it is sequential minibatch SGD)",
          NameOf<SchemeKind>(kSchemeKinds, c.scheme)));
    }
    if (c.ranks_period != -1) {
      throw SettingError(
          "`ranks-period` with `ranks-scheme` sync: the ranks meet at every "
          "minibatch; the period is for average and gossip");
    }
  }
  if (c.average_rule != AverageRule::kMean && c.average_rule != AverageRule::kAuto &&
      c.ranks_scheme != RanksScheme::kAverage) {
    throw SettingError(fmt::format(
        "`average-rule` {} across ranks chooses the members of the ranks' average: it needs "
        "`ranks-scheme` average",
        NameOf<AverageRule>(kAverageRules, c.average_rule)));
  }
  if (!c.outer.plain() && c.ranks_scheme != RanksScheme::kAverage) {
    throw SettingError(fmt::format(
        "`outer-optimizer` {} across ranks acts on the ranks' average: it needs `ranks-scheme` "
        "average",
        NameOf<OuterKind>(kOuterKinds, c.outer.kind)));
  }
}

// The MLP's model partitions (pipeline, vertical, subnet) and their own settings.
void ValidatePartitions(const TrainConfig& c) {
  auto fail = [](const std::string& what) { throw SettingError(what); };
  const bool partition = IsModelPartition(c.scheme);
  const std::string scheme(NameOf<SchemeKind>(kSchemeKinds, c.scheme));
  if (!partition) return;
  if (c.average_state) {
    fail(fmt::format("`average-state` with `scheme` {}: {}", scheme,
                     c.scheme == SchemeKind::kSubnet
                         ? "the optimiser state of every unit is reassembled with its weights"
                         : "one optimiser state, of the one model"));
  }
}

// --schedule optimal: 1 / (l2 (t0 + t)) is plain per-sample SGD's step on an L2-regularised
// linear model (the L2 term then turns the model into the average of every gradient taken,
// scaled; scikit-learn's SGDClassifier default). The settings under which that holds.
void ValidateOptimalSchedule(const TrainConfig& c, int ranks) {
  auto fail = [](const std::string& what) {
    throw SettingError("`schedule` optimal (1 / (l2 (t0 + t))): " + what);
  };
  if (!IsLinear(c.model)) fail("for the linear models; the mlp's objective is not convex");
  if (c.solver != Solver::kSgd) fail("for `solver` sgd; the coordinate solvers take no step size");
  if (c.optimizer.kind != OptimizerKind::kSgd && c.optimizer.kind != OptimizerKind::kAuto) {
    fail(fmt::format("plain SGD's schedule; not `optimizer` {}",
                     NameOf<OptimizerKind>(kOptimizerKinds, c.optimizer.kind)));
  }
  if (c.l2 == 0 && c.l1 == 0) {
    fail("needs `l2` or `l1` above 0 (the step is 1 / (l2 + l1) over the samples seen)");
  }
  if (c.normalize != Normalization::kNone) {
    fail(
        "one step size for every feature, as the l2 term's: give `normalize` none (scale the "
        "features to about 1 first)");
  }
  if (c.decay > 0) fail("its decay is derived (rows / t0): leave `decay` auto");
  if (c.batch > 1) fail(fmt::format("per-sample steps; not `batch` {}", c.batch));
  if (c.scheme == SchemeKind::kSync || (ranks > 1 && c.ranks_scheme == RanksScheme::kSync)) {
    fail("per-sample steps; `scheme` sync and `ranks-scheme` sync step on minibatches");
  }
}


// A setting the user gave that the run would ignore (Setting::applies), refused by name.
void ValidateApplied(const TrainConfig& c, int ranks, const GivenSetting& given) {
  for (const Setting& s : TrainSettings()) {
    if (!(given ? given(s) : DiffersFromDefault(s, c))) continue;
    const std::string why = WhyNotApplied(s, c, ranks);
    if (why.empty()) continue;
    const std::string value = s.is_switch() ? "" : " " + SettingText(s, s.get(c));
    throw SettingError(fmt::format("`{}`{} would be ignored: {}", s.key, value, why));
  }
}

}  // namespace

void ValidateConfig(const TrainConfig& c, int ranks, const GivenSetting& given) {
  // Each setting's own range (config/settings.hpp), then the rules between settings.
  for (const Setting& s : TrainSettings()) CheckSetting(s, s.get(c));
  auto fail = [](const std::string& what) { throw SettingError(what); };
  ValidateScheme(c, ranks);
  if (c.held_out_file && c.validation_fraction > 0) {
    fail("`validation-fraction` holds out training rows where held-out rows of their own are "
         "given (--validation FILE): give one of them");
  }
  if (c.block_size != 0 && c.order != OrderKind::kBlock && c.order != OrderKind::kAuto) {
    fail(
        fmt::format("`block-size` would be ignored: it sizes the blocks of `order` block, and "
                    "`order` is {}",
                    NameOf<OrderKind>(kOrderKinds, c.order)));
  }
  if (c.order == OrderKind::kBlock && c.validation_fraction > 0) {
    fail(
        "`validation-fraction` copies the rows it keeps into memory; `order` block reads them "
        "from their file: hold the validation rows out in a file of their own (--validation "
        "FILE)");
  }
  if (c.backend == Backend::kOffload && !IsLinear(c.model)) {
    fail(
        "`backend` offload trains the linear models (logistic, hinge, squared, softmax); the "
        "mlp runs on the cpu backend");
  }
  if (c.backend == Backend::kOffload && IsRegressor(c.model)) {
    fail(fmt::format(
        "`backend` offload trains the models logistic, hinge, squared, squared-hinge and "
        "softmax; `model` {} runs on the cpu backend",
        NameOf<ModelKind>(kModelKinds, c.model)));
  }
  if (c.bias == Bias::kOff && !IsLinear(c.model)) {
    fail("`bias` off applies to the linear models; an mlp's layers keep their biases");
  }
  if (c.bias == Bias::kOff && c.backend == Backend::kOffload) {
    fail("`bias` off runs on the cpu backend; `backend` offload trains the bias");
  }
  if (c.solver != Solver::kSgd) ValidateCoordinateSolver(c);
  ValidatePartitions(c);
  if (ranks > 1) {
    ValidateRanks(c);
  } else if (!c.outer.plain() && c.scheme != SchemeKind::kAverage) {
    fail(fmt::format("`outer-optimizer` {} `outer-learning-rate` {}: the outer step acts on the "
                     "replicas' average, so it needs `scheme` average (gossip takes no average)",
                     NameOf<OuterKind>(kOuterKinds, c.outer.kind), c.outer.learning_rate));
  }
  if (c.schedule == ScheduleKind::kOptimal) ValidateOptimalSchedule(c, ranks);
  if (c.schedule == ScheduleKind::kGeometric && c.decay > 1) {
    fail(fmt::format("`decay` for the geometric schedule is a factor per epoch in (0, 1], got {}",
                     c.decay));
  }
  ValidateApplied(c, ranks, given);
}

bool CheckedConfig::Given(const Setting& setting) const {
  return given_ ? given_(setting) : DiffersFromDefault(setting, config_);
}

}  // namespace parsgd
