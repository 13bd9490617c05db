// parsgd train: load the data, train, print one line per epoch, write metrics and the model.
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "options.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/mlp_model.hpp"
#include "parsgd/train/trainer.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "report.hpp"
#include "train_options.hpp"

namespace parsgd::cli {
namespace {

struct TrainArgs {
  RunArgs run;
  std::string metrics, save;
  bool quiet = false;
};

void Declare(OptionParser& p, TrainArgs& a) {
  DeclareDataOptions(p, a.run);
  DeclareTrainingOptions(p, a.run);
  p.UInt64("seed", &a.run.config.seed, "seed of every random choice (sample order)");
  p.String("metrics", &a.metrics, "PATH", "write one JSON object per epoch (JSON Lines)");
  p.String("save", &a.save, "PATH", "write the trained model");
  p.Switch("quiet", &a.quiet, "print only the final result");
}

std::string SettingsText(const TrainConfig& c, const ResolvedSettings& s, const std::string& train) {
  return fmt::format(
      "train={}\nmodel={}\nscheme={}\norder={}\nworkers={}\nepochs={}\nlearning_rate={}\n"
      "schedule={}\ndecay={}\nl2={}\nnormalize={}\noptimizer={}\nbatch={}\nperiod={}\n"
      "average_state={}\nhidden={}\nseed={}\n",
      train, NameOf<ModelKind>(kModelKinds, c.model), NameOf<SchemeKind>(kSchemeKinds, c.scheme),
      NameOf<OrderKind>(kOrderKinds, c.order), s.workers, s.epochs, s.eta0,
      NameOf<ScheduleKind>(kScheduleKinds, c.schedule), s.decay, s.l2,
      NameOf<Normalization>(kNormalizations, c.normalize),
      NameOf<OptimizerKind>(kOptimizerKinds, s.optimizer), s.batch, c.period,
      c.average_state, fmt::join(c.hidden, ","), c.seed);
}

void PrintSetup(const TrainConfig& c, const ResolvedSettings& s, const Dataset& train) {
  std::string out = fmt::format("parsgd train: {} rows x {} features ({} nonzeros) from {}\n",
                                train.rows(), train.features(), train.nnz(), train.source());
  std::string scheme = NameOf<SchemeKind>(kSchemeKinds, c.scheme);
  if (s.batch > 1) scheme += fmt::format(" (batch {})", s.batch);
  if (c.scheme == SchemeKind::kAverage) {
    scheme += c.period > 0 ? fmt::format(" (period {})", c.period) : " (period epoch)";
    if (c.average_state) scheme += " (state averaged)";
  }
  std::string model = NameOf<ModelKind>(kModelKinds, c.model);
  if (c.model == ModelKind::kMlp) {
    model += fmt::format(" {}-{}-{}", train.features(), fmt::join(c.hidden, "-"), s.outputs);
  } else if (!IsBinary(c.model)) {
    model += fmt::format(" ({} classes)", s.outputs);
  }
  out += fmt::format("  model {}, scheme {}, order {}, {} threads ({} workers), seed {}\n", model, scheme,
                     NameOf<OrderKind>(kOrderKinds, c.order), s.threads, s.workers, c.seed);
  const bool uses_decay =
      c.schedule == ScheduleKind::kInvTime || c.schedule == ScheduleKind::kGeometric;
  out += fmt::format("  {} epochs{}, optimizer {}, eta0 {:.4g}{}, schedule {}{}, normalize {}, l2 {:.3g}{}\n",
                     s.epochs, s.epochs_auto ? " (auto)" : "",
                     NameOf<OptimizerKind>(kOptimizerKinds, s.optimizer), s.eta0,
                     s.eta0_auto ? " (auto)" : "",
                     NameOf<ScheduleKind>(kScheduleKinds, c.schedule),
                     uses_decay ? fmt::format(" (decay {})", s.decay) : "",
                     NameOf<Normalization>(kNormalizations, c.normalize), s.l2,
                     !s.l2_auto ? "" : IsLinear(c.model) ? " (auto: 1/rows)" : " (auto)");
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int Train(std::span<const std::string> args) {
  TrainArgs a;
  OptionParser parser("train", "Train a linear model with parallel SGD; one line per epoch.");
  Declare(parser, a);
  if (!parser.Parse(args)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  RunArgs& run = a.run;
  ParseHidden(run);
  ValidateConfig(run.config);
  // Open the outputs first: an unwritable path fails before any work, and nothing appears under
  // the final names unless the run succeeds.
  std::optional<AtomicFileWriter> metrics, model_out;
  if (!a.metrics.empty()) metrics.emplace(a.metrics);
  if (!a.save.empty()) model_out.emplace(a.save);

  auto executor = MakeTbbExecutor(run.config.threads);
  const Dataset train = LoadRunData(run.train, run, *executor);
  std::optional<Dataset> test;
  if (!run.test.empty()) test = LoadRunData(run.test, run, *executor);

  Trainer trainer(run.config, train, test ? &*test : nullptr, *executor);
  const ResolvedSettings& s = trainer.settings();
  if (!a.quiet) {
    PrintSetup(run.config, s, train);
    std::printf("%s\n", EpochHeader(test.has_value()).c_str());
  }
  const auto start = std::chrono::steady_clock::now();
  EpochReport last;
  for (int e = 0; e < s.epochs; ++e) {
    last = trainer.RunEpoch();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!a.quiet) {
      std::printf("%s\n", EpochLine(last, s.epochs, elapsed, test.has_value()).c_str());
      std::fflush(stdout);
    }
    if (metrics) {
      metrics->Write(EpochJson(last, run.config, s, elapsed) + "\n");
      metrics->Flush();
    }
  }
  if (test) {
    std::printf("test accuracy %.2f%%, test loss %.6f\n", 100 * *last.test_accuracy, *last.test_loss);
  } else {
    std::printf("train accuracy %.2f%%, objective %.6f\n", 100 * last.train_accuracy, last.objective);
  }
  if (model_out) {
    const std::string settings = SettingsText(run.config, s, run.train);
    if (run.config.model == ModelKind::kMlp) {
      WriteModel(trainer.mlp_model(), settings, *model_out);
    } else {
      WriteModel(trainer.model(), settings, *model_out);
    }
  }
  if (metrics) metrics->Commit();
  return 0;
}

}  // namespace parsgd::cli
