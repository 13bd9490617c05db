// parsgd train: load the data, train, print one line per epoch, write metrics and the model.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string_view>

#include "analysis.hpp"
#include "commands.hpp"
#include "compare_optimum.hpp"
#include "data_memory.hpp"
#include "distinct_paths.hpp"
#include "interrupt.hpp"
#include "options.hpp"
#include "parsgd/comm/process.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/refit.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "report.hpp"
#include "train_options.hpp"
#include "train_setup.hpp"
#include "train_start.hpp"

namespace parsgd::cli {
namespace {

// " (weighted 91.20%)" where the rows have weights; empty otherwise.
// A regression's fit in the last lines' words.
std::string FitText(const RegressionScores& fit) {
  return fmt::format("RMSE {:.6g}, MAE {:.6g}, R^2 {:.6f}", fit.rmse, fit.mae, fit.r2);
}

std::string Weighted(const std::optional<double>& weighted_accuracy) {
  return weighted_accuracy ? fmt::format(" (weighted {:.2f}%)", 100 * *weighted_accuracy) : "";
}

struct TrainArgs {
  RunArgs run;
  std::string metrics, save, checkpoint, resume, init;
  int checkpoint_every = 1;
  bool quiet = false;
  bool suboptimality = false;
  bool refit = false;
};

void Declare(OptionParser& p, TrainArgs& a) {
  DeclareDataOptions(p, a.run);
  DeclareTrainingOptions(p, a.run);
  p.TableSetting(FindSetting("seed"), &a.run.config);
  p.String("metrics", &a.metrics, "PATH", "write one JSON object per epoch (JSON Lines)");
  p.String("save", &a.save, "PATH", "write the trained model");
  p.String("checkpoint", &a.checkpoint, "PATH",
           "write the run's state here every --checkpoint-every epochs (and on an interrupt)");
  p.Int("checkpoint-every", &a.checkpoint_every, "epochs between two checkpoints", 1, 1 << 30);
  p.String("resume", &a.resume, "PATH",
           "continue from a checkpoint: the same command (data and settings) plus --resume; a "
           "larger --epochs makes the run longer");
  p.String("init", &a.init, "MODEL",
           "start from a saved model's weights (parsgd train --save), optimiser state zero: "
           "fine-tuning, other data or settings");
  p.Switch("refit", &a.refit,
           "early stopping with --validation-fraction: then train again on all the training "
           "rows for the best epoch's count, the step as the first run took it, and keep that "
           "model (its test figures the last line's)");
  p.Switch("quiet", &a.quiet, "print only the final result");
  p.Switch("suboptimality", &a.suboptimality,
           "solve the problem first with a reference solver (dual-cd where it applies, its "
           "duality gap certifying f*; else cd), then give each epoch's relative suboptimality "
           "(f - f*) / |f*| (column rel-subopt, metrics \"suboptimality\"); one process");
}

// train --suboptimality: f* from the reference solver (compare_optimum.hpp), said in one line.
// Throws UsageError where no solver applies to the problem, parsgd::Error where the solver was
// interrupted.
std::optional<double> Optimum(const TrainConfig& config, const Dataset& train,
                              InterruptGuard& interrupts, bool quiet) {
  const compare::Reference ref = SolveOptimum("", config, train, interrupts);
  if (ref.solver.empty()) {
    if (interrupts.signal() != 0) throw Error("interrupted while solving for f*");
    throw UsageError("--suboptimality: no reference solver for this problem: " + ref.why_none);
  }
  if (!quiet) {
    const std::string how =
        !ref.gap ? ", to its stopping rule: no certificate"
        : compare::Certifies(ref)
            ? fmt::format(", duality gap {:.2g}: certified", std::fabs(*ref.gap))
            : fmt::format(", duality gap {:.2g}: too wide to certify", std::fabs(*ref.gap));
    std::printf("  f* = %.10g: %s, %d epochs on one thread (%.3g s)%s\n", ref.objective,
                ref.solver.c_str(), ref.epochs, ref.seconds, how.c_str());
  }
  return ref.objective;
}

// Where an interrupt writes the state when no --checkpoint was given.
std::string InterruptPath(const TrainArgs& a) {
  if (!a.checkpoint.empty()) return a.checkpoint;
  return a.save.empty() ? std::string("parsgd-train.ckpt") : a.save + ".ckpt";
}

std::string ShellQuoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./,=:+@%") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The command that continues the run: this one, with --resume PATH instead of any earlier one and
// without --init (the checkpoint holds the weights).
std::string ResumeCommand(std::span<const std::string> args, const std::string& path) {
  std::string out = "parsgd train";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--resume" || args[i] == "--init") {
      ++i;
      continue;
    }
    if (args[i].starts_with("--resume=") || args[i].starts_with("--init=")) continue;
    out.append(" ").append(ShellQuoted(args[i]));
  }
  return out.append(" --resume ").append(ShellQuoted(path));
}

