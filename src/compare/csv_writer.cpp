#include "csv_writer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "text_format.hpp"

namespace parsgd::compare {
namespace {

std::string Row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  return out + "\n";
}

void Append(std::vector<std::string>& row, const Summary& s) {
  row.push_back(s.n > 0 ? Exact(s.mean) : "");
  row.push_back(s.n > 1 ? Exact(s.std) : "");
}

}  // namespace

std::string Status(const Configuration& config, const ConfigResult& result) {
  if (!config.impossible.empty()) return "impossible";
  if (result.failed == 0) return "ok";
  return result.failed == result.runs ? "failed" : "partial";
}

std::string SummaryCsv(const std::vector<Configuration>& configs, const Analysis& analysis,
                       const std::vector<std::string>& varying) {
  std::vector<std::string> header = {"config", "label"};
  header.insert(header.end(), varying.begin(), varying.end());
  for (const char* name : {"status",
                           "runs",
                           "failed",
                           "objective_mean",
                           "objective_std",
                           "test_accuracy_mean",
                           "test_accuracy_std",
                           "target",
                           "reached",
                           "epochs_to_target_mean",
                           "epochs_to_target_std",
                           "seconds_to_target_mean",
                           "seconds_to_target_std",
                           "samples_per_second_mean",
                           "samples_per_second_std",
                           "throughput_speedup",
                           "time_to_target_speedup",
                           "optimum",
                           "optimum_source",
                           "suboptimality_mean",
                           "suboptimality_std"}) {
    header.push_back(name);
  }
  for (const char* what : {"reached", "epochs_to", "seconds_to"}) {
    for (double level : kSuboptimalityLevels) {
      header.push_back(fmt::format("{}_{:.0e}", what, level));
    }
  }
  for (const char* name : {"accuracy_target", "reached_accuracy", "epochs_to_accuracy_mean",
                           "epochs_to_accuracy_std", "seconds_to_accuracy_mean",
                           "seconds_to_accuracy_std", "time_to_accuracy_speedup"}) {
    header.push_back(name);
  }
  header.push_back("error");
  std::string out = Row(header);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Configuration& c = configs[i];
    const ConfigResult& r = analysis.configs[i];
    std::vector<std::string> row = {std::to_string(i + 1), c.label};
    for (const std::string& flag : varying) {
      const std::string* v = ValueOf(c.point, flag);
      row.push_back(v ? *v : "");
    }
    row.push_back(Status(c, r));
    row.push_back(std::to_string(r.runs));
    row.push_back(std::to_string(r.failed));
    Append(row, r.objective);
    Append(row, r.test_accuracy);
    row.push_back(c.impossible.empty() ? Exact(r.target) : "");
    row.push_back(std::to_string(r.reached));
    Append(row, r.epochs_to_target);
    Append(row, r.seconds_to_target);
    Append(row, r.samples_per_second);
    row.push_back(Exact(r.throughput_speedup));
    row.push_back(Exact(r.time_speedup));
    const ProblemTarget* problem = nullptr;
    for (const ProblemTarget& t : analysis.targets) {
      if (t.problem == c.problem) problem = &t;
    }
    const bool optimum = problem != nullptr && problem->source != OptimumSource::kNone;
    row.push_back(optimum ? Exact(problem->optimum) : "");
    row.push_back(optimum ? OptimumSourceName(problem->source) : "");
    Append(row, r.suboptimality);
    for (int what = 0; what < 3; ++what) {
      for (std::size_t k = 0; k < std::size(kSuboptimalityLevels); ++k) {
        if (r.levels.empty()) {
          row.push_back("");
          continue;
        }
        const ConfigResult::Level& l = r.levels[k];
        row.push_back(what == 0   ? std::to_string(l.reached)
                      : what == 1 ? (l.epochs.n > 0 ? Exact(l.epochs.mean) : "")
                                  : (l.seconds.n > 0 ? Exact(l.seconds.mean) : ""));
      }
    }
    const bool accuracy = c.impossible.empty() && !std::isnan(r.accuracy_target);
    row.push_back(accuracy ? Exact(r.accuracy_target) : "");
    row.push_back(accuracy ? std::to_string(r.reached_accuracy) : "");
    Append(row, r.epochs_to_accuracy);
    Append(row, r.seconds_to_accuracy);
    row.push_back(Exact(r.accuracy_time_speedup));
    row.push_back(c.impossible.empty() ? r.error : c.impossible);
    out += Row(row);
  }
  return out;
}

std::string RunsCsv(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
                    const Analysis& analysis) {
  std::string out = Row({"config", "label", "repeat", "seed", "status", "epochs", "final_objective",
                         "final_test_accuracy", "train_seconds", "samples_per_second",
                         "epochs_to_target", "seconds_to_target", "error"});
  for (const RunRecord& r : runs) {
    const double target = analysis.configs[r.config].target;
    std::vector<std::string> row = {
        std::to_string(r.config + 1),   configs[r.config].label,
        std::to_string(r.repeat + 1),   std::to_string(r.seed),
        r.finished() ? "ok" : "failed", std::to_string(r.epochs.size())};
    std::vector<double> objectives;
    std::vector<std::optional<double>> seconds;
    double updates = 0;
    for (const EpochRecord& e : r.epochs) {
      objectives.push_back(e.objective);
      seconds.push_back(e.train_seconds);
      updates += static_cast<double>(e.updates);
    }
    const int epochs = static_cast<int>(r.epochs.size());
    const auto total = SecondsToEpoch(seconds, epochs);
    const bool has_last = !r.epochs.empty();
    row.push_back(has_last ? Exact(r.epochs.back().objective) : "");
    row.push_back(has_last ? Exact(r.epochs.back().test_accuracy) : "");
    row.push_back(has_last ? Exact(total) : "");
    row.push_back(has_last && total && *total > 0 ? Exact(updates / *total) : "");
    const auto reached = r.finished() ? EpochsToTarget(objectives, target) : std::nullopt;
    row.push_back(reached ? std::to_string(*reached) : "");
    row.push_back(reached ? Exact(SecondsToEpoch(seconds, *reached)) : "");
    row.push_back(r.error);
    out += Row(row);
  }
  return out;
}

}  // namespace parsgd::compare
