// A training run for Python: the settings applied through the library's table, the Trainer run by
// RunEpochs (run/run_loop.hpp) on a thread of its own with the library's workers, while the calling
// thread waits with the GIL released, in short slices: between two it hands the finished epochs to
// Python and lets Python handle signals. Ctrl-C (KeyboardInterrupt) raises the executor's stop
// flag; the workers stop within 64 samples, the thread ends, and the KeyboardInterrupt propagates
// with no model returned (the estimator keeps what it had).
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/run/refit.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"

namespace parsgd::python {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr auto kSlice = std::chrono::milliseconds(50);  // how often Ctrl-C is looked for

struct EpochDone {
  EpochReport report;
  double elapsed;
};

// What the training thread hands back.
struct Outcome {
  std::optional<Model> model;
  TrainConfig config;  // resolved
  ResolvedSettings settings;
  int epochs_done = 0;
};

// The training thread and what it shares with the waiting one.
class Run {
 public:
  Run(const TrainConfig& config, const Dataset& data, const Model* start, bool every_epoch,
      bool refit)
      : executor_(MakeTbbExecutor(config.threads)),
        thread_([this, config, &data, start, every_epoch, refit] {
          Train(config, data, start, every_epoch, refit);
        }) {}
  // On every way out (an exception in the waiting thread included) the workers are stopped and the
  // thread joined, with the GIL released: a Dataset dropped on the thread takes the GIL.
  ~Run() {
    if (!thread_.joinable()) return;
    executor_->stop_flag().store(true);
    py::gil_scoped_release release;
    thread_.join();
  }

  // Waits up to one slice (call without the GIL); returns the epochs finished since the last call
  // and whether the run has ended.
  std::pair<std::vector<EpochDone>, bool> Wait() {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, kSlice, [&] { return done_ || !epochs_.empty(); });
    return {std::exchange(epochs_, {}), done_};
  }
  void Stop() { executor_->stop_flag().store(true); }
  // After the run has ended: its outcome, or its error rethrown.
  Outcome Finish() {
    {
      py::gil_scoped_release release;
      thread_.join();
    }
    if (error_) std::rethrow_exception(error_);
    return std::move(outcome_);
  }

