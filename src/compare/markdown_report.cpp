#include "markdown_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "csv_writer.hpp"
#include "profile.hpp"
#include "text_format.hpp"

namespace parsgd::compare {
namespace {

// "81.50 ± 0.50%" (percent with two decimals; the spread left out for one run).
std::string Percent(const Summary& s) {
  if (s.n == 0) return "–";
  if (s.n == 1) return fmt::format("{:.2f}%", 100 * s.mean);
  return fmt::format("{:.2f} ± {:.2f}%", 100 * s.mean, 100 * s.std);
}

std::string Header(const ReportInput& in) {
  const auto& configs = *in.configs;
  int impossible = 0, failed = 0;
  for (const Configuration& c : configs) impossible += !c.impossible.empty();
  for (const RunRecord& r : *in.runs) failed += !r.finished();
  std::string out = "# parsgd compare\n\n```\n" + in.command + "\n```\n\n";
  out += fmt::format(
      "{} configurations x {} repeats: {} runs, executed {} on a machine with {} usable cores; {} "
      "failed",
      configs.size(), in.repeats, in.runs->size(),
      in.jobs > 1 ? fmt::format("up to {} at a time (`--jobs {}`, their threads within the cores)",
                                in.jobs, in.jobs)
                  : std::string("one after another (never concurrently)"),
      in.cores, failed);
  if (impossible > 0) out += fmt::format(", {} configurations impossible (not run)", impossible);
  out += ".\n\n";
  if (in.interrupted) {
    out += fmt::format(
        "**Interrupted** (a signal ended the grid): {} of its {} runs finished before it, and "
        "every table and plot below is of those only; the run in progress and the rest did not "
        "run.\n\n",
        in.runs->size(), in.planned_runs);
  }
  for (const std::string& d : in.data) out += "- data: " + d + "\n";
  out += "- varying: ";
  if (in.varying.empty()) out += "nothing (one configuration)";
  for (std::size_t i = 0; i < in.varying.size(); ++i) {
    std::vector<std::string> seen;
    std::string values;
    for (const Configuration& c : configs) {
      const std::string* v = ValueOf(c.point, in.varying[i]);
      if (v == nullptr || std::find(seen.begin(), seen.end(), *v) != seen.end()) continue;
      seen.push_back(*v);
      values += (values.empty() ? " " : ", ") + *v;
    }
    out += fmt::format("{}`--{}`{}", i ? "; " : "", in.varying[i], values);
  }
  out += "\n- fixed:";
  if (in.fixed.empty()) out += " the defaults of `parsgd train`";
  for (const Setting& s : in.fixed) {
    out += s.value.empty() ? fmt::format(" `--{}`", s.flag)
                           : fmt::format(" `--{} {}`", s.flag, s.value);
  }
  out += fmt::format(
      "\n- seeds: repeat r runs with `--seed` {} + r - 1 ({}), the same seed in every "
      "configuration (common random numbers: the configurations of one repeat see the same "
      "sample order where their settings allow)\n",
      in.seed,
      in.repeats == 1 ? fmt::format("seed {}", in.seed)
                      : fmt::format("seeds {} to {}", in.seed, in.seed + in.repeats - 1));
  return out;
}

std::string Definitions(const ReportInput& in) {
  std::string out = "\n## Definitions\n\n";
  out +=
      "- **final objective**: the objective (mean training loss + L2 term, a full evaluation "
      "pass) after the last epoch; **test accuracy** likewise. Each cell is the mean ± the "
      "sample standard deviation (divisor n - 1) over the finished repeats.\n"
      "- **time to target**: the first epoch after which the objective is at or below the "
      "target (no interpolation: the objective is only known at the end of an epoch); its "
      "seconds are the training seconds up to the end of that epoch. Averaged over the repeats "
      "that reached it; (r/n) counts them.\n"
      "- **seconds** are the measured wall-clock time of the training epochs (the workers' time, "
      "evaluation excluded), as `parsgd train` reports it. **samples/s** is a run's updates over "
      "its training seconds.\n"
      "- **speedup**: over the configuration that differs only by `--threads 1`: its mean "
      "samples/s over theirs, and their mean seconds to target over its (only when every "
      "finished run of both reached the target).\n";
  for (const ProblemTarget& t : in.analysis->targets) {
    const std::string where = in.analysis->targets.size() > 1 ? " for " + t.problem : "";
    if (t.given) {
      out += fmt::format("- **target**{}: {} (`--target`)\n", where, Short(t.target, 6));
    } else if (std::isnan(t.best)) {
      out += fmt::format("- **target**{}: none (no run finished)\n", where);
    } else {
      out += fmt::format("- **target**{}: {} = the best final objective of all runs ({}) + 1%\n",
                         where, Short(t.target, 6), Short(t.best, 6));
    }
  }
  bool untimed = false;
  for (const RunRecord& r : *in.runs) {
    for (const EpochRecord& e : r.epochs) untimed = untimed || !e.train_seconds;
  }
  if (in.jobs > 1) {
    out += fmt::format(
        "- **Judged by epochs**: the runs shared the machine (`--jobs {}`), so their times are "
        "not a run's alone and none is reported: seconds, samples/s, speedups and time to a "
        "target or a level are shown as –; the objectives, accuracies and epochs are the runs' "
        "own (as one at a time). For times, run the grid with `--jobs 1`.\n",
        in.jobs);
  } else if (untimed) {
    out +=
        "- Runs under `--deterministic` record no wall-clock times (their metrics must repeat "
        "byte for byte): their seconds, samples/s and speedups are shown as –.\n";
  }
  return out;
}

std::string ResultsTable(const ReportInput& in) {
  const auto& configs = *in.configs;
  const auto& results = in.analysis->configs;
  bool has_test = false;
  for (const ConfigResult& r : results) has_test = has_test || r.test_accuracy.n > 0;
  std::string out = "\n## Results\n\n| # | configuration | runs | final objective |";
  if (has_test) out += " test accuracy |";
  out +=
      " epochs to target | seconds to target | samples/s | speedup (samples/s) | speedup (time "
      "to target) |\n|---|---|---|---|";
  if (has_test) out += "---|";
  out += "---|---|---|---|---|\n";
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Configuration& c = configs[i];
    const ConfigResult& r = results[i];
    std::vector<std::string> cells = {std::to_string(i + 1), MdCell(c.label)};
    if (!c.impossible.empty()) {
      cells.push_back(fmt::format("impossible: {}", MdCell(c.impossible)));
      cells.resize(has_test ? 10 : 9);
    } else {
      const int finished = r.runs - r.failed;
      cells.push_back(r.failed ? fmt::format("{} ({} failed)", finished, r.failed)
                               : std::to_string(finished));
      cells.push_back(MeanStd(r.objective.mean, r.objective.std, 6));
      if (has_test) {
        cells.push_back(Percent(r.test_accuracy));
      }
      cells.push_back(finished == 0 ? "–"
                                    : fmt::format("{} ({}/{})",
                                                  r.reached ? MeanStd(r.epochs_to_target.mean,
                                                                      r.epochs_to_target.std, 3)
                                                            : "not reached",
                                                  r.reached, finished));
      cells.push_back(r.seconds_to_target.n == 0
                          ? "–"
                          : MeanStd(r.seconds_to_target.mean, r.seconds_to_target.std, 3));
      const Summary& rate = r.samples_per_second;
      cells.push_back(rate.n == 0 ? "–"
                      : rate.n == 1
                          ? ShortCount(rate.mean)
                          : fmt::format("{} ± {}", ShortCount(rate.mean), ShortCount(rate.std)));
      cells.push_back(r.throughput_speedup ? fmt::format("{}×", Short(*r.throughput_speedup, 3))
                                           : "–");
      cells.push_back(r.time_speedup ? fmt::format("{}×", Short(*r.time_speedup, 3)) : "–");
    }
    for (const std::string& cell : cells) out.append("| ").append(cell).append(" ");
    out += "|\n";
  }
  return out;
}

// Where a problem's f* comes from, in words.
std::string OptimumSourceText(const ProblemTarget& t) {
  const auto& ref = t.reference;
  const std::string lowered =
      t.runs_below_solver ? "; a run went below the solver's objective, so f* is that run's" : "";
  switch (t.source) {
    case OptimumSource::kCertified:
      return fmt::format(
          "{}, {} epochs on one thread, to a duality gap of {:.2g}: certified, the optimum "
          "is within the gap below its objective{}",
          ref->solver, ref->epochs, std::fabs(*ref->gap), lowered);
    case OptimumSource::kSolver:
      if (ref->gap) {
        return fmt::format(
            "{}, {} epochs on one thread, ending at a duality gap of {:.2g}, too wide to certify "
            "the levels (the optimum lies within it below the solver's objective){}",
            ref->solver, ref->epochs, std::fabs(*ref->gap), lowered);
      }
      return fmt::format(
          "{}, {} epochs on one thread, to its stopping rule (a relative decrease below 1e-12 "
          "per epoch): no certificate{}",
          ref->solver, ref->epochs, lowered);
    case OptimumSource::kRuns:
      return fmt::format(
          "the lowest objective of any epoch of the runs, **not certified**: a configuration's "
          "suboptimality is its distance to the best run, whose own is 0. No solver ran: {}",
          ref && !ref->why_none.empty() ? ref->why_none : "`--optimum runs`");
    case OptimumSource::kNone:
      break;
  }
  return "none";
}

std::string Scientific(const Summary& s) {
  if (s.n == 0) return "–";
  if (s.n == 1) return fmt::format("{:.2e}", s.mean);
  return fmt::format("{:.2e} ± {:.1e}", s.mean, s.std);
}

// Time to accuracy: per problem its target test accuracy, and per configuration the epochs and
// seconds to it and the speedup over its --threads 1 twin.
std::string TimeToAccuracy(const ReportInput& in) {
  const auto& configs = *in.configs;
  const auto& results = in.analysis->configs;
  std::string out;
  for (const ProblemTarget& t : in.analysis->targets) {
    if (std::isnan(t.accuracy_target)) continue;
    if (out.empty()) {
      out =
          "\n## Time to accuracy\n\nThe first epoch whose test accuracy is at or above the "
          "target (the first-epoch rule, as for the objective's target), its training seconds, "
          "over the repeats that reached it; the speedup over the configuration that differs "
          "only by `--threads 1` (every finished run of both reached it).\n";
    }
    out += fmt::format(
        "\n{}target test accuracy {:.2f}%{}.\n\n| # | configuration | epochs to accuracy | "
        "seconds to accuracy | speedup (time to accuracy) |\n|---|---|---|---|---|\n",
        in.analysis->targets.size() > 1 ? fmt::format("**{}**: ", t.problem) : std::string(),
        100 * t.accuracy_target,
        t.accuracy_given ? " (`--target-accuracy`)"
                         : fmt::format(" = the best final test accuracy of all runs ({:.2f}%) - "
                                       "{:.1f} points",
                                       100 * t.accuracy_best, 100 * kAccuracyMargin));
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const ConfigResult& r = results[i];
      if (configs[i].problem != t.problem || !configs[i].impossible.empty()) continue;
      const int finished = r.runs - r.failed;
      out += fmt::format(
          "| {} | {} | {} | {} | {} |\n", i + 1, MdCell(configs[i].label),
          finished == 0 ? "–"
                        : fmt::format("{} ({}/{})",
                                      r.reached_accuracy ? MeanStd(r.epochs_to_accuracy.mean,
                                                                   r.epochs_to_accuracy.std, 3)
                                                         : "not reached",
                                      r.reached_accuracy, finished),
          r.seconds_to_accuracy.n == 0
              ? "–"
              : MeanStd(r.seconds_to_accuracy.mean, r.seconds_to_accuracy.std, 3),
          r.accuracy_time_speedup ? fmt::format("{}×", Short(*r.accuracy_time_speedup, 3)) : "–");
    }
  }
  return out;
}

