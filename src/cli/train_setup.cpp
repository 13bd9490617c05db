#include "train_setup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "parsgd/config/settings.hpp"
#include "parsgd/exec/executor.hpp"

namespace parsgd::cli {
namespace {

std::string Plural(int n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "given --model softmax --epochs 3": the training settings the command line gave, in the table's
// order, as the user wrote them.
std::string GivenLine(const OptionParser& parser) {
  std::string out;
  for (const Setting& s : TrainSettings()) {
    if (!parser.Given(s.key)) continue;
    for (const std::string& value : parser.Values(s.key)) {
      out += s.is_switch() ? fmt::format(" --{}", s.key) : fmt::format(" --{} {}", s.key, value);
    }
  }
  return out.empty() ? "  given: the data only; every setting its default\n"
                     : "  given:" + out + "\n";
}

// Across ranks: how the ranks' models meet.
std::string RanksLine(const TrainConfig& c, const ResolvedSettings& s) {
  if (s.ranks <= 1) return "";
  if (c.ranks_scheme == RanksScheme::kSync) {
    return fmt::format(
        "  across {} ranks, each training its share of the rows: every minibatch's gradient "
        "summed over the ranks (sync)\n",
        s.ranks);
  }
  const bool outer = !c.outer.plain();
  return fmt::format(
      "  across {} ranks, each training its share of the rows: {} of the models{}{}{}\n", s.ranks,
      NameOf<RanksScheme>(kRanksSchemes, c.ranks_scheme),
      s.ranks_period > 0 ? fmt::format(" every {} updates of each rank ({} times an epoch)",
                                       s.ranks_period, s.rank_parts)
                         : std::string(" once an epoch"),
      c.average_state ? ", optimiser state too" : "",
      outer ? fmt::format(", outer {} rate {}{}", NameOf<OuterKind>(kOuterKinds, c.outer.kind),
                          c.outer.learning_rate,
                          c.outer.kind == OuterKind::kSgd
                              ? ""
                              : fmt::format(" momentum {}", c.outer.momentum))
            : "");
}

// The model, the scheme with its own settings, the order, where the workers run, the seed.
std::string RunLine(const Trainer& trainer, const TrainConfig& given, const Dataset& train) {
  const TrainConfig& c = trainer.config();
  const ResolvedSettings& s = trainer.settings();
  std::string model = NameOf<ModelKind>(kModelKinds, c.model);
  if (c.model == ModelKind::kMlp) {
    model += fmt::format(" {}-{}-{}", train.features(), fmt::join(c.hidden, "-"), s.outputs);
  } else if (!IsBinary(c.model)) {
    model += fmt::format(" ({} classes)", s.outputs);
  }
  if (c.bias == Bias::kOff) model += " (bias off)";
  std::string scheme = SchemeName(s.scheme);
  if (given.scheme == SchemeKind::kAuto) scheme += " (auto)";
  if (s.batch > 1) scheme += fmt::format(" (batch {})", s.batch);
  scheme += trainer.SchemeDetails();
  std::string where;
  if (c.backend == Backend::kOffload) {
    where = fmt::format("offload to {} ({})", s.device, Plural(s.workers, "worker"));
  } else {
    const int cores = AvailableCores();
    where = fmt::format("{}{} ({})", Plural(s.threads, "thread"),
                        s.threads > cores
                            ? fmt::format(", more than the {} this process may use", Plural(cores, "core"))
                            : "",
                        Plural(s.workers, "worker"));
  }
  return fmt::format("  model {}, scheme {}, order {}, {}, seed {}\n", model, scheme,
                     NameOf<OrderKind>(kOrderKinds, c.order), where, c.seed);
}

// The steps: the solver's stopping rule, or the optimiser, the schedule and the regulariser.
std::string StepLines(const TrainConfig& c, const ResolvedSettings& s, const Dataset& train) {
  if (c.solver != Solver::kSgd) {
    const bool dual = c.solver == Solver::kDualCd;
    return fmt::format(
        "  at most {} epochs{}, solver {} (C = 1 / (rows l2) = {:.4g}), l2 {:.3g}{}, {}\n",
        s.epochs, s.epochs_auto ? " (auto)" : "", NameOf<Solver>(kSolvers, c.solver),
        1.0 / (static_cast<double>(train.rows()) * s.l2), s.l2,
        s.l2_auto ? " (auto: 1/rows)" : "",
        s.tol <= 0 ? std::string("--tol none")
        : dual     ? fmt::format("stops at a relative duality gap of {:.3g}{}", s.tol,
                                 s.tol_auto ? " (auto)" : "")
                   : fmt::format("stops once an epoch lowers the objective by at most {:.3g} of "
                                 "it{}",
                                 s.tol, s.tol_auto ? " (auto)" : ""));
  }
  const bool uses_decay =
      c.schedule == ScheduleKind::kInvTime || c.schedule == ScheduleKind::kGeometric;
  const std::string schedule_detail =
      uses_decay ? fmt::format(" (decay {})", s.decay)
      : c.schedule == ScheduleKind::kOptimal
          ? fmt::format(" (1 / (l2 (t0 + t)), t0 {:.6g} samples)", 1.0 / (s.eta0 * s.l2))
          : "";
  std::string out = fmt::format(
      "  {} epochs{}, optimizer {}, eta0 {:.4g}{}, schedule {}{}, normalize {}, l2 {:.3g}{}\n",
      s.epochs, s.epochs_auto ? " (auto)" : "", NameOf<OptimizerKind>(kOptimizerKinds, s.optimizer),
      s.eta0, s.eta0_auto ? " (auto)" : "", NameOf<ScheduleKind>(kScheduleKinds, c.schedule),
      schedule_detail, NameOf<Normalization>(kNormalizations, c.normalize), s.l2,
      !s.l2_auto          ? ""
      : IsLinear(c.model) ? " (auto: 1/rows)"
                          : " (auto)");
  if (s.tol > 0) {
    out += fmt::format(
        "  stops once 5 epochs in a row do not lower the best objective by more than {:.3g} of "
        "it\n",
        s.tol);
  }
  return out;
}

}  // namespace

std::string SetupLines(const OptionParser& parser, const Trainer& trainer, const Dataset& train,
                       uint64_t rows, uint64_t nonzeros) {
  const ResolvedSettings& s = trainer.settings();
  TrainConfig given;
  given.scheme = parser.Given("scheme") ? trainer.config().scheme : SchemeKind::kAuto;
  std::string out =
      fmt::format("parsgd train: {} rows x {} features ({} nonzeros) from {}{}\n", rows,
                  train.features(), nonzeros, train.source(),
                  train.zero_based() == ZeroBased::kYes ? " (zero-based indices)" : "");
  out += GivenLine(parser);
  out += RanksLine(trainer.config(), s);
  out += RunLine(trainer, given, train);
  out += StepLines(trainer.config(), s, train);
  if (!s.scheme_reason.empty()) {
    out += fmt::format("  auto: scheme {}: {}\n", SchemeName(s.scheme), s.scheme_reason);
  }
  return out;
}

std::string ConvergedLine(const EpochReport& r, const ResolvedSettings& s, Solver solver) {
  if (const std::optional<double> gap = r.relative_gap()) {
    return fmt::format("converged after {} epochs: relative duality gap {:.3g} <= --tol {:.3g}",
                       r.epoch, *gap, s.tol);
  }
  const bool sgd = solver == Solver::kSgd;
  return fmt::format(
      "converged after {} epochs: {} did not lower the best objective by more than "
      "--tol {:.3g} of it",
      r.epoch, sgd ? "5 epochs in a row" : "the last epoch", s.tol);
}

std::string SettingsText(const Trainer& trainer, const std::string& train,
                         const std::string& init) {
  const ResolvedSettings& s = trainer.settings();
  std::string out = fmt::format("train={}\n", train) + SettingsTextLines(trainer.config()) +
                    fmt::format("workers={}\ndevice={}\n", s.workers, s.device);
  if (!init.empty()) out += fmt::format("init={}\n", init);
  return out;
}

}  // namespace parsgd::cli