// An interrupt: the last complete epoch's state goes to the checkpoint path; exit 128 + signal.
int Interrupted(int signal, const TrainingState& consistent, const Trainer& trainer,
                const TrainArgs& a, std::span<const std::string> args) {
  const std::string path = InterruptPath(a);
  SaveCheckpoint({trainer.RunIdentity(), trainer.DataIdentity(), consistent}, path);
  std::fprintf(stderr,
               "parsgd: %s: stopped during epoch %d; the state after epoch %llu is in %s\n"
               "resume with: %s\n",
               signal == SIGTERM ? "terminated" : "interrupted", trainer.epochs_done(),
               static_cast<unsigned long long>(consistent.Counter("epochs_done")), path.c_str(),
               ResumeCommand(args, path).c_str());
  return 128 + (signal != 0 ? signal : SIGINT);
}

// The stages of a run: parse and check, open the outputs, load the data, make the trainer (from
// scratch, a checkpoint or a model), loop over the epochs, finish. Across ranks rank 0 prints and
// writes for the whole run; every rank reads, trains and agrees.

// Stage 1: the command line, checked before anything is read but a checkpoint's or a start
// model's own settings (they decide what the run is).
struct CheckedRun {
  std::optional<CheckedConfig> config;
  std::optional<LoadedModel> init;
  std::optional<Checkpoint> checkpoint;
  TrainConfig given;  // as the user gave it (the metrics say whether the scheme was auto)
};

CheckedRun Check(const OptionParser& parser, TrainArgs& a, Communicator& ranks) {
  RunArgs& run = a.run;
  // The checkpoint may be the one resumed from (a run continued and checkpointed again), the model
  // saved the one started from (fine-tuned in place); nothing else written may be a file read.
  RefuseOverwrites({{"--train", run.train}, {"--test", run.test}, {"--validation", run.validation}},
                   {{"--save", a.save}, {"--metrics", a.metrics}, {"--checkpoint", a.checkpoint}});
  RefuseOverwrites({{"--resume", a.resume}}, {{"--save", a.save}, {"--metrics", a.metrics}});
  RefuseOverwrites({{"--init", a.init}}, {{"--metrics", a.metrics}, {"--checkpoint", a.checkpoint}});
  if (!a.init.empty() && !a.resume.empty()) {
    throw UsageError("--init and --resume: a checkpoint holds its own weights; give one of them");
  }
  if (parser.Given("checkpoint-every") && a.checkpoint.empty()) {
    throw UsageError("--checkpoint-every would be ignored: it applies with --checkpoint PATH");
  }
  if (a.refit && !(a.run.config.validation_fraction > 0)) {
    throw UsageError(
        "--refit would be ignored: it trains again on the rows --validation-fraction holds out "
        "(with --validation FILE the training rows are all trained on already)");
  }
  if (a.refit && (!a.checkpoint.empty() || !a.resume.empty())) {
    throw UsageError(
        "--refit with --checkpoint or --resume: a checkpoint holds the first run only; give "
        "--refit on a run without them");
  }
  RefuseIgnoredDataOptions(parser, run);
  DropDuplicateInteractions(run, ranks.rank() == 0);
  run.config.held_out_file = !run.validation.empty();
  CheckedRun out;
  if (!a.init.empty()) {
    ranks.AgreeOn([&] { out.init = LoadModel(a.init); });
    TakeModelDefaults(parser, *out.init, run);
  }
  out.given = run.config;
  if (!a.resume.empty()) {
    // Every rank reads it (from a file system they share, as the data). A resumed --scheme auto
    // continues with the scheme its checkpoint's run chose.
    ranks.AgreeOn([&] {
      out.checkpoint = LoadCheckpoint(a.resume);
      if (run.config.scheme == SchemeKind::kAuto) {
        run.config.scheme = CheckpointScheme(*out.checkpoint, a.resume);
        // auto may choose a minibatch with the scheme (per-sample replicas): the checkpoint's then.
        if (run.config.batch == 0) run.config.batch = CheckpointBatch(*out.checkpoint, a.resume);
      }
    });
  }
  try {
    // A setting the run would ignore counts where its flag was given.
    out.config.emplace(run.config, ranks.size(),
                       [&parser](const Setting& s) { return parser.Given(s.key); });
  } catch (const SettingError& e) {
    throw UsageError(ErrorText(e));  // a setting that cannot work is a command-line error
  }
  return out;
}