// Suboptimality: per problem its f*, and per configuration the final relative suboptimality and
// the epochs and seconds to each level.
std::string Optimum(const ReportInput& in) {
  const auto& configs = *in.configs;
  const auto& results = in.analysis->configs;
  std::string out;
  for (const ProblemTarget& t : in.analysis->targets) {
    if (t.source == OptimumSource::kNone) continue;
    if (out.empty()) {
      out =
          "\n## Distance to the optimum\n\nThe **suboptimality** of an epoch is f - f*, its "
          "objective's distance to the problem's optimum f*; relative, (f - f*) / |f*|. Epochs "
          "and seconds to a level: the first epoch whose relative suboptimality is at or below "
          "it (the first-epoch rule, as for the target), over the repeats that reached it.\n";
    }
    out += fmt::format(
        "\n{}f* = {} ({}).\n\n",
        in.analysis->targets.size() > 1 ? fmt::format("**{}**: ", t.problem) : std::string(),
        Exact(t.optimum), OptimumSourceText(t));
    out += "| # | configuration | final suboptimality (relative) |";
    for (double level : kSuboptimalityLevels) out += fmt::format(" epochs to {:.0e} |", level);
    for (double level : kSuboptimalityLevels) out += fmt::format(" seconds to {:.0e} |", level);
    out += "\n|---|---|---|";
    for (std::size_t k = 0; k < 2 * std::size(kSuboptimalityLevels); ++k) out += "---|";
    out += "\n";
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const ConfigResult& r = results[i];
      if (configs[i].problem != t.problem || r.levels.empty()) continue;
      const int finished = r.runs - r.failed;
      out += fmt::format("| {} | {} | {} |", i + 1, MdCell(configs[i].label),
                         Scientific(r.suboptimality));
      for (const auto& l : r.levels) {
        out += l.reached == 0
                   ? fmt::format(" not reached (0/{}) |", finished)
                   : fmt::format(" {} ({}/{}) |", MeanStd(l.epochs.mean, l.epochs.std, 3),
                                 l.reached, finished);
      }
      for (const auto& l : r.levels) {
        out += l.seconds.n == 0 ? " – |"
                                : fmt::format(" {} |", MeanStd(l.seconds.mean, l.seconds.std, 3));
      }
      out += "\n";
    }
  }
  return out;
}

