#include "analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace parsgd::compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<const RunRecord*> FinishedRuns(const std::vector<RunRecord>& runs, std::size_t config) {
  std::vector<const RunRecord*> out;
  for (const RunRecord& r : runs) {
    if (r.config == config && r.finished() && !r.epochs.empty()) out.push_back(&r);
  }
  return out;
}

bool Timed(const RunRecord& r) {
  return std::all_of(r.epochs.begin(), r.epochs.end(),
                     [](const EpochRecord& e) { return e.train_seconds.has_value(); });
}

std::vector<std::optional<double>> EpochSeconds(const RunRecord& r) {
  std::vector<std::optional<double>> s;
  for (const EpochRecord& e : r.epochs) s.push_back(e.train_seconds);
  return s;
}

std::vector<double> Objectives(const RunRecord& r) {
  std::vector<double> o;
  for (const EpochRecord& e : r.epochs) o.push_back(e.objective);
  return o;
}

// The first epoch (1-based) whose test accuracy is at or above `target`; nullopt if none.
std::optional<int> EpochsToAccuracy(const RunRecord& r, double target) {
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    const auto& accuracy = r.epochs[e].test_accuracy;
    if (accuracy && *accuracy >= target) return static_cast<int>(e + 1);
  }
  return std::nullopt;
}

// Per problem, f*: the reference solver's objective, lowered to the runs' lowest epoch where a run
// went below it; the runs' lowest where no solver ran. No finished run: no f*.
void Optima(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
            const std::vector<Reference>& references, std::vector<ProblemTarget>& targets) {
  for (ProblemTarget& t : targets) {
    double lowest = kNaN;
    for (const RunRecord& r : runs) {
      if (!r.finished() || configs[r.config].problem != t.problem) continue;
      for (const EpochRecord& e : r.epochs) {
        if (std::isnan(lowest) || e.objective < lowest) lowest = e.objective;
      }
    }
    t.optimum = kNaN;
    t.source = OptimumSource::kNone;
    for (const Reference& ref : references) {
      if (ref.problem == t.problem) t.reference = ref;
    }
    if (std::isnan(lowest)) continue;
    if (t.reference && !t.reference->solver.empty()) {
      t.runs_below_solver = lowest < t.reference->objective;
      t.optimum = std::min(t.reference->objective, lowest);
      t.source = Certifies(*t.reference) ? OptimumSource::kCertified : OptimumSource::kSolver;
    } else {
      t.optimum = lowest;
      t.source = OptimumSource::kRuns;
    }
  }
}

// Per problem, the best final objective of its finished runs and the target derived from it.
std::vector<ProblemTarget> Targets(const std::vector<Configuration>& configs,
                                   const std::vector<RunRecord>& runs,
                                   const AnalysisOptions& options) {
  std::vector<ProblemTarget> targets;
  auto find = [&](const std::string& problem) -> ProblemTarget& {
    for (ProblemTarget& t : targets) {
      if (t.problem == problem) return t;
    }
    ProblemTarget t;
    t.problem = problem;
    t.target = t.best = kNaN;
    t.given = options.target.has_value();
    t.accuracy_given = options.target_accuracy.has_value();
    targets.push_back(std::move(t));
    return targets.back();
  };
  for (const Configuration& c : configs) find(c.problem);
  for (const RunRecord& r : runs) {
    if (!r.finished() || r.epochs.empty()) continue;
    ProblemTarget& t = find(configs[r.config].problem);
    const double final_objective = r.epochs.back().objective;
    if (std::isnan(t.best) || final_objective < t.best) t.best = final_objective;
    const auto& accuracy = r.epochs.back().test_accuracy;
    if (accuracy && (std::isnan(t.accuracy_best) || *accuracy > t.accuracy_best)) {
      t.accuracy_best = *accuracy;
    }
  }
  for (ProblemTarget& t : targets) {
    t.target = options.target ? *options.target : t.best + 0.01 * std::fabs(t.best);
    if (!std::isnan(t.accuracy_best)) {
      t.accuracy_target =
          options.target_accuracy ? *options.target_accuracy : t.accuracy_best - kAccuracyMargin;
    }
  }
  if (options.optimum) Optima(configs, runs, options.references, targets);
  return targets;
}

// Over the finished runs, those whose first_epoch(run) (1-based) is not nullopt: their count, and
// the epochs and (timed runs) seconds to that epoch.
struct Reach {
  int runs = 0;
  Summary epochs, seconds;
};
template <class FirstEpoch>
Reach ReachOf(const std::vector<const RunRecord*>& finished, FirstEpoch first_epoch) {
  Reach out;
  std::vector<double> epochs, seconds;
  for (const RunRecord* r : finished) {
    const std::optional<int> reached = first_epoch(*r);
    if (!reached) continue;
    ++out.runs;
    epochs.push_back(*reached);
    if (auto s = SecondsToEpoch(EpochSeconds(*r), *reached)) seconds.push_back(*s);
  }
  out.epochs = Summarize(epochs);
  out.seconds = Summarize(seconds);
  return out;
}

