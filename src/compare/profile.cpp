#include "profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace parsgd::compare {

double Profile::Method::Share(double tau) const {
  if (ratios.empty()) return 0;
  const auto within =
      std::count_if(ratios.begin(), ratios.end(), [&](double r) { return r <= tau; });
  return static_cast<double>(within) / static_cast<double>(ratios.size());
}

std::vector<std::pair<double, double>> Profile::Steps(std::size_t m) const {
  double largest = 1;
  for (const Method& method : methods) {
    for (double r : method.ratios) {
      if (r < kUnsolved) largest = std::max(largest, r);
    }
  }
  std::vector<double> taus = {1};
  for (double r : methods[m].ratios) {
    if (r < kUnsolved && r > 1) taus.push_back(r);
  }
  std::sort(taus.begin(), taus.end());
  taus.erase(std::unique(taus.begin(), taus.end()), taus.end());
  taus.push_back(largest * 2);
  std::vector<std::pair<double, double>> steps;
  for (double tau : taus) steps.push_back({tau, methods[m].Share(tau)});
  return steps;
}

double Profile::Method::Solved() const { return Share(std::numeric_limits<double>::max()); }

namespace {

// The configuration's cost to the profile's level: its mean over the finished runs, where every
// finished run reached it (and, by seconds, carries its time); else unsolved.
double CostOf(const ConfigResult& r, Profile::Cost cost, std::size_t level) {
  const int finished = r.runs - r.failed;
  if (r.levels.size() <= level || finished == 0) return kUnsolved;
  const ConfigResult::Level& l = r.levels[level];
  const Summary& s = cost == Profile::Cost::kSeconds ? l.seconds : l.epochs;
  if (l.reached != finished || s.n != finished) return kUnsolved;
  // A cost of 0 (no time measured) would make every ratio infinite: a floor of a microsecond.
  return std::max(s.mean, 1e-6);
}

}  // namespace

std::vector<Profile> PerformanceProfiles(const std::vector<Configuration>& configs,
                                         const Analysis& analysis) {
  std::vector<std::string> problems, methods;
  for (const ProblemTarget& t : analysis.targets) {
    if (!std::isnan(t.optimum)) problems.push_back(t.problem);
  }
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Configuration& c = configs[i];
    if (!c.impossible.empty() || analysis.configs[i].levels.empty()) continue;
    if (std::find(problems.begin(), problems.end(), c.problem) == problems.end()) continue;
    if (std::find(methods.begin(), methods.end(), c.method) == methods.end()) {
      methods.push_back(c.method);
    }
  }
  std::vector<Profile> out;
  if (problems.size() < 2 || methods.size() < 2) return out;
  // costs[m][k]: method m on problem k, at a level and by a cost.
  auto costs_at = [&](std::size_t level, Profile::Cost cost) {
    std::vector<std::vector<double>> costs(methods.size(),
                                           std::vector<double>(problems.size(), kUnsolved));
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Configuration& c = configs[i];
      const auto m = std::find(methods.begin(), methods.end(), c.method);
      const auto k = std::find(problems.begin(), problems.end(), c.problem);
      if (!c.impossible.empty() || m == methods.end() || k == problems.end()) continue;
      costs[m - methods.begin()][k - problems.begin()] = CostOf(analysis.configs[i], cost, level);
    }
    return costs;
  };
  // Problems some method solved at a level (by epochs: every finished run has them).
  auto solved = [&](std::size_t level) {
    const auto costs = costs_at(level, Profile::Cost::kEpochs);
    std::size_t n = 0;
    for (std::size_t k = 0; k < problems.size(); ++k) {
      n += std::any_of(costs.begin(), costs.end(),
                       [&](const auto& row) { return row[k] < kUnsolved; });
    }
    return n;
  };
  constexpr std::size_t kLevels = std::size(kSuboptimalityLevels);
  std::optional<std::size_t> level;
  for (std::size_t l = kLevels; l-- > 0 && !level;) {
    if (solved(l) == problems.size()) level = l;
  }
  if (!level && solved(0) > 0) level = 0;
  if (!level) return out;
  for (Profile::Cost cost : {Profile::Cost::kSeconds, Profile::Cost::kEpochs}) {
    Profile p;
    p.cost = cost;
    p.level = kSuboptimalityLevels[*level];
    p.problems = problems;
    const auto costs = costs_at(*level, cost);
    const bool any = std::any_of(costs.begin(), costs.end(), [](const auto& row) {
      return std::any_of(row.begin(), row.end(), [](double v) { return v < kUnsolved; });
    });
    if (!any) continue;  // untimed runs: no seconds profile
    for (std::size_t m = 0; m < methods.size(); ++m) p.methods.push_back({methods[m], {}});
    for (std::size_t k = 0; k < problems.size(); ++k) {
      double best = kUnsolved;
      for (const auto& row : costs) best = std::min(best, row[k]);
      for (std::size_t m = 0; m < methods.size(); ++m) {
        p.methods[m].ratios.push_back(best < kUnsolved ? costs[m][k] / best : kUnsolved);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace parsgd::compare
