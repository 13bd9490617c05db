#include "train_setup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/class_weights.hpp"
#include "parsgd/util/control_bytes.hpp"

namespace parsgd::cli {
namespace {

std::string Plural(int n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "  head item item ...": the items joined by `separator`, wrapped between items (never inside one,
// so a flag stays beside its value) to the terminal's width, continuation lines indented by four.
std::string Line(std::string_view head, const std::vector<std::string>& items,
                 std::string_view separator = " ") {
  const std::size_t width = static_cast<std::size_t>(TerminalWidth());
  std::string out = fmt::format("  {}", head);
  std::size_t column = out.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = i + 1 < items.size() ? items[i] + std::string(separator) : items[i];
    const std::string_view trimmed = std::string_view(item).substr(0, item.find_last_not_of(' ') + 1);
    if (i > 0 && column + trimmed.size() > width) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n    ";
      column = 4;
    }
    out += item;
    column += item.size();
  }
  return out + "\n";
}

// "  text": wrapped at words to the terminal's width, continuation lines indented by four.
std::string Sentence(std::string_view text) {
  return "  " + WrapText(text, 4, 2, static_cast<std::size_t>(TerminalWidth())) + "\n";
}

// "given --label-column y --model softmax --epochs 3": the read options (kReadOptions) and the
// training settings the command line gave, in their tables' order, as the user wrote them.
std::string GivenLine(const OptionParser& parser) {
  std::vector<std::string> items;
  for (const ReadOption& option : kReadOptions) {
    if (!parser.Given(option.key)) continue;
    for (const std::string& value : parser.Values(option.key)) {
      items.push_back(fmt::format("--{} {}", option.key, value));
    }
  }
  for (const Setting& s : TrainSettings()) {
    if (!parser.Given(s.key)) continue;
    for (const std::string& value : parser.Values(s.key)) {
      items.push_back(s.is_switch() ? fmt::format("--{}", s.key) : fmt::format("--{} {}", s.key, value));
    }
  }
  return items.empty() ? "  given: the data only; every setting its default\n"
                       : Line("given: ", items);
}

// Across ranks: how the ranks' models meet.
std::string RanksLine(const TrainConfig& c, const ResolvedSettings& s) {
  if (c.ranks_scheme == RanksScheme::kSync) {
    return fmt::format(
        "across {} ranks, each training its share of the rows: every minibatch's gradient "
        "summed over the ranks (sync)",
        s.ranks);
  }
  const bool outer = !c.outer.plain();
  return fmt::format(
      "across {} ranks, each training its share of the rows: {} of the models{}{}{}{}", s.ranks,
      NameOf<RanksScheme>(kRanksSchemes, c.ranks_scheme),
      s.ranks_period > 0 ? fmt::format(" every {} updates of each rank ({} times an epoch)",
                                       s.ranks_period, s.rank_parts)
                         : std::string(" once an epoch"),
      c.average_state ? ", optimiser state too" : "",
      c.average_rule == AverageRule::kTouched ? ", each coordinate over the ranks that moved it"
      : c.average_rule == AverageRule::kSum   ? ", the sum of the ranks' changes"
                                              : "",
      outer ? fmt::format(", outer {} rate {}{}", NameOf<OuterKind>(kOuterKinds, c.outer.kind),
                          c.outer.learning_rate,
                          c.outer.kind == OuterKind::kSgd
                              ? ""
                              : fmt::format(" momentum {}", c.outer.momentum))
            : "");
}

// "resolved: --scheme average (auto) --order global ...": every setting that applies to the run and
// that the command line did not give, with the value the run takes, as the settings table names
// it; "(auto)" where the default is a word the run resolved.
std::string ResolvedLine(const OptionParser& parser, const Trainer& trainer) {
  TrainConfig resolved = trainer.config();
  resolved.threads = trainer.settings().threads;  // the config keeps threads as given
  const int ranks = trainer.settings().ranks;
  static const TrainConfig defaults;
  std::vector<std::string> items;
  for (const Setting& s : TrainSettings()) {
    if (parser.Given(s.key) || !WhyNotApplied(s, resolved, ranks).empty()) continue;
    const SettingValue value = s.get(resolved);
    if (s.is_switch()) {
      if (std::get<bool>(value)) items.push_back(fmt::format("--{}", s.key));
      continue;
    }
    const bool automatic = SettingText(s, s.get(defaults)) == "auto";
    // Reals to 4 significant digits, as people read them (the model file keeps them exact); a
    // value that is a word ("none", the asgd's "off") as the word, which the flag takes back.
    const std::string word = SettingText(s, value);
    const std::string text = s.type == SettingType::kReal && word == FormatSetting(value, false)
                                 ? fmt::format("{:.4g}", std::get<double>(value))
                                 : word;
    items.push_back(fmt::format("--{} {}{}", s.key, text, automatic ? " (auto)" : ""));
  }
  return Line("resolved: ", items);
}

// What the run derived beyond its settings: the model's shape, the workers and where they run, the
// scheme's own settings, the step-size rule's formula, the stopping rule.
std::string DerivedLine(const Trainer& trainer, const Dataset& train) {
  const TrainConfig& c = trainer.config();
  const ResolvedSettings& s = trainer.settings();
  std::vector<std::string> items;
  std::string model = "model " + std::string(NameOf<ModelKind>(kModelKinds, c.model));
  if (c.model == ModelKind::kMlp) {
    model += fmt::format(" {}-{}-{}", train.features(), fmt::join(c.hidden, "-"), s.outputs);
  } else if (!IsBinary(c.model)) {
    model += fmt::format(" ({} classes)", s.outputs);
  } else if (s.outputs > 1) {
    model += fmt::format(" (one-vs-rest, {} classes)", s.outputs);
  }
  items.push_back(model);
  items.push_back("scheme " + std::string(SchemeName(s.scheme)) + trainer.SchemeDetails());
  if (c.backend == Backend::kOffload) {
    items.push_back(fmt::format("{} offloaded to {}", Plural(s.workers, "worker"), s.device));
  } else {
    const int cores = AvailableCores();
    items.push_back(fmt::format("{} on {}{}", Plural(s.workers, "worker"),
                                Plural(s.threads, "thread"),
                                s.threads > cores
                                    ? fmt::format(" (more than the {} this process may use)",
                                                  Plural(cores, "core"))
                                    : ""));
  }
  if (!s.kernels.empty()) items.push_back(s.kernels + " kernels");
  if (s.order == OrderKind::kBlock) {
    items.push_back(
        fmt::format("blocks of {} rows ({}){}", s.rows_per_block,
                    SettingText(FindSetting("block-size"), FindSetting("block-size").get(c)),
                    train.mapped() ? ", read from the file" : ", in memory"));
  }
  if (c.solver != Solver::kSgd && s.l1 > 0) {
    // LIBLINEAR's L1-regularised problems (-s 5, -s 6) at C; elastic net has no LIBLINEAR C.
    items.push_back(s.l2 > 0 ? fmt::format("elastic net, l1 {:.4g}, l2 {:.4g}", s.l1, s.l2)
                             : fmt::format("C = 1 / (rows l1) = {:.4g}",
                                           1.0 / (static_cast<double>(train.rows()) * s.l1)));
  } else if (c.solver != Solver::kSgd) {
    items.push_back(fmt::format("C = 1 / (rows l2) = {:.4g}",
                                1.0 / (static_cast<double>(train.rows()) * s.l2)));
  } else if (c.schedule == ScheduleKind::kOptimal) {
    const double alpha = s.l2 + s.l1;  // with --l1: scikit-learn's alpha, the whole penalty
    items.push_back(fmt::format("eta = 1 / ({} (t0 + t)), t0 {:.6g} samples",
                                s.l1 > 0 ? "(l2 + l1)" : "l2", 1.0 / (s.eta0 * alpha)));
  }
  const bool adaptive = c.solver == Solver::kSgd && c.schedule == ScheduleKind::kAdaptive;
  if (adaptive) {
    items.push_back(fmt::format(
        "the step falls to a quarter once {} epochs in a row do not {}, and the run stops at "
        "the {}th such stall",
        c.patience,
        trainer.early_stopping()
            ? fmt::format("better the validation {}",
                          NameOf<ValidationMetric>(kValidationMetrics, c.validation_metric))
            : fmt::format("lower the best objective by more than {:.3g} of the first epoch's",
                          s.tol),
        kAdaptiveCuts + 1));
  } else if (s.tol > 0) {
    items.push_back(
        c.solver == Solver::kDualCd
            ? fmt::format("stops at a relative duality gap of {:.3g}", s.tol)
        : c.solver == Solver::kCd || c.solver == Solver::kNewton
            ? fmt::format("stops once an epoch lowers the objective by at most {:.3g} of it", s.tol)
            : fmt::format("stops once {} epochs in a row do not lower the best objective by "
                          "more than {:.3g} of the first epoch's",
                          c.patience, s.tol));
  }
  if (trainer.early_stopping()) {
    items.push_back(adaptive ? std::string("keeps the best epoch's model")
                             : fmt::format("stops after {} epochs in a row without a better "
                                           "validation {} and keeps the best epoch's model",
                                           c.patience,
                                           NameOf<ValidationMetric>(kValidationMetrics,
                                                                    c.validation_metric)));
  }
  return Line("", items, ", ");
}

// Under the block order, rows that come in runs of one label (a file sorted by class) give each
// block few classes, and the run fails (docs/experiments.md, experiment 9): said when the label
// changes between consecutive rows fewer than a tenth as often as in the same rows shuffled
// (rows (1 - sum of the squared class shares) changes). Empty otherwise, and for real-valued
// labels.
std::string SortedRowsNote(const Dataset& train) {
  if (train.label_kind() != LabelKind::kClasses || train.rows() < 2) return "";
  std::map<float, uint64_t> counts;
  uint64_t changes = 0;
  for (uint64_t i = 0; i < train.rows(); ++i) {
    ++counts[train.label(i)];
    changes += i > 0 && train.label(i) != train.label(i - 1);
    if (counts.size() > 65536) return "";
  }
  double same = 0;
  for (const auto& [label, count] : counts) {
    const double share = static_cast<double>(count) / static_cast<double>(train.rows());
    same += share * share;
  }
  const double expected = static_cast<double>(train.rows() - 1) * (1 - same);
  if (static_cast<double>(changes) >= expected / 10) return "";
  return Sentence(fmt::format(
      "warning: the rows come in runs of one class ({} changes of label in {} rows, about {:.0f} "
      "in the same rows shuffled): each block of the block order holds few classes and the run "
      "follows the last ones; shuffle the rows once before converting them",
      changes, train.rows(), expected));
}

// "auto: center: 5 of 6 number columns centred ...": which columns --center auto centred. Empty
// where none.
// `from_model`: the run starts from a model (--init), whose means the rows were centred by.
std::string CentredLine(const Dataset& train, bool from_model) {
  const std::shared_ptr<const CsvSchema>& schema = train.csv_schema();
  if (schema == nullptr || schema->centres.empty()) return "";
  uint64_t numbers = 0;
  std::vector<std::string> centred;
  for (std::size_t c = 0; c < schema->columns.size(); ++c) {
    if (schema->columns[c].categorical) continue;
    ++numbers;
    if (schema->centres[c] == 0) continue;
    const std::string& name = schema->columns[c].name;
    centred.push_back(name.empty() ? fmt::format("column {}", c) : name);
  }
  constexpr std::size_t kNamed = 6;
  std::string names;
  for (std::size_t i = 0; i < std::min(centred.size(), kNamed); ++i) {
    if (i > 0) names += ", ";
    for (const char ch : centred[i]) AppendVisible(names, ch);
  }
  if (centred.size() > kNamed) names += fmt::format(" and {} more", centred.size() - kNamed);
  if (from_model) {
    return Sentence(fmt::format(
        "center: {} of {} number columns centred by the --init model's means ({})",
        centred.size(), numbers, names));
  }
  return Sentence(fmt::format(
      "auto: center: {} of {} number columns centred, their mean being farther from 0 than their "
      "standard deviation ({}); the model records the means",
      centred.size(), numbers, names));
}

}  // namespace

std::string SetupLines(const OptionParser& parser, const Trainer& trainer, const Dataset& train,
                       uint64_t rows, uint64_t nonzeros) {
  const ResolvedSettings& s = trainer.settings();
  std::string out =
      fmt::format("parsgd train: {} rows x {} features ({} nonzeros) from {}{}\n", rows,
                  train.features(), nonzeros, train.source(),
                  train.zero_based() == ZeroBased::kYes ? " (zero-based indices)" : "");
  out += GivenLine(parser);
  out += ResolvedLine(parser, trainer);
  if (s.ranks > 1) out += Sentence(RanksLine(trainer.config(), s));
  out += DerivedLine(trainer, train);
  out += CentredLine(train, parser.Given("init"));
  if (!s.multiclass_reason.empty()) out += Sentence("auto: multiclass: " + s.multiclass_reason);
  if (!s.scheme_reason.empty()) {
    out += Sentence(fmt::format("auto: scheme {}: {}", SchemeName(s.scheme), s.scheme_reason));
  }
  if (!s.order_reason.empty()) out += Sentence("auto: order block: " + s.order_reason);
  if (s.order == OrderKind::kBlock) out += SortedRowsNote(train);
  return out;
}

std::string ConvergedLine(const EpochReport& r, const ResolvedSettings& s, const TrainConfig& c) {
  const Solver solver = c.solver;
  if (solver == Solver::kSgd && c.schedule == ScheduleKind::kAdaptive) {
    return fmt::format(
        "stopped after {} epochs: the step, cut to a quarter {} times, stalled again", r.epoch,
        kAdaptiveCuts);
  }
  if (r.validation_loss && r.best_epoch + c.patience <= r.epoch) {
    return fmt::format("stopped after {} epochs: {} in a row without a better validation {}",
                       r.epoch, r.epoch - r.best_epoch,
                       NameOf<ValidationMetric>(kValidationMetrics, c.validation_metric));
  }
  if (const std::optional<double> gap = r.relative_gap()) {
    return fmt::format("converged after {} epochs: relative duality gap {:.3g} <= --tol {:.3g}",
                       r.epoch, *gap, s.tol);
  }
  const bool sgd = solver == Solver::kSgd;
  return fmt::format(
      "converged after {} epochs: {} did not lower the best objective by more than "
      "--tol {:.3g} of {}",
      r.epoch, sgd ? fmt::format("{} epochs in a row", c.patience) : "the last epoch", s.tol,
      sgd ? "the first epoch's" : "it");
}

std::string SettingsText(const Trainer& trainer, const std::string& train,
                         const std::string& init) {
  const ResolvedSettings& s = trainer.settings();
  std::string out = fmt::format("train={}\n", train) + SettingsTextLines(trainer.config()) +
                    fmt::format("workers={}\ndevice={}\n", s.workers, s.device);
  if (!trainer.class_weights().empty()) out += ClassWeightsRecord(trainer.class_weights());
  if (!init.empty()) out += fmt::format("init={}\n", init);
  return out;
}

}  // namespace parsgd::cli
