#include "stopping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <string>

#include "parsgd/config/settings.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

std::span<const float> ParamsOf(const LinearModel& m) { return m.weights(); }
std::span<const float> ParamsOf(const MlpModel& m) { return m.params(); }
std::span<float> ParamsOf(LinearModel& m) { return m.weights(); }
std::span<float> ParamsOf(MlpModel& m) { return m.params(); }

// Back from a checkpoint, for either model.
template <class M>
void LoadBest(const TrainingState& state, const M& current, EarlyStop& e) {
  e = EarlyStop{};
  if (!state.Has("best.params")) return;
  M best = current;
  state.Get("best.params", ParamsOf(best));
  e.model = std::move(best);
  auto get = [&](const std::string& name) { return std::bit_cast<double>(state.Counter(name)); };
  EpochReport b;
  b.epoch = static_cast<int>(state.Counter("best.epoch"));
  b.best_epoch = b.epoch;
  b.objective = get("best.objective");
  b.train_accuracy = get("best.train_accuracy");
  b.validation_loss = get("best.validation_loss");
  b.validation_accuracy = get("best.validation_accuracy");
  if (state.Has("best.validation_auc")) b.validation_auc = get("best.validation_auc");
  if (state.Has("best.test_loss")) b.test_loss = get("best.test_loss");
  if (state.Has("best.test_accuracy")) b.test_accuracy = get("best.test_accuracy");
  auto get_fit = [&](const std::string& set) -> std::optional<RegressionScores> {
    if (!state.Has("best." + set + "_rmse")) return std::nullopt;
    return RegressionScores{get("best." + set + "_rmse"), get("best." + set + "_mae"),
                            get("best." + set + "_r2")};
  };
  b.train_fit = get_fit("train");
  b.test_fit = get_fit("test");
  b.validation_fit = get_fit("validation");
  e.best = b;
  e.stale = static_cast<int>(state.Counter("best.stale"));
}

}  // namespace

bool Converged(const EpochReport& r, Progress& progress, double tol, Solver solver, int patience) {
  if (tol <= 0) return false;
  const bool sgd = solver == Solver::kSgd;
  if (r.partial) {  // the best objective still counts; the test waits for a whole epoch
    progress.Stalled(r.objective, tol, 1, sgd);
    return false;
  }
  if (const std::optional<double> gap = r.relative_gap()) return *gap <= tol;
  return progress.Stalled(r.objective, tol, sgd ? patience : 1, sgd);
}

void CheckValidationMetric(ValidationMetric metric, bool regression, uint64_t classes, int ranks) {
  if (regression && metric != ValidationMetric::kLoss) {
    throw SettingError(fmt::format(
        "`validation-metric` {} measures classes; a regression's held-out rows are measured by "
        "their loss",
        NameOf<ValidationMetric>(kValidationMetrics, metric)));
  }
  if (metric == ValidationMetric::kAuc && (classes != 2 || ranks > 1)) {
    throw SettingError(fmt::format(
        "`validation-metric` auc ranks the scores of two classes in one process; this run has {} "
        "classes{}",
        classes, ranks > 1 ? " over several ranks" : ""));
  }
}

void SaveEarlyStop(const EarlyStop& e, TrainingState& state) {
  if (!e.best || !e.model) return;
  std::visit([&](const auto& m) { state.Put("best.params", ParamsOf(m)); }, *e.model);
  const EpochReport& b = *e.best;
  auto put = [&](const std::string& name, double v) {
    state.Put(name, std::bit_cast<uint64_t>(v));
  };
  state.Put("best.epoch", static_cast<uint64_t>(b.epoch));
  state.Put("best.stale", static_cast<uint64_t>(e.stale));
  put("best.objective", b.objective);
  put("best.train_accuracy", b.train_accuracy);
  put("best.validation_loss", *b.validation_loss);
  put("best.validation_accuracy", *b.validation_accuracy);
  if (b.validation_auc) put("best.validation_auc", *b.validation_auc);
  if (b.test_loss) put("best.test_loss", *b.test_loss);
  if (b.test_accuracy) put("best.test_accuracy", *b.test_accuracy);
  // A regression's fits (the last lines print them).
  auto put_fit = [&](const std::string& set, const std::optional<RegressionScores>& fit) {
    if (!fit) return;
    put("best." + set + "_rmse", fit->rmse);
    put("best." + set + "_mae", fit->mae);
    put("best." + set + "_r2", fit->r2);
  };
  put_fit("train", b.train_fit);
  put_fit("test", b.test_fit);
  put_fit("validation", b.validation_fit);
}