// Dolan-More profiles over the comparison's problems: per method the share of problems it solved
// fastest, within 2x and 4x of the fastest, and at all; and its cost ratio on each problem.
std::string Profiles(const ReportInput& in) {
  const std::vector<Profile> profiles = PerformanceProfiles(*in.configs, *in.analysis);
  if (profiles.empty()) return "";
  std::string out = fmt::format(
      "\n## Performance profiles\n\nOver the {} problems (Dolan and Moré 2002): a method (a "
      "configuration's flags other than the problem's) solves a problem when every finished run "
      "came within a relative suboptimality of {:g} of its f*; its cost is the mean seconds (or "
      "epochs) to that, and its ratio the cost over the best method's on the problem. "
      "rho(tau) is the share of problems solved within tau times the best.\n",
      profiles[0].problems.size(), profiles[0].level);
  for (const Profile& p : profiles) {
    const char* cost = p.cost_name();
    out +=
        fmt::format("\n### By {}\n\n| method | rho(1): fastest | rho(2) | rho(4) | solved |", cost);
    for (const std::string& problem : p.problems)
      out.append(" ").append(MdCell(problem)).append(" |");
    out += "\n|---|---|---|---|---|";
    for (std::size_t k = 0; k < p.problems.size(); ++k) out += "---|";
    out += "\n";
    for (const Profile::Method& m : p.methods) {
      out += fmt::format("| {} | {:.0f}% | {:.0f}% | {:.0f}% | {:.0f}% |", MdCell(m.label),
                         100 * m.Share(1), 100 * m.Share(2), 100 * m.Share(4), 100 * m.Solved());
      for (double r : m.ratios) {
        out += r < kUnsolved ? fmt::format(" {:.3g}x |", r) : std::string(" not solved |");
      }
      out += "\n";
    }
    out += fmt::format("\nThe profile's plot: `profile_{}.gp`.\n", cost);
  }
  return out;
}