 private:
  // `refit`: after early stopping, a second run on all the rows for the best epoch's count
  // (parsgd/run/refit.hpp), whose epochs follow the first run's and whose model is the outcome.
  void Train(const TrainConfig& config, const Dataset& data, const Model* start, bool every_epoch,
             bool refit) {
    try {
      // A keyword set to other than its default counts as given: one that the scheme auto
      // resolves to would ignore is refused, as ValidateConfig refused the others.
      const CheckedConfig checked(
          config, 1, [config](const Setting& s) { return DiffersFromDefault(s, config); });
      std::optional<Trainer> made;
      made.emplace(checked, data, nullptr, *executor_);
      if (start != nullptr) made->StartFrom(*start);
      RunLoopOptions options;
      options.snapshots = RunLoopOptions::Snapshots::kNone;  // nothing resumes a Python run
      options.evaluations = every_epoch ? RunLoopOptions::Evaluations::kEveryEpoch
                                        : RunLoopOptions::Evaluations::kLastEpoch;
      const auto on_epoch = [&](const EpochReport& e, double elapsed) {
        std::lock_guard lock(mutex_);
        epochs_.push_back({e, elapsed});
        changed_.notify_all();
      };
      RunLoopResult r = RunEpochs(*made, options, on_epoch);
      if (refit && !r.interrupted && made->best_epoch()) {
        RefitPlan plan = PlanRefit(config, *made, made->best_epoch()->epoch);
        const CheckedConfig again(plan.config, 1, [&plan](const Setting& s) {
          return DiffersFromDefault(s, plan.config) && !IsHeldOutSetting(s.key);
        });
        made.emplace(again, data, nullptr, *executor_);
        if (start != nullptr) made->StartFrom(*start);
        made->Replay(plan.last, std::move(plan.cuts));
        r = RunEpochs(*made, options, on_epoch);
      }
      const Trainer& trainer = *made;
      if (!r.interrupted) {
        if (IsLinear(trainer.config().model)) {
          outcome_.model = Model(trainer.model());
        } else {
          outcome_.model = Model(trainer.mlp_model());
        }
      }
      outcome_.config = trainer.config();
      outcome_.settings = trainer.settings();
      outcome_.epochs_done = trainer.epochs_done();
    } catch (...) {
      error_ = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    done_ = true;
    changed_.notify_all();
  }

  std::unique_ptr<Executor> executor_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<EpochDone> epochs_;
  bool done_ = false;
  Outcome outcome_;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once everything above exists
};

py::dict EpochDict(const EpochDone& d) {
  const EpochReport& r = d.report;
  py::dict out;
  out["epoch"] = r.epoch;
  out["updates"] = r.updates;
  out["train_seconds"] = r.train_seconds;
  out["eval_seconds"] = r.eval_seconds;
  out["elapsed_seconds"] = d.elapsed;
  out["samples_per_second"] = r.samples_per_second();
  out["learning_rate"] = r.learning_rate;
  // An epoch that was not evaluated (every one but the last, unless asked): None.
  out["objective"] = r.evaluated ? py::cast(r.objective) : py::none();
  out["progressive_loss"] = r.progressive_loss;
  // A regression's fits in place of the accuracies.
  auto put_fit = [&](const char* set, const RegressionScores& fit) {
    out[py::str(std::string(set) + "_rmse")] = fit.rmse;
    out[py::str(std::string(set) + "_mae")] = fit.mae;
    out[py::str(std::string(set) + "_r2")] = fit.r2;
  };
  if (r.train_fit) {
    put_fit("train", *r.train_fit);
  } else {
    out["train_accuracy"] = r.evaluated ? py::cast(r.train_accuracy) : py::none();
  }
  if (r.dual_objective) out["dual_objective"] = *r.dual_objective;
  if (r.validation_loss) {  // early stopping: the held-out rows, the best epoch so far
    out["validation_loss"] = *r.validation_loss;
    if (r.validation_fit) {
      put_fit("validation", *r.validation_fit);
    } else {
      out["validation_accuracy"] = *r.validation_accuracy;
    }
    out["best_epoch"] = r.best_epoch;
    if (r.validation_auc) out["validation_auc"] = *r.validation_auc;
  }
  out["converged"] = r.converged;
  return out;
}

// The resolved settings: every automatic choice the run made.
py::dict ResolvedDict(const Outcome& o) {
  const ResolvedSettings& s = o.settings;
  py::dict out;
  out["model"] = NameOf<ModelKind>(kModelKinds, o.config.model);
  out["solver"] = NameOf<Solver>(kSolvers, o.config.solver);
  out["scheme"] = NameOf<SchemeKind>(kSchemeKinds, s.scheme);
  out["scheme_reason"] = s.scheme_reason;
  out["optimizer"] = NameOf<OptimizerKind>(kOptimizerKinds, s.optimizer);
  out["order"] = NameOf<OrderKind>(kOrderKinds, o.config.order);
  out["device"] = s.device;
  out["threads"] = s.threads;
  out["workers"] = s.workers;
  out["epochs"] = s.epochs;
  out["tol"] = s.tol;
  out["batch"] = s.batch;
  out["period"] = s.period;
  out["eta0"] = s.eta0;
  out["decay"] = s.decay;
  out["l2"] = s.l2;
  out["l1"] = s.l1;
  if (HasLossEpsilon(o.config.model)) out["loss_epsilon"] = o.config.loss_epsilon;
  out["features"] = s.features;
  out["outputs"] = s.outputs;
  out["seed"] = o.config.seed;
  return out;
}

// The model file's record of the run: every setting of the table, as the run resolved it.
std::string SettingsText(const TrainConfig& config) {
  std::string out;
  for (const Setting& s : TrainSettings()) {
    out += s.key + "=" + FormatSetting(s.get(config), false) + "\n";
  }
  return out;
}

TrainConfig MakeConfig(const Settings& settings, const Spelling& spelling) {
  TrainConfig config;
  try {
    for (const auto& [key, text] : settings) ApplySetting(config, key, text);
    // A keyword set to other than its default counts as given: refused where the run ignores it.
    ValidateConfig(config, 1, [&](const Setting& s) { return DiffersFromDefault(s, config); });
  } catch (const SettingError& e) {
    ThrowSettingError(e, spelling);
  }
  return config;
}

py::dict Train(const Settings& settings, const PyDataset& data, const PyModel* start,
               const Spelling& spelling, const py::function& on_epoch, bool every_epoch,
               bool refit) {
  const TrainConfig config = MakeConfig(settings, spelling);
  if (refit && config.validation_fraction <= 0) {
    throw py::value_error("refit=True trains again on all the rows for the best epoch's count "
                          "after early stopping: it needs early_stopping=True");
  }
  std::optional<Outcome> outcome;
  {
    Run run(config, data.data, start != nullptr ? &start->model : nullptr, every_epoch, refit);
    for (bool ended = false; !ended;) {
      std::vector<EpochDone> epochs;
      {
        py::gil_scoped_release release;
        std::tie(epochs, ended) = run.Wait();
      }
      for (const EpochDone& e : epochs) on_epoch(EpochDict(e));  // may raise: ~Run stops the run
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // KeyboardInterrupt: idem
    }
    try {
      outcome = run.Finish();
    } catch (const SettingError& e) {
      ThrowSettingError(e, spelling);
    }
  }
  py::dict out;
  out["model"] = outcome->model ? py::cast(PyModel{std::move(*outcome->model)}) : py::none();
  out["epochs_done"] = outcome->epochs_done;
  out["settings"] = ResolvedDict(*outcome);
  out["settings_text"] = SettingsText(outcome->config);
  return out;
}

}  // namespace

void BindTraining(py::module_& m) {
  m.def(
      "train", &Train, py::arg("settings"), py::arg("data"), py::arg("start").none(true),
      py::arg("spelling"), py::arg("on_epoch"), py::arg("every_epoch"), py::arg("refit") = false,
      "Trains on `data` with `settings` ((key, text) pairs of the settings table), from `start` "
      "(a Model, or None), calling on_epoch(dict) after each epoch (evaluated every epoch, or with "
      "every_epoch false only the last and where a stopping rule needs it), and with refit, after "
      "early stopping, again on all the rows for the best epoch's count; returns a dict with "
      "model, "
      "epochs_done, settings (the resolved ones) and settings_text. Releases the GIL while the "
      "library's workers train; Ctrl-C stops them and raises KeyboardInterrupt. Errors are "
      "ValueError, the settings named as `spelling` maps their keys.");
}

}  // namespace parsgd::python