// Stage 2: the outputs, opened first: an unwritable path fails before any work, and nothing
// appears under the final names unless the run succeeds.
struct Outputs {
  std::optional<AtomicFileWriter> metrics, model;
};

void Open(const TrainArgs& a, Communicator& ranks, Outputs& out) {
  ranks.AgreeOn([&] {
    if (ranks.rank() != 0) return;
    if (!a.metrics.empty()) out.metrics.emplace(a.metrics);
    if (!a.save.empty()) out.model.emplace(a.save);
    if (!a.checkpoint.empty()) AtomicFileWriter probe(a.checkpoint);  // writable? (left unused)
  });
}

// A resumed run's metrics file holds the whole run once: the lines of the epochs up to the
// checkpoint's from the file the run wrote before (where it is a file), then the new epochs.
std::string EarlierEpochs(const std::string& path, int epochs_done) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return "";
  std::ifstream in(path);
  std::string kept, line;
  while (std::getline(in, line)) {
    constexpr std::string_view kKey = "{\"epoch\":";
    if (!line.starts_with(kKey)) continue;
    int epoch = 0;
    const char* at = line.data() + kKey.size();
    const auto [end, ec] = std::from_chars(at, line.data() + line.size(), epoch);
    if (ec == std::errc() && epoch >= 1 && epoch <= epochs_done) kept += line + "\n";
  }
  return kept;
}

// Stage 3: the data, this rank's share of it.
struct RunData {
  Dataset train;
  std::optional<Dataset> test, validation;
};

// A regression (model/targets.hpp, RegressesLabels) reads the labels of every file as real values.
// The data's memory is planned first (cli/data_memory.hpp): a run whose rows cannot fit is refused
// before any is read. A run started from a model (`start`: its recorded reading) reads its
// training data the way that model's was.
RunData Load(const RunArgs& run, ModelKind model, Executor& executor, Communicator& ranks,
             const DataReading* start) {
  DataPlan plan;
  ranks.AgreeOn([&] { plan = PlanDataMemory(run, ranks.size(), executor.threads()); });
  RunData out{LoadRunData(run.train, run, executor, nullptr, &ranks, plan.budget, start),
              std::nullopt, std::nullopt};
  if (!run.test.empty()) {
    out.test = LoadRunData(run.test, run, executor, &out.train, &ranks, plan.budget);
  }
  if (!run.validation.empty()) {
    out.validation = LoadRunData(run.validation, run, executor, &out.train, &ranks, plan.budget);
  }
  if (RegressesLabels(model, out.train, ranks)) {
    ranks.AgreeOn([&] {
      out.train = AsRealValues(out.train);
      if (out.test) out.test = AsRealValues(*out.test);
      if (out.validation) out.validation = AsRealValues(*out.validation);
    });
  }
  return out;
}