// "Δ -0.0012 (p = 0.003) **yes**": A's mean minus B's (times `scale`, followed by `unit`), the
// p-value, and whether it is below alpha.
std::string Verdict(const std::optional<WelchResult>& w, double a, double b, double alpha,
                    double scale = 1, const char* unit = "") {
  if (!w) return "–";
  const std::string delta = fmt::format("Δ {}{}", Short(scale * (a - b), 3), unit);
  const std::string p = w->p < 1e-4 ? "p < 0.0001" : fmt::format("p = {:.2g}", w->p);
  return fmt::format("{} ({}) {}", delta, p, w->p < alpha ? "**yes**" : "no");
}

// How sure a lead is: the best configuration against the runner-up, by Welch's test.
std::string Sureness(const Summary& best, const Summary& next, double alpha) {
  const auto w = WelchTest(best, next);
  if (!w) return "not tested: fewer than two finished runs on a side";
  const std::string p = w->p < 1e-4 ? "p < 0.0001" : fmt::format("p = {:.2g}", w->p);
  return w->p < alpha ? p + ": the lead exceeds the spread over the repeats"
                      : p + ": not shown with these repeats (the two may be as good)";
}

// One question's answer among `members` (configurations with a value): the best by `value`
// (lower is better) and how far and how surely it leads the runner-up.
std::string Best(const ReportInput& in, const char* question, std::vector<std::size_t> members,
                 const std::function<const Summary&(const ConfigResult&)>& value,
                 const char* unit) {
  const auto& results = in.analysis->configs;
  std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
    return value(results[a]).mean < value(results[b]).mean;
  });
  const Summary& best = value(results[members[0]]);
  std::string out =
      fmt::format("- **{}**: #{} {} ({}{})", question, members[0] + 1,
                  (*in.configs)[members[0]].label, MeanStd(best.mean, best.std, 4), unit);
  if (members.size() < 2) return out + "\n";
  const Summary& next = value(results[members[1]]);
  return out + fmt::format("; the runner-up, #{} {}, {}{} ({})\n", members[1] + 1,
                           (*in.configs)[members[1]].label, MeanStd(next.mean, next.std, 4), unit,
                           Sureness(best, next, in.alpha));
}

