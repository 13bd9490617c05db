// parsgd train: load the data, train, print one line per epoch, write metrics and the model.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "distinct_paths.hpp"
#include "interrupt.hpp"
#include "options.hpp"
#include "parsgd/comm/process.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "report.hpp"
#include "train_options.hpp"
#include "train_start.hpp"

namespace parsgd::cli {
namespace {

struct TrainArgs {
  RunArgs run;
  std::string metrics, save, checkpoint, resume, init;
  int checkpoint_every = 1;
  bool quiet = false;
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
  p.Switch("quiet", &a.quiet, "print only the final result");
}

// The settings text of the model file (io/model_file.hpp), for people and `parsgd info`: the run's
// resolved settings, in the order model files have always listed them.
std::string SettingsText(const Trainer& trainer, const TrainArgs& a) {
  static constexpr SettingLine kLines[] = {{"train", nullptr},
                                           {"model", "model"},
                                           {"scheme", "scheme"},
                                           {"order", "order"},
                                           {"workers", nullptr},
                                           {"epochs", "epochs"},
                                           {"learning_rate", "learning-rate"},
                                           {"schedule", "schedule"},
                                           {"decay", "decay"},
                                           {"l2", "l2"},
                                           {"normalize", "normalize"},
                                           {"optimizer", "optimizer"},
                                           {"batch", "batch"},
                                           {"period", "period"},
                                           {"average_state", "average-state"},
                                           {"hidden", "hidden"},
                                           {"backend", "backend"},
                                           {"device", nullptr},
                                           {"seed", "seed"}};
  const ResolvedSettings& s = trainer.settings();
  auto derived = [&](std::string_view name) -> std::string {
    if (name == "train") return a.run.train;
    if (name == "workers") return std::to_string(s.workers);
    return s.device;
  };
  const std::string init = a.init.empty() ? "" : fmt::format("init={}\n", a.init);
  return SettingLines(kLines, trainer.config(), false, derived) + AddedSettings(trainer.config()) +
         init;
}

// `rows` and `nonzeros`: every rank's together.
void PrintSetup(const TrainConfig& c, const ResolvedSettings& s, const Dataset& train,
                uint64_t rows, uint64_t nonzeros) {
  std::string out =
      fmt::format("parsgd train: {} rows x {} features ({} nonzeros) from {}{}\n", rows,
                  train.features(), nonzeros, train.source(),
                  train.zero_based() == ZeroBased::kYes ? " (zero-based indices)" : "");
  if (s.ranks > 1 && c.ranks_scheme == RanksScheme::kSync) {
    out += fmt::format(
        "  across {} ranks, each training its share of the rows: every minibatch's gradient summed "
        "over the ranks (sync)\n",
        s.ranks);
  } else if (s.ranks > 1) {
    const bool outer = !c.outer.plain();
    out += fmt::format(
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
  std::string scheme = NameOf<SchemeKind>(kSchemeKinds, s.scheme);
  if (!s.scheme_reason.empty()) scheme += fmt::format(" (auto: {})", s.scheme_reason);
  if (s.batch > 1) scheme += fmt::format(" (batch {})", s.batch);
  if (IsReplicaScheme(s.scheme)) {
    scheme += s.period > 0 ? fmt::format(" (period {})", s.period) : " (period epoch)";
    if (c.average_state)
      scheme += s.scheme == SchemeKind::kGossip ? " (state mixed)" : " (state averaged)";
    if (!c.outer.plain() && s.ranks == 1) {
      scheme += fmt::format(
          " (outer {}, rate {}{})", NameOf<OuterKind>(kOuterKinds, c.outer.kind),
          c.outer.learning_rate,
          c.outer.kind == OuterKind::kSgd ? "" : fmt::format(", momentum {}", c.outer.momentum));
    }
  }
  if (s.scheme == SchemeKind::kPipeline) {
    scheme += fmt::format(" ({} stages, {} micro-batches a minibatch)", s.workers, s.micro_batches);
  } else if (s.scheme == SchemeKind::kVertical) {
    scheme += fmt::format(" (every layer's units in {} slices)", s.workers);
  } else if (s.scheme == SchemeKind::kSubnet) {
    scheme += fmt::format(" (skeleton {} of each hidden layer, ", s.skeleton_ratio) +
              (s.period > 0 ? fmt::format("dealt every {} minibatches)", s.period)
                            : std::string("dealt every epoch)"));
  }
  std::string model = NameOf<ModelKind>(kModelKinds, c.model);
  if (c.model == ModelKind::kMlp) {
    model += fmt::format(" {}-{}-{}", train.features(), fmt::join(c.hidden, "-"), s.outputs);
  } else if (!IsBinary(c.model)) {
    model += fmt::format(" ({} classes)", s.outputs);
  }
  if (c.bias == Bias::kOff) model += " (bias off)";
  if (c.backend == Backend::kOffload) {
    out += fmt::format("  model {}, scheme {}, order {}, offload to {} ({} worker{}), seed {}\n",
                       model, scheme, NameOf<OrderKind>(kOrderKinds, c.order), s.device, s.workers,
                       s.workers == 1 ? "" : "s", c.seed);
  } else {
    out += fmt::format("  model {}, scheme {}, order {}, {} thread{} ({} worker{}), seed {}\n",
                       model, scheme, NameOf<OrderKind>(kOrderKinds, c.order), s.threads,
                       s.threads == 1 ? "" : "s", s.workers, s.workers == 1 ? "" : "s", c.seed);
  }
  if (c.solver != Solver::kSgd) {
    const bool dual = c.solver == Solver::kDualCd;
    out += fmt::format(
        "  at most {} epochs{}, solver {} (C = 1 / (rows l2) = {:.4g}), l2 {:.3g}{}, {}\n",
        s.epochs, s.epochs_auto ? " (auto)" : "", NameOf<Solver>(kSolvers, c.solver),
        1.0 / (static_cast<double>(train.rows()) * s.l2), s.l2, s.l2_auto ? " (auto: 1/rows)" : "",
        s.tol <= 0 ? std::string("--tol none")
        : dual     ? fmt::format("stops at a relative duality gap of {:.3g}{}", s.tol,
                             s.tol_auto ? " (auto)" : "")
                   : fmt::format("stops once an epoch lowers the objective by at most {:.3g} of "
                                     "it{}",
                                 s.tol, s.tol_auto ? " (auto)" : ""));
    std::fputs(out.c_str(), stdout);
    return;
  }
  const bool uses_decay =
      c.schedule == ScheduleKind::kInvTime || c.schedule == ScheduleKind::kGeometric;
  const std::string schedule_detail =
      uses_decay ? fmt::format(" (decay {})", s.decay)
      : c.schedule == ScheduleKind::kOptimal
          ? fmt::format(" (1 / (l2 (t0 + t)), t0 {:.6g} samples)", 1.0 / (s.eta0 * s.l2))
          : "";
  out += fmt::format(
      "  {} epochs{}, optimizer {}, eta0 {:.4g}{}, schedule {}{}, normalize {}, l2 {:.3g}{}\n",
      s.epochs, s.epochs_auto ? " (auto)" : "", NameOf<OptimizerKind>(kOptimizerKinds, s.optimizer),
      s.eta0, s.eta0_auto ? " (auto)" : "", NameOf<ScheduleKind>(kScheduleKinds, c.schedule),
      schedule_detail, NameOf<Normalization>(kNormalizations, c.normalize), s.l2,
      !s.l2_auto          ? ""
      : IsLinear(c.model) ? " (auto: 1/rows)"
                          : " (auto)");
  if (s.tol > 0) {
    out += fmt::format(
        "  stops once 5 epochs in a row do not lower the best objective by more than "
        "{:.3g} of it\n",
        s.tol);
  }
  std::fputs(out.c_str(), stdout);
}

// Why the run stopped before its last epoch.
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

int TrainRun(std::span<const std::string> args, Communicator& ranks) {
  // Across ranks rank 0 prints and writes for the whole run; every rank reads, trains and agrees.
  const bool lead = ranks.rank() == 0;
  TrainArgs a;
  OptionParser parser("train",
                      "Train a linear model or an MLP with parallel SGD; one line per epoch.");
  Declare(parser, a);
  if (!parser.Parse(args)) {
    if (lead) std::printf("%s", parser.Help().c_str());
    return 0;
  }
  RunArgs& run = a.run;
  // The checkpoint may be the one resumed from (a run continued and checkpointed again), the model
  // saved the one started from (fine-tuned in place); nothing else written may be a file read.
  RefuseOverwrites({{"--train", run.train}, {"--test", run.test}},
                   {{"--save", a.save}, {"--metrics", a.metrics}, {"--checkpoint", a.checkpoint}});
  RefuseOverwrites({{"--resume", a.resume}}, {{"--save", a.save}, {"--metrics", a.metrics}});
  RefuseOverwrites({{"--init", a.init}},
                   {{"--metrics", a.metrics}, {"--checkpoint", a.checkpoint}});
  std::optional<LoadedModel> init;
  if (!a.init.empty()) {
    if (!a.resume.empty()) {
      throw UsageError("--init and --resume: a checkpoint holds its own weights; give one of them");
    }
    ranks.AgreeOn([&] { init = LoadModel(a.init); });
    TakeModelDefaults(parser, *init, run);
  }
  try {
    ValidateConfig(run.config, ranks.size());  // before any data is read
  } catch (const SettingError& e) {
    throw UsageError(ErrorText(e));  // a setting that cannot work is a command-line error
  }
  // Open the outputs first: an unwritable path fails before any work, and nothing appears under
  // the final names unless the run succeeds.
  std::optional<AtomicFileWriter> metrics, model_out;
  ranks.AgreeOn([&] {
    if (!lead) return;
    if (!a.metrics.empty()) metrics.emplace(a.metrics);
    if (!a.save.empty()) model_out.emplace(a.save);
    if (!a.checkpoint.empty())
      AtomicFileWriter probe(a.checkpoint);  // writable? (probe left unused)
  });

  // A resumed run with --scheme auto continues with the scheme its checkpoint's run chose.
  const TrainConfig given = run.config;
  std::optional<Checkpoint> checkpoint;
  if (!a.resume.empty()) {
    // Every rank reads it (from a file system they share, as the data).
    ranks.AgreeOn([&] {
      checkpoint = LoadCheckpoint(a.resume);
      if (run.config.scheme == SchemeKind::kAuto) {
        run.config.scheme = CheckpointScheme(*checkpoint, a.resume);
        // auto may choose a minibatch with the scheme (per-sample replicas): the checkpoint's then.
        if (run.config.batch == 0) run.config.batch = CheckpointBatch(*checkpoint, a.resume);
      }
    });
  }
  auto executor = MakeRunExecutor(run.config);
  const Dataset train = LoadRunData(run.train, run, *executor, nullptr, &ranks);
  std::optional<Dataset> test;
  if (!run.test.empty()) test = LoadRunData(run.test, run, *executor, &train, &ranks);

  Trainer trainer(run.config, train, test ? &*test : nullptr, *executor, &ranks);
  const ResolvedSettings& s = trainer.settings();
  std::string start_lines;
  ranks.AgreeOn([&] {
    if (checkpoint) start_lines = Resume(trainer, run.config, *checkpoint, a.resume);
    if (init) start_lines = StartFromModel(trainer, *init, a.init);
  });
  const uint64_t rows = ranks.Sum(train.rows()), nonzeros = ranks.Sum(train.nnz());
  const bool quiet = a.quiet || !lead;
  if (!quiet) {
    PrintSetup(run.config, s, train, rows, nonzeros);
    std::fputs(start_lines.c_str(), stdout);
    std::printf("%s\n",
                EpochHeader(test.has_value(), run.config.solver == Solver::kDualCd).c_str());
  }
  RunLoopOptions loop;
  loop.checkpoint = a.checkpoint;
  loop.checkpoint_every = a.checkpoint_every;
  // On the offload backend a snapshot copies the weights back from the device: only at checkpoints.
  if (run.config.backend == Backend::kOffload)
    loop.snapshots = RunLoopOptions::Snapshots::kAtCheckpoints;
  InterruptGuard interrupts(executor->stop_flag());
  const RunLoopResult result = RunEpochs(trainer, loop, [&](const EpochReport& r, double elapsed) {
    if (!quiet) {
      std::printf("%s\n", EpochLine(r, s.epochs, elapsed, test.has_value()).c_str());
      std::fflush(stdout);
    }
    if (metrics) {
      metrics->Write(EpochJson(r, given, s, elapsed) + "\n");
      metrics->Flush();
    }
  });
  if (result.interrupted) {
    int code = 128 + SIGINT;
    ranks.AgreeOn([&] {
      if (lead) code = Interrupted(interrupts.signal(), result.consistent, trainer, a, args);
    });
    return code;
  }
  const EpochReport& last = result.last;
  if (!lead) return 0;
  if (last.converged && !a.quiet)
    std::printf("%s\n", ConvergedLine(last, s, run.config.solver).c_str());
  if (last.epoch == 0) {
    std::printf("nothing to do: the checkpoint is already after the last of the %d epochs\n",
                s.epochs);
  } else if (test) {
    std::printf("test accuracy %.2f%%, test loss %.6f\n", 100 * *last.test_accuracy,
                *last.test_loss);
  } else {
    std::printf("train accuracy %.2f%%, objective %.6f\n", 100 * last.train_accuracy,
                last.objective);
  }
  if (model_out) {
    const std::string settings = SettingsText(trainer, a);
    const DataReading reading = RunReading(run, train);
    if (run.config.model == ModelKind::kMlp) {
      WriteModel(trainer.mlp_model(), settings, *model_out, reading);
    } else {
      WriteModel(trainer.model(), settings, *model_out, reading);
    }
  }
  if (metrics) metrics->Commit();
  return 0;
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