// Stage 4: the trainer's start, from a checkpoint or a model; the setup lines that say so.
std::string Start(Trainer& trainer, const CheckedRun& checked, const TrainArgs& a,
                  Communicator& ranks) {
  std::string lines;
  ranks.AgreeOn([&] {
    if (checked.checkpoint) {
      lines = Resume(trainer, *checked.checkpoint, a.resume);
    }
    if (checked.init) lines = StartFromModel(trainer, *checked.init, a.init);
  });
  return lines;
}

// Stage 6: why the epochs ended, and early stopping's best epoch (whose model is kept, or under
// --refit the count of epochs the run on all rows takes).
void EndLines(const RunLoopResult& result, const Trainer& trainer, bool refit) {
  if (result.last.converged) {
    std::printf("%s\n", ConvergedLine(result.last, trainer.settings(), trainer.config()).c_str());
  }
  if (result.best) {
    const EpochReport& b = *result.best;
    std::printf(
        "best epoch %d of %d: validation loss %.6f, %s; %s\n", b.epoch, result.last.epoch,
        *b.validation_loss,
        b.validation_fit
            ? FitText(*b.validation_fit).c_str()
            : fmt::format("accuracy {:.2f}%{}", 100 * *b.validation_accuracy,
                          b.validation_auc ? fmt::format(", auc {:.6f}", *b.validation_auc) : "")
                  .c_str(),
        refit ? "its epochs are the refit's" : "its model is kept");
  }
}

// Stage 7: the last lines and the model.
int Finish(const RunLoopResult& result, const Trainer& trainer, const TrainArgs& a,
           const RunData& data, Outputs& outputs) {
  // Early stopping: the best epoch's model is the run's, and its figures the last lines'.
  const EpochReport& last = result.best ? *result.best : result.last;
  const ResolvedSettings& s = trainer.settings();
  if (result.last.epoch == 0) {
    std::printf("nothing to do: the checkpoint is already after the last of the %d epochs\n",
                s.epochs);
  } else if (last.train_fit) {
    if (data.test) {
      std::printf("test %s, test loss %.6f\n", FitText(*last.test_fit).c_str(), *last.test_loss);
    } else {
      std::printf("train %s, objective %.6f\n", FitText(*last.train_fit).c_str(), last.objective);
    }
  } else if (data.test) {
    std::printf("test accuracy %.2f%%%s, test loss %.6f\n", 100 * *last.test_accuracy,
                Weighted(last.test_weighted_accuracy).c_str(), *last.test_loss);
  } else {
    std::printf("train accuracy %.2f%%%s, objective %.6f\n", 100 * last.train_accuracy,
                Weighted(last.train_weighted_accuracy).c_str(), last.objective);
  }
  if (last.epoch > 0 && trainer.config().l1 > 0 && last.nonzero_weights) {
    const uint64_t all = s.features * static_cast<uint64_t>(s.outputs);
    std::printf("nonzero weights %llu of %llu (%.2f%%)\n",
                static_cast<unsigned long long>(*last.nonzero_weights),
                static_cast<unsigned long long>(all),
                all > 0 ? 100.0 * double(*last.nonzero_weights) / double(all) : 0.0);
  }
  if (outputs.model) {
    const std::string settings = SettingsText(trainer, a.run.train, a.init);
    const DataReading reading = RunReading(a.run, data.train);
    if (trainer.config().model == ModelKind::kMlp) {
      WriteModel(trainer.mlp_model(), settings, *outputs.model, reading);
    } else {
      WriteModel(trainer.model(), settings, *outputs.model, reading);
    }
  }
  if (outputs.metrics) outputs.metrics->Commit();
  return 0;
}