void LoadEarlyStop(const TrainingState& state, const LinearModel& current, EarlyStop& e) {
  LoadBest(state, current, e);
}
void LoadEarlyStop(const TrainingState& state, const MlpModel& current, EarlyStop& e) {
  LoadBest(state, current, e);
}

bool ReplayedEpoch(uint64_t epochs_done, StepSize& step, const StepPlan& plan) {
  if (std::find(plan.cuts.begin(), plan.cuts.end(), epochs_done) != plan.cuts.end()) {
    step.Cut(epochs_done);
  }
  return epochs_done >= static_cast<uint64_t>(plan.replay_last);
}

bool AdaptiveStall(bool stalled, uint64_t epochs_done, StepSize& step, Progress& progress,
                   EarlyStop& early, StepPlan& plan) {
  if (!stalled) return false;
  if (step.cuts() >= kAdaptiveCuts) return true;
  step.Cut(epochs_done);
  plan.cuts.push_back(epochs_done);
  progress.stale = 0;
  early.stale = 0;
  return false;
}

void SaveAdaptive(const StepSize& step, const Progress& progress, const EarlyStop& early,
                  TrainingState& state) {
  state.Put("adaptive.cuts", static_cast<uint64_t>(step.cuts()));
  state.Put("adaptive.cut_at", step.cut_at());
  state.Put("adaptive.cut_sum", std::bit_cast<uint64_t>(step.cut_sum()));
  state.Put("adaptive.stale", static_cast<uint64_t>(progress.stale));
  state.Put("adaptive.early_stale", static_cast<uint64_t>(early.stale));
  if (progress.best) state.Put("adaptive.best", std::bit_cast<uint64_t>(*progress.best));
  if (progress.scale) state.Put("adaptive.scale", std::bit_cast<uint64_t>(*progress.scale));
}

void LoadAdaptive(const TrainingState& state, uint64_t epochs_done, StepSize& step,
                  Progress& progress, EarlyStop& early) {
  if (state.Has("adaptive.halvings")) {
    throw Error(
        "the checkpoint's adaptive step was halved at each stall; this version cuts it to a "
        "quarter: the run cannot continue from it");
  }
  if (!state.Has("adaptive.cuts")) return;
  const uint64_t cuts = state.Counter("adaptive.cuts");
  const uint64_t cut_at = state.Counter("adaptive.cut_at");
  if (cuts > static_cast<uint64_t>(kAdaptiveCuts) || cut_at > epochs_done) {
    throw Error(fmt::format("the checkpoint's adaptive step: {} cuts, the last at epoch {}",
                            cuts, cut_at));
  }
  step.Restore(static_cast<int>(cuts), cut_at,
               std::bit_cast<double>(state.Counter("adaptive.cut_sum")));
  progress.stale = static_cast<int>(state.Counter("adaptive.stale"));
  early.stale = static_cast<int>(state.Counter("adaptive.early_stale"));
  progress.best = std::nullopt;
  if (state.Has("adaptive.best")) progress.best = std::bit_cast<double>(state.Counter("adaptive.best"));
  progress.scale = std::nullopt;
  if (state.Has("adaptive.scale")) {
    progress.scale = std::bit_cast<double>(state.Counter("adaptive.scale"));
  }
}

}  // namespace parsgd
