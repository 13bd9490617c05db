// Dolan-More performance profiles (Dolan and More, "Benchmarking optimization software with
// performance profiles", 2002) over the problems of a comparison: for each method (a
// configuration's flags other than the problem's) and each problem, its cost to solve the problem
// (mean seconds, or epochs, to a relative suboptimality) over the best method's on that problem;
// the profile rho(tau) is the share of problems a method solves within tau times the best cost.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "run_record.hpp"

namespace parsgd::compare {

struct Profile {
  enum class Cost { kSeconds, kEpochs } cost = Cost::kSeconds;
  double level = 0;
  std::vector<std::string> problems;
  struct Method {
    std::string label;
    // Per problem: cost over the best method's, +inf where the method did not solve it (not every
    // finished run reached the level, or it did not run on that problem).
    std::vector<double> ratios;
    // rho(tau): the share of problems whose ratio is at most tau (finite tau).
    double Share(double tau) const;
    // The share of problems it solved at all (rho as tau grows without bound).
    double Solved() const;
  };
  std::vector<Method> methods;

  // "seconds" or "epochs".
  const char* cost_name() const { return cost == Cost::kSeconds ? "seconds" : "epochs"; }
  // Method m's profile as steps (tau, rho(tau)): at tau = 1, at each of its finite ratios, and at
  // twice the largest finite ratio of any method, past which every method's profile is flat.
  std::vector<std::pair<double, double>> Steps(std::size_t m) const;
};

inline constexpr double kUnsolved = std::numeric_limits<double>::infinity();

// The profiles of a comparison by seconds (timed runs) and by epochs, each where at least two
// problems have f* and at least two methods ran on them; empty otherwise. The level a problem
// counts as solved at is the tightest of kSuboptimalityLevels at which some method solved every
// problem, else the loosest at which some method solved one (none solved at any: no profile).
std::vector<Profile> PerformanceProfiles(const std::vector<Configuration>& configs,
                                         const Analysis& analysis);

}  // namespace parsgd::compare