// Stage 6b, --refit: the run again on every training row, none held out, for the best epoch's
// count, its step replayed (the first run's schedule and planned epochs; the adaptive schedule's
// cuts after the same epochs); its model and test figures are the run's. The metrics file keeps
// the first run's epochs. An interrupt ends it with nothing saved. `rows`: every rank's training
// rows together.
int Refit(const EpochReport& best, const Trainer& first, const CheckedRun& checked,
          const OptionParser& parser, const TrainArgs& a, const RunData& data, uint64_t rows,
          Executor& executor, Communicator& ranks, Outputs& outputs) {
  RefitPlan plan = PlanRefit(checked.config->config(), first, best.epoch);
  std::optional<Trainer> made;
  ranks.AgreeOn([&] {
    // The held-out rows' own settings were the first run's.
    const CheckedConfig config(plan.config, ranks.size(), [&parser](const Setting& s) {
      return parser.Given(s.key) && !IsHeldOutSetting(s.key);
    });
    made.emplace(config, data.train, data.test ? &*data.test : nullptr, executor, &ranks);
    made->Replay(plan.last, std::move(plan.cuts));
  });
  Trainer& refit = *made;
  const bool quiet = a.quiet || ranks.rank() != 0;
  if (!quiet) {
    std::string cuts;
    for (const uint64_t e : refit.step_cuts()) {
      cuts += (cuts.empty() ? "" : ", ") + std::to_string(e);
    }
    std::printf("refit: all %llu training rows, %d epochs%s\n%s\n",
                static_cast<unsigned long long>(rows), best.epoch,
                cuts.empty() ? "" : fmt::format(", the step cut after epochs {}", cuts).c_str(),
                EpochHeader(data.test.has_value(), false, false,
                            data.train.label_kind() == LabelKind::kValues, false)
                    .c_str());
  }
  RunLoopOptions loop;  // the first run's InterruptGuard watches the same executor
  loop.snapshots = RunLoopOptions::Snapshots::kNone;
  RunLoopResult result = RunEpochs(refit, loop, [&](const EpochReport& r, double elapsed) {
    if (quiet) return;
    std::printf("%s\n", EpochLine(r, best.epoch, elapsed, data.test.has_value(), false,
                                  std::nullopt).c_str());
    std::fflush(stdout);
  });
  if (result.interrupted) {
    if (!quiet) std::fprintf(stderr, "parsgd: interrupted during the refit: nothing saved\n");
    return 128 + SIGINT;
  }
  result.last.converged = false;  // the replay's end: its planned epochs, not a stopping rule
  return ranks.rank() == 0 ? Finish(result, refit, a, data, outputs) : 0;
}