// Which configuration to use, per problem: the lowest final objective, and the fastest to the
// target (among those whose every finished run reached it, with times).
std::string Recommendation(const ReportInput& in) {
  const auto& configs = *in.configs;
  const auto& results = in.analysis->configs;
  std::string out = "\n## Which configuration to use\n\n";
  bool any = false;
  for (const ProblemTarget& t : in.analysis->targets) {
    std::vector<std::size_t> finished, timed;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].problem != t.problem || results[i].objective.n == 0) continue;
      finished.push_back(i);
      const int done = results[i].runs - results[i].failed;
      if (results[i].reached == done && results[i].seconds_to_target.n == done) timed.push_back(i);
    }
    if (finished.empty()) continue;
    any = true;
    if (in.analysis->targets.size() > 1) out += fmt::format("{}:\n\n", t.problem);
    out += Best(
        in, "Lowest final objective", finished,
        [](const ConfigResult& r) -> const Summary& { return r.objective; }, "");
    if (timed.empty()) {
      out += fmt::format(
          "- **Fastest to the target** ({}): none to name: no configuration reached it in every "
          "finished run with its times recorded\n",
          Short(t.target, 6));
    } else {
      out += Best(
          in, "Fastest to the target", timed,
          [](const ConfigResult& r) -> const Summary& { return r.seconds_to_target; }, " s");
    }
  }
  if (!any) return out + "No configuration finished a run: none to recommend.\n";
  return out + "\nThese are this machine's answers for this data; the times hold on it only.\n";
}

std::string Significance(const ReportInput& in) {
  const auto& configs = *in.configs;
  const auto& results = in.analysis->configs;
  std::string out = fmt::format(
      "\n## Do the differences exceed the spread over repeats?\n\n"
      "Welch's two-sample t-test (unequal variances; Welch-Satterthwaite degrees of freedom), "
      "two-sided, threshold **p < {}**, between every two configurations that differ in one "
      "flag only. Δ is A's mean minus B's (test accuracy in percentage points). \"yes\": the "
      "difference exceeds what the spread over "
      "the repeats explains; \"no\": it does not show with these repeats (not: the two are "
      "equal). A test needs two finished runs on each side (seconds: every run reached the "
      "target and has times), else –. Configurations on different problems (another `--train`, "
      "`--model` or `--l2`: another objective) are compared by test accuracy only. With many "
      "pairs, about {}% of pairs with no real "
      "difference still say yes (no correction for multiple comparisons).\n",
      in.alpha, 100 * in.alpha);
  if (in.analysis->comparisons.empty()) {
    // Configurations with no finished run take no part in a test: say so where they are why.
    const auto none = std::count_if(results.begin(), results.end(), [](const ConfigResult& r) {
      return r.runs > 0 && r.objective.n == 0;
    });
    if (none > 0) {
      return out + fmt::format(
                       "\nNothing to test: {} of the {} configurations have no finished run "
                       "(their errors are in the results above), and no two of the others "
                       "differ in one flag only.\n",
                       none, results.size());
    }
    return out + "\nNo two configurations differ in one flag only: nothing to test.\n";
  }
  std::string flag;
  for (const Comparison& c : in.analysis->comparisons) {
    if (c.flag != flag) {
      flag = c.flag;
      out += fmt::format(
          "\n### `--{}`\n\n| with | A | B | final objective | test accuracy | seconds to "
          "target |\n|---|---|---|---|---|---|\n",
          flag);
    }
    const ConfigResult& a = results[c.a];
    const ConfigResult& b = results[c.b];
    const std::string with = Label(Without(Shown(configs[c.a]), flag), in.varying);
    out += fmt::format(
        "| {} | #{} {} | #{} {} | {} | {} | {} |\n", MdCell(with == "all runs" ? "–" : with),
        c.a + 1, MdCell(*ValueOf(Shown(configs[c.a]), flag)), c.b + 1,
        MdCell(*ValueOf(Shown(configs[c.b]), flag)),
        Verdict(c.objective, a.objective.mean, b.objective.mean, in.alpha),
        Verdict(c.test_accuracy, a.test_accuracy.mean, b.test_accuracy.mean, in.alpha, 100, " pt"),
        Verdict(c.seconds_to_target, a.seconds_to_target.mean, b.seconds_to_target.mean, in.alpha,
                1, " s"));
  }
  return out;
}