// The configuration's distance to f*: its final relative suboptimality, and the epochs and seconds
// to each level.
void Suboptimality(const std::vector<const RunRecord*>& finished, double optimum, ConfigResult& c) {
  if (std::isnan(optimum) || finished.empty()) return;
  std::vector<double> final_gap;
  for (const RunRecord* r : finished) {
    final_gap.push_back(RelativeSuboptimality(r->epochs.back().objective, optimum));
  }
  c.suboptimality = Summarize(final_gap);
  for (double level : kSuboptimalityLevels) {
    ConfigResult::Level l;
    l.level = level;
    const double bound = optimum + level * std::max(std::fabs(optimum), 1e-300);
    const Reach reach = ReachOf(
        finished, [&](const RunRecord& r) { return EpochsToTarget(Objectives(r), bound); });
    l.reached = reach.runs;
    l.epochs = reach.epochs;
    l.seconds = reach.seconds;
    c.levels.push_back(l);
  }
}

// Epochs and seconds to the target test accuracy over the finished runs.
void TimeToAccuracy(const std::vector<const RunRecord*>& finished, double target,
                    ConfigResult& c) {
  c.accuracy_target = target;
  if (std::isnan(target)) return;
  const Reach reach =
      ReachOf(finished, [&](const RunRecord& r) { return EpochsToAccuracy(r, target); });
  c.reached_accuracy = reach.runs;
  c.epochs_to_accuracy = reach.epochs;
  c.seconds_to_accuracy = reach.seconds;
}

ConfigResult SummarizeConfig(std::size_t index, const std::vector<RunRecord>& runs, double target,
                             double accuracy_target, double optimum) {
  ConfigResult c;
  c.target = target;
  for (const RunRecord& r : runs) {
    if (r.config != index) continue;
    ++c.runs;
    if (!r.finished()) {
      if (c.failed++ == 0) c.error = r.error;
    }
  }
  const auto finished = FinishedRuns(runs, index);
  std::vector<double> objective, accuracy, rate, epochs, seconds;
  std::size_t common_epochs = std::numeric_limits<std::size_t>::max();
  bool timed = !finished.empty();
  for (const RunRecord* r : finished) {
    objective.push_back(r->epochs.back().objective);
    if (r->epochs.back().test_accuracy) accuracy.push_back(*r->epochs.back().test_accuracy);
    common_epochs = std::min(common_epochs, r->epochs.size());
    timed = timed && Timed(*r);
    const auto reached = EpochsToTarget(Objectives(*r), target);
    if (!reached) continue;
    ++c.reached;
    epochs.push_back(*reached);
    if (auto s = SecondsToEpoch(EpochSeconds(*r), *reached)) seconds.push_back(*s);
  }
  if (timed) {
    for (const RunRecord* r : finished) {
      double updates = 0, time = 0;
      for (const EpochRecord& e : r->epochs) {
        updates += static_cast<double>(e.updates);
        time += *e.train_seconds;
      }
      if (time > 0) rate.push_back(updates / time);
    }
  }
  c.objective = Summarize(objective);
  c.test_accuracy = Summarize(accuracy);
  c.samples_per_second = Summarize(rate);
  c.epochs_to_target = Summarize(epochs);
  c.seconds_to_target = Summarize(seconds);
  for (std::size_t e = 0; !finished.empty() && e < common_epochs; ++e) {
    std::vector<double> o, s;
    for (const RunRecord* r : finished) {
      o.push_back(r->epochs[e].objective);
      if (timed) s.push_back(*SecondsToEpoch(EpochSeconds(*r), static_cast<int>(e + 1)));
    }
    c.curve.push_back({static_cast<int>(e + 1), Summarize(o), Summarize(s)});
  }
  Suboptimality(finished, optimum, c);
  TimeToAccuracy(finished, accuracy_target, c);
  return c;
}

// Every finished run reached the target (the objective's, or the test accuracy's) and carries its
// time.
bool AllReachedInTime(const ConfigResult& c) {
  const int finished = c.runs - c.failed;
  return finished > 0 && c.reached == finished && c.seconds_to_target.n == finished;
}
bool AllReachedAccuracyInTime(const ConfigResult& c) {
  const int finished = c.runs - c.failed;
  return finished > 0 && c.reached_accuracy == finished && c.seconds_to_accuracy.n == finished;
}