int TrainRun(std::span<const std::string> args, Communicator& ranks) {
  const bool lead = ranks.rank() == 0;
  TrainArgs a;
  OptionParser parser("train",
                      "Train a linear model or an MLP with parallel SGD; one line per epoch.");
  Declare(parser, a);
  if (!parser.Parse(args)) {
    if (lead) std::printf("%s", parser.Help().c_str());
    return 0;
  }
  if (a.suboptimality && ranks.size() > 1) {
    throw UsageError(
        "--suboptimality solves the problem on one process's data: run it without mpirun");
  }
  const CheckedRun checked = Check(parser, a, ranks);
  if (a.suboptimality) {
    const std::string why = WhyNoOptimum(checked.config->config());
    if (!why.empty()) throw UsageError("--suboptimality: no reference solver: " + why);
  }
  Outputs outputs;
  Open(a, ranks, outputs);
  auto executor = MakeRunExecutor(checked.config->config());
  const RunData data = Load(a.run, checked.config->config().model, *executor, ranks,
                            checked.init ? &checked.init->reading : nullptr);
  std::optional<Trainer> made;
  try {
    made.emplace(*checked.config, data.train, data.test ? &*data.test : nullptr, *executor, &ranks,
                 data.validation ? &*data.validation : nullptr);
  } catch (const SettingError& e) {
    // A setting that cannot work with what auto resolved (the scheme it chose): a command-line error.
    throw UsageError(ErrorText(e));
  }
  Trainer& trainer = *made;
  const std::string start_lines = Start(trainer, checked, a, ranks);
  const uint64_t rows = ranks.Sum(data.train.rows()), nonzeros = ranks.Sum(data.train.nnz());

  // Stage 5: the epochs.
  const ResolvedSettings& s = trainer.settings();
  const bool quiet = a.quiet || !lead;
  if (!quiet) {
    std::fputs((SetupLines(parser, trainer, data.train, rows, nonzeros) + start_lines).c_str(),
               stdout);
  }
  if (outputs.metrics && checked.checkpoint) {
    outputs.metrics->Write(EarlierEpochs(a.metrics, trainer.epochs_done()));
  }
  RunLoopOptions loop;
  loop.checkpoint = a.checkpoint;
  loop.checkpoint_every = a.checkpoint_every;
  // On the offload backend a snapshot copies the weights back from the device: only at checkpoints.
  if (trainer.config().backend == Backend::kOffload)
    loop.snapshots = RunLoopOptions::Snapshots::kAtCheckpoints;
  InterruptGuard interrupts(executor->stop_flag());
  const std::optional<double> optimum =
      a.suboptimality ? Optimum(checked.config->config(), data.train, interrupts, quiet)
                      : std::nullopt;
  if (!quiet) {
    std::printf("%s\n",
                EpochHeader(data.test.has_value(), trainer.config().solver == Solver::kDualCd,
                            trainer.early_stopping(), data.train.label_kind() == LabelKind::kValues,
                            optimum.has_value())
                    .c_str());
  }
  const RunLoopResult result = RunEpochs(trainer, loop, [&](const EpochReport& r, double elapsed) {
    if (!quiet) {
      std::printf("%s\n", EpochLine(r, s.epochs, elapsed, data.test.has_value(),
                                    trainer.early_stopping(), optimum)
                              .c_str());
      std::fflush(stdout);
    }
    if (outputs.metrics) {
      outputs.metrics->Write(EpochJson(r, checked.given, trainer.config(), s, elapsed, optimum) +
                             "\n");
      outputs.metrics->Flush();
    }
  });
  if (result.interrupted) {
    int code = 128 + SIGINT;
    ranks.AgreeOn([&] {
      if (lead) code = Interrupted(interrupts.signal(), result.consistent, trainer, a, args);
    });
    return code;
  }
  if (lead && !a.quiet) EndLines(result, trainer, a.refit && result.best);
  if (a.refit && result.best) {
    return Refit(*result.best, trainer, checked, parser, a, data, rows, *executor, ranks,
                 outputs);
  }
  return lead ? Finish(result, trainer, a, data, outputs) : 0;
}

}  // namespace

int Train(std::span<const std::string> args) {
  const std::shared_ptr<Communicator> ranks = ProcessCommunicator();
  if (ranks->size() == 1) return TrainRun(args, *ranks);
  // Across ranks: an error every rank agreed on (or the same command-line error, which every rank
  // finds alike) is reported once, by rank 0, and every rank waits until it has been before it
  // exits: the launcher ends the whole job at the first rank that exits with a failure. Any other
  // error ends every rank at once (MPI_Abort) with this rank's message, since the others may be
  // waiting for it in a collective step.
  const bool lead = ranks->rank() == 0;
  auto reported = [&](const std::exception& e, int code) {
    if (lead) code = ReportError(e, "train");
    std::fflush(stderr);
    ranks->Sum(0);  // every rank waits for rank 0's report
    return code;
  };
  try {
    return TrainRun(args, *ranks);
  } catch (const UsageError& e) {
    return reported(e, 2);
  } catch (const AgreedError& e) {
    return reported(e, 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parsgd: error (rank %d of %d): %s\n", ranks->rank(), ranks->size(),
                 ErrorText(e).c_str());
    std::fflush(stderr);
    ranks->Abort(1);
    throw;
  }
}

}  // namespace parsgd::cli