std::string Failures(const ReportInput& in) {
  std::string out;
  for (std::size_t i = 0; i < in.configs->size(); ++i) {
    const Configuration& c = (*in.configs)[i];
    if (!c.impossible.empty()) {
      out += fmt::format("- #{} {}: impossible, not run: {}\n", i + 1, c.label, c.impossible);
      continue;
    }
    // The failed runs of the configuration, one line per distinct message.
    std::vector<std::pair<std::string, std::string>> messages;  // message, "repeat 1 (seed 1)..."
    int failed = 0, runs = 0;
    for (const RunRecord& r : *in.runs) {
      if (r.config != i) continue;
      ++runs;
      if (r.finished()) continue;
      ++failed;
      const std::string which = fmt::format("repeat {} (seed {}, after {} epochs)", r.repeat + 1,
                                            r.seed, r.epochs.size());
      auto at = std::find_if(messages.begin(), messages.end(),
                             [&](const auto& m) { return m.first == r.error; });
      if (at == messages.end()) {
        messages.push_back({r.error, which});
      } else {
        at->second += ", " + which;
      }
    }
    if (failed == 0) continue;
    out += fmt::format("- #{} {}: {} of {} runs failed\n", i + 1, c.label, failed, runs);
    for (const auto& [message, which] : messages)
      out += fmt::format("  - {}: {}\n", which, message);
  }
  if (out.empty()) return "";
  return "\n## Failures\n\nLeft out of the statistics; the other runs went on.\n\n" + out;
}

std::string PlotsSection(const ReportInput& in) {
  std::string out = "\n## Plots\n\n";
  const Plots& plots = *in.plots;
  for (const std::string& note : plots.notes) out += "- " + note + "\n";
  if (plots.scripts.empty()) return out;
  std::string how;
  for (const std::string& s : plots.scripts) how += "gnuplot " + s + "\n";
  const DrawResult& d = in.drawn;
  switch (d.state) {
    case DrawResult::State::kDrawn:
      for (const std::string& s : plots.scripts) {
        const std::string stem = s.substr(0, s.rfind('.'));
        out += fmt::format("\n![{0}]({0}.svg)\n\n[{0}.png]({0}.png), drawn by `{1}`\n", stem, s);
      }
      out +=
          "\nTo restyle, edit the `.gp` scripts (the data is in the `.dat` files) and run them "
          "again in this folder.\n";
      return out;
    case DrawResult::State::kNotFound:
      out += fmt::format("\ngnuplot was not found (looked for `{}`), so no images were drawn. ",
                         d.program);
      break;
    case DrawResult::State::kFailed:
      out += "\nDrawing failed: " + d.message + ". ";
      break;
    case DrawResult::State::kSkipped:
      out += "\nNo images drawn (`--gnuplot none`). ";
      break;
  }
  out +=
      "The data (`.dat`) and the gnuplot scripts (`.gp`) are in this folder; to draw the "
      "plots (PNG and SVG), install gnuplot (Debian: `apt-get install gnuplot-nox`) and run "
      "here:\n\n```\n" +
      how + "```\n";
  return out;
}

std::string Configurations(const ReportInput& in) {
  std::string out =
      "\n## Configurations\n\nEach run is `parsgd train` with these flags and `--seed` as "
      "above (repeat 1 shown):\n\n";
  for (std::size_t i = 0; i < in.configs->size(); ++i) {
    out += fmt::format("{}. {}: `{}`\n", i + 1, (*in.configs)[i].label, in.commands[i]);
  }
  out +=
      "\nFiles: `runs.jsonl` (every epoch of every run: `train --metrics`' fields plus "
      "`config`, `label`, `repeat`), `runs.csv` (one row per run), `summary.csv` (one row per "
      "configuration), the plot data and scripts.\n";
  return out;
}

}  // namespace

std::string MarkdownReport(const ReportInput& in) {
  return Header(in) + Definitions(in) + ResultsTable(in) + TimeToAccuracy(in) + Optimum(in) +
         Profiles(in) + Recommendation(in) + Significance(in) + Failures(in) + PlotsSection(in) +
         Configurations(in);
}

}  // namespace parsgd::compare