void Speedups(const std::vector<Configuration>& configs, std::vector<ConfigResult>& results) {
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (ValueOf(configs[i].point, "threads") == nullptr) continue;
    const std::string key = Key(Without(configs[i].point, "threads"));
    for (std::size_t j = 0; j < configs.size(); ++j) {
      const std::string* threads = ValueOf(configs[j].point, "threads");
      if (threads == nullptr || *threads != "1" || !configs[j].impossible.empty()) continue;
      if (Key(Without(configs[j].point, "threads")) != key) continue;
      ConfigResult& c = results[i];
      const ConfigResult& base = results[j];
      c.baseline = j;
      if (c.samples_per_second.n > 0 && base.samples_per_second.n > 0) {
        c.throughput_speedup = c.samples_per_second.mean / base.samples_per_second.mean;
      }
      if (AllReachedInTime(c) && AllReachedInTime(base) && c.seconds_to_target.mean > 0) {
        c.time_speedup = base.seconds_to_target.mean / c.seconds_to_target.mean;
      }
      if (AllReachedAccuracyInTime(c) && AllReachedAccuracyInTime(base) &&
          c.seconds_to_accuracy.mean > 0) {
        c.accuracy_time_speedup = base.seconds_to_accuracy.mean / c.seconds_to_accuracy.mean;
      }
      break;
    }
  }
  // A 1-thread configuration is its own baseline (1x) only beside a configuration on more threads;
  // alone (a grid with no thread axis) it has no speedup to show.
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (results[i].baseline != i) continue;
    const bool used = std::any_of(results.begin(), results.end(), [&](const ConfigResult& r) {
      return &r != &results[i] && r.baseline == i;
    });
    if (!used) {
      results[i].baseline.reset();
      results[i].throughput_speedup.reset();
      results[i].time_speedup.reset();
      results[i].accuracy_time_speedup.reset();
    }
  }
}

std::vector<Comparison> Compare(const std::vector<Configuration>& configs,
                                const std::vector<ConfigResult>& results,
                                const std::vector<std::string>& varying) {
  std::vector<Comparison> out;
  for (const std::string& flag : varying) {
    std::map<std::string, std::vector<std::size_t>> groups;  // the rest of the point -> configs
    std::vector<std::string> order;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (ValueOf(configs[i].point, flag) == nullptr || results[i].objective.n == 0) continue;
      const std::string key = Key(Without(configs[i].point, flag));
      if (groups[key].empty()) order.push_back(key);
      groups[key].push_back(i);
    }
    for (const std::string& key : order) {
      const auto& members = groups[key];
      for (std::size_t x = 0; x < members.size(); ++x) {
        for (std::size_t y = x + 1; y < members.size(); ++y) {
          const ConfigResult& a = results[members[x]];
          const ConfigResult& b = results[members[y]];
          Comparison c{flag, members[x], members[y]};
          // Another problem is another objective (and target): only accuracies compare, and
          // only on the same test set.
          if (configs[members[x]].problem == configs[members[y]].problem) {
            c.objective = WelchTest(a.objective, b.objective);
            if (AllReachedInTime(a) && AllReachedInTime(b)) {
              c.seconds_to_target = WelchTest(a.seconds_to_target, b.seconds_to_target);
            }
          }
          if (flag != "test") c.test_accuracy = WelchTest(a.test_accuracy, b.test_accuracy);
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

}  // namespace

bool Certifies(const Reference& reference) {
  return reference.gap &&
         std::fabs(*reference.gap) <= 1e-6 * std::max(std::fabs(reference.objective), 1e-300);
}

const char* OptimumSourceName(OptimumSource source) {
  switch (source) {
    case OptimumSource::kCertified:
      return "certified";
    case OptimumSource::kSolver:
      return "solver";
    case OptimumSource::kRuns:
      return "runs";
    case OptimumSource::kNone:
      break;
  }
  return "none";
}

double RelativeSuboptimality(double objective, double optimum) {
  return (objective - optimum) / std::max(std::fabs(optimum), 1e-300);
}

Analysis Analyze(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
                 const std::vector<std::string>& varying, const AnalysisOptions& options) {
  Analysis a;
  a.targets = Targets(configs, runs, options);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    double target = kNaN, accuracy_target = kNaN, optimum = kNaN;
    for (const ProblemTarget& t : a.targets) {
      if (t.problem != configs[i].problem) continue;
      target = t.target;
      accuracy_target = t.accuracy_target;
      optimum = t.optimum;
    }
    a.configs.push_back(SummarizeConfig(i, runs, target, accuracy_target, optimum));
  }
  Speedups(configs, a.configs);
  a.comparisons = Compare(configs, a.configs, varying);
  return a;
}

}  // namespace parsgd::compare
