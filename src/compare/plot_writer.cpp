#include "plot_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace parsgd::compare {
namespace {

// A gnuplot single-quoted string ('' stands for one quote inside).
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string Num(double v) { return std::isnan(v) ? "NaN" : fmt::format("{:.9g}", v); }

// A script that applies `settings` and draws `plot` (a gnuplot plot command) into STEM.png, then
// into STEM.svg.
std::string Script(const std::string& stem, const std::string& comment, const std::string& settings,
                   const std::string& plot) {
  return comment + "# Draw: gnuplot " + stem + ".gp   (in this folder; writes " + stem +
         ".png and " + stem + ".svg)\n\n" + settings +
         "\n# PNG (cairo when this gnuplot has it), then SVG.\n"
         "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
         "  set terminal pngcairo size 1100,650\n"
         "} else {\n"
         "  set terminal png size 1100,650\n"
         "}\n"
         "set termoption noenhanced\n"
         "set output '" +
         stem + ".png'\n" + plot +
         "set terminal svg size 1100,650 dynamic\n"
         "set termoption noenhanced\n"
         "set output '" +
         stem +
         ".svg'\n"
         "replot\n"
         "unset output\n";
}

// One problem's objective data (objective.dat, or objective-K.dat when the grid has several
// problems): one block per configuration in `members` with a curve, in configuration order;
// their indices into `blocks`.
std::string ObjectiveData(const std::vector<Configuration>& configs, const Analysis& analysis,
                          const std::vector<std::size_t>& members, double optimum,
                          std::vector<std::size_t>& blocks) {
  std::string out =
      "# The mean curve of each configuration over its finished repeats; one block per "
      "configuration\n"
      "# (gnuplot: index 0, 1, ...). seconds: mean training seconds to the end of the epoch "
      "(NaN\n# without times: --deterministic). band: the lowest and highest run's objective "
      "(on a log\n# axis a band of the mean -+ std would reach below the best run).\n";
  out += std::isnan(optimum)
             ? "# suboptimality: none (no f*).\n"
             : fmt::format(
                   "# suboptimality: the objective's distance f - f* to f* = {} (mean, band low "
                   "and high;\n# NaN where it is 0: a log axis has no 0).\n",
                   Num(optimum));
  auto gap = [&](double v) { return v - optimum > 0 ? Num(v - optimum) : std::string("NaN"); };
  for (std::size_t i : members) {
    const ConfigResult& r = analysis.configs[i];
    if (r.curve.empty()) continue;
    if (!blocks.empty()) out += "\n\n";
    blocks.push_back(i);
    out += fmt::format(
        "# config {}: {}\n# epoch seconds objective std band_low band_high runs "
        "suboptimality suboptimality_low suboptimality_high\n",
        i + 1, configs[i].label);
    for (const CurvePoint& p : r.curve) {
      out += fmt::format(
          "{} {} {} {} {} {} {} {} {} {}\n", p.epoch, p.seconds.n > 0 ? Num(p.seconds.mean) : "NaN",
          Num(p.objective.mean), Num(p.objective.std), Num(p.objective.min), Num(p.objective.max),
          p.objective.n, gap(p.objective.mean), gap(p.objective.min), gap(p.objective.max));
    }
  }
  return out;
}

// One problem's objective plot, or with `optimum` (not NaN) its suboptimality plot: f - f* on the
// log axis, with lines at the relative levels. `name` is the problem's file name suffix ("" when
// the comparison has one problem, else "-K"), `title` its label, `target` its target objective
// (NaN: none).
std::string ObjectivePlot(const std::vector<Configuration>& configs, const Analysis& analysis,
                          const std::vector<std::size_t>& blocks, const std::string& name,
                          const std::string& title, double target, bool by_seconds,
                          double optimum = NAN) {
  const bool gap = !std::isnan(optimum);
  const std::string x = by_seconds ? "2" : "1";
  const std::string mean = gap ? "8" : "3", low = gap ? "9" : "5", high = gap ? "10" : "6";
  const std::string data = "objective" + name + ".dat";
  std::string body =
      "set datafile missing 'NaN'\n"
      "set logscale y\n"
      "# The data's y range (the bands, columns 5 and 6), not whole decades. gnuplot labels\n"
      "# a log axis at powers of ten only: within one decade (the usual case: the objective\n"
      "# barely moves after the first epochs) that is no label at all, so there the tics are\n"
      "# at a round linear step (1, 2 or 5 times a power of ten, at most six), and over up to\n"
      "# three decades at 1, 2 and 5 times each power of ten.\n"
      "set autoscale yfix\n"
      "stats '" +
      data + "' using " + low + ":" + high +
      " nooutput\n"
      "lo = STATS_min_x; hi = STATS_max_y\n"
      "if (lo > 0 && hi < 10 * lo) {\n"
      "  raw = (hi - lo) / 5; p = 10.0 ** floor(log10(raw))\n"
      "  step = p >= raw * (1 - 1e-9) ? p : 2 * p >= raw * (1 - 1e-9) ? 2 * p : \\\n"
      "         5 * p >= raw * (1 - 1e-9) ? 5 * p : 10 * p\n"
      "  set ytics ()\n"
      "  do for [k = ceil(lo / step - 1e-9) : floor(hi / step + 1e-9)] {\n"
      "    set ytics add (sprintf('%g', k * step) k * step)\n"
      "  }\n"
      "} else { if (lo > 0 && hi < 1000 * lo) {\n"
      "  set ytics ()\n"
      "  do for [e = floor(log10(lo)) : ceil(log10(hi))] {\n"
      "    do for [m in '1 2 5'] {\n"
      "      v = m * 10.0 ** e\n"
      "      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) {\n"
      "        set ytics add (sprintf('%g', v) v)\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "} }\n"
      "set grid\n"
      "set key outside right top\n"
      "set style fill transparent solid 0.15 noborder\n";
  body +=
      "set title " +
      Quoted((title.empty() ? "" : title + ": ") +
             (gap ? fmt::format("suboptimality f - f*, f* = {:.10g} (band: lowest to highest run)",
                                optimum)
                  : std::string("objective (mean over repeats, band: lowest to highest run)"))) +
      "\n";
  if (by_seconds) {
    body += "set xlabel 'training seconds (mean over repeats)'\n";
  } else {
    // Epochs are whole: tics at a whole step, about ten of them at most.
    int last = 1;
    for (const std::size_t i : blocks)
      last = std::max(last, analysis.configs[i].curve.back().epoch);
    body += fmt::format("set xlabel 'epoch'\nset xtics {}\nset mxtics 1\nset xrange [1:{}]\n",
                        std::max(1, (last + 9) / 10), std::max(2, last));
  }
  body += gap ? "set ylabel 'suboptimality f - f*'\n" : "set ylabel 'objective'\n";
  if (gap) {
    for (double level : kSuboptimalityLevels) {
      const double at = level * std::max(std::fabs(optimum), 1e-300);
      body += fmt::format(
          "if ({0} >= lo && {0} <= hi) {{\n"
          "  set arrow from graph 0, first {0} to graph 1, first {0} nohead dashtype 2 lw 1.5 "
          "lc 'dark-gray'\n"
          "  set label '{1:.0e} |f*|' at graph 0.01, first {0} offset 0, 0.6 tc 'dark-gray'\n"
          "}}\n",
          Num(at), level);
    }
  } else if (!std::isnan(target)) {
    body += fmt::format(
        "set arrow from graph 0, first {0} to graph 1, first {0} nohead dashtype 2 lc 'gray'\n"
        "set label 'target' at graph 0.01, first {0} offset 0, 0.6 tc 'gray'\n",
        Num(target));
  }
  std::string plot = "plot \\\n";
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::size_t i = blocks[k];
    const std::string file = k == 0 ? Quoted(data) : "''";
    plot += fmt::format(
        "  {} index {} using {}:{}:{} with filledcurves lt {} notitle, \\\n"
        "  '' index {} using {}:{} with linespoints lt {} pt 7 ps 0.5 title {}{}\n",
        file, k, x, low, high, k + 1, k, x, mean, k + 1, Quoted(configs[i].label),
        k + 1 < blocks.size() ? ", \\" : "");
  }
  const std::string stem = std::string(gap ? "suboptimality" : "objective") +
                           (by_seconds ? "_seconds" : "_epoch") + name;
  const std::string comment = fmt::format(
      "# {} vs {} for each configuration{}: the mean over finished repeats, with a band\n"
      "# from the lowest run to the highest. Data: {} (columns: 1 epoch, 2 seconds,\n"
      "# 3 objective, 4 std, 5 band low, 6 band high, 7 runs, 8-10 suboptimality, low, high).\n",
      gap ? "Suboptimality f - f*" : "Objective", by_seconds ? "training seconds" : "epoch",
      title.empty() ? "" : " of " + title, data);
  return Script(stem, comment, body, plot);
}

double Threads(const Configuration& c) {
  const std::string* t = ValueOf(c.point, "threads");
  double v = NAN;
  if (t != nullptr) std::from_chars(t->data(), t->data() + t->size(), v);
  return v;
}

// speedup.dat: one block per 1-thread baseline (its configuration without --threads), rows in
// ascending threads; `threads` gets every thread count above 1 that appears.
std::string SpeedupData(const std::vector<Configuration>& configs, const Analysis& analysis,
                        const std::vector<std::string>& varying, std::vector<std::string>& titles,
                        std::vector<bool>& has_time, std::set<double>& threads) {
  std::map<std::size_t, std::vector<std::size_t>> families;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto& b = analysis.configs[i].baseline;
    if (!b || std::isnan(Threads(configs[i]))) continue;
    if (families[*b].empty()) order.push_back(*b);
    families[*b].push_back(i);
  }
  std::erase_if(order, [&](std::size_t b) { return families[b].size() < 2; });
  std::string out =
      "# Speedup over the 1-thread run of the same configuration; one block per configuration\n"
      "# without --threads (gnuplot: index 0, 1, ...). NaN: not available (no times, or a run\n"
      "# that did not reach the target).\n";
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto members = families[order[k]];
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return Threads(configs[a]) < Threads(configs[b]);
    });
    const std::string title = Label(Without(Shown(configs[order[k]]), "threads"), varying);
    titles.push_back(title);
    has_time.push_back(std::any_of(members.begin(), members.end(), [&](std::size_t i) {
      return i != order[k] && analysis.configs[i].time_speedup.has_value();
    }));
    if (k > 0) out += "\n\n";
    out +=
        fmt::format("# {}\n# threads speedup_samples_per_second speedup_time_to_target\n", title);
    for (std::size_t i : members) {
      const ConfigResult& r = analysis.configs[i];
      const double t = Threads(configs[i]);
      if (t > 1) threads.insert(t);
      out += fmt::format("{} {} {}\n", Num(t), Num(r.throughput_speedup.value_or(NAN)),
                         Num(r.time_speedup.value_or(NAN)));
    }
  }
  return out;
}

// With one thread count besides 1 (a 2-core machine's grid, say), each configuration's line would
// be a single segment and many of them a tangle: bars instead, one pair per configuration, the
// samples/s speedup and the time-to-target speedup, against lines at 1 (no gain) and at the
// ideal. speedup.dat's second row of each block is the one above 1 thread.
std::string SpeedupBars(const std::vector<std::string>& titles, const std::vector<bool>& has_time,
                        double threads) {
  std::size_t longest = 0;
  std::string tics;
  for (std::size_t k = 0; k < titles.size(); ++k) {
    longest = std::max(longest, titles[k].size());
    tics += fmt::format("{}{} {}", k == 0 ? "" : ", ", Quoted(titles[k]), k);
  }
  const std::string ideal = Num(threads);
  const std::string settings = fmt::format(
      "set datafile missing 'NaN'\n"
      "set grid ytics\n"
      "set key outside right top\n"
      "set style fill solid 0.7 border -1\n"
      "set boxwidth 0.35\n"
      "set xrange [-0.6:{}]\n"
      "set yrange [0:*]\n"
      "set offsets 0, 0, graph 0.1, 0\n"
      "set xtics ({}) rotate by 30 right\n"
      "set bmargin {}\n"
      "set ylabel 'speedup over 1 thread'\n"
      "set title 'speedup at {} threads over 1 (filled: samples/s; open: time to target)'\n",
      Num(titles.size() - 0.4), tics, std::min<std::size_t>(25, 3 + longest / 3), ideal, ideal);
  std::string plot = fmt::format(
      "plot {} with lines dashtype 2 lw 2 lc 'dark-green' title 'ideal ({}x)', \\\n"
      "  1 with lines lc 'black' title 'no gain'",
      ideal, ideal);
  bool time_titled = false;
  for (std::size_t k = 0; k < titles.size(); ++k) {
    plot += fmt::format(
        ", \\\n  'speedup.dat' index {} every ::1::1 using ({} - 0.18):2 with boxes lt 1 {}", k, k,
        k == 0 ? "title 'samples/s'" : "notitle");
    if (has_time[k]) {
      plot += fmt::format(
          ", \\\n  'speedup.dat' index {} every ::1::1 using ({} + 0.18):3 with boxes lt 2 "
          "fill empty {}",
          k, k, time_titled ? "notitle" : "title 'time to target'");
      time_titled = true;
    }
  }
  return Script("speedup",
                "# Speedup at " + ideal +
                    " threads over the 1-thread run of the same configuration, one pair of bars\n"
                    "# per configuration. Data: speedup.dat (columns: 1 threads, 2 samples/s "
                    "speedup, 3\n# time-to-target speedup; the second row of each block).\n",
                settings, plot + "\n");
}

std::string SpeedupPlot(const std::vector<std::string>& titles, const std::vector<bool>& has_time) {
  const std::string settings =
      "set datafile missing 'NaN'\n"
      "set grid\n"
      "set key left top\n"
      "set xtics 1\n"
      "set xlabel 'threads'\n"
      "set ylabel 'speedup over 1 thread'\n"
      "set title 'speedup (solid: samples/s; dashed: time to target)'\n";
  std::string plot = "plot x with lines dashtype 3 lc 'gray' title 'ideal'";
  for (std::size_t k = 0; k < titles.size(); ++k) {
    plot +=
        fmt::format(", \\\n  'speedup.dat' index {} using 1:2 with linespoints lt {} pt 7 title {}",
                    k, k + 1, Quoted(titles[k]));
    if (has_time[k]) {
      plot += fmt::format(
          ", \\\n  'speedup.dat' index {} using 1:3 with linespoints lt {} pt 6 dashtype 2 "
          "notitle",
          k, k + 1);
    }
  }
  return Script("speedup",
                "# Speedup over the 1-thread run of the same configuration, against threads.\n"
                "# Data: speedup.dat (columns: 1 threads, 2 samples/s speedup, 3 time-to-target "
                "speedup).\n",
                settings, plot + "\n");
}

// A profile's steps (Profile::Steps), one block per method.
std::string ProfileData(const Profile& p) {
  std::string out = fmt::format(
      "# Performance profile by {} to a relative suboptimality of {:g}, over {} problems: one\n"
      "# block per method (gnuplot: index 0, 1, ...); columns: tau, the share of problems the\n"
      "# method solved within tau times the best method's {}.\n",
      p.cost_name(), p.level, p.problems.size(), p.cost_name());
  for (std::size_t k = 0; k < p.methods.size(); ++k) {
    const Profile::Method& m = p.methods[k];
    out += fmt::format("{}# {}\n# tau share\n", k == 0 ? "" : "\n\n", m.label);
    for (const auto& [tau, share] : p.Steps(k)) out += fmt::format("{} {}\n", Num(tau), Num(share));
  }
  return out;
}

std::string ProfilePlot(const Profile& p, const std::string& stem, const std::string& data) {
  const std::string settings = fmt::format(
      "set grid\n"
      "set key right bottom\n"
      "set logscale x 2\n"
      "set yrange [0:1.05]\n"
      "set xlabel 'tau (times the best method''s {0} on each problem, log scale)'\n"
      "set ylabel 'share of problems solved within tau'\n"
      "set title 'performance profile: {0} to a relative suboptimality of {1:g} ({2} problems)'\n",
      p.cost_name(), p.level, p.problems.size());
  std::string plot = "plot \\\n";
  for (std::size_t k = 0; k < p.methods.size(); ++k) {
    plot += fmt::format("  {} index {} using 1:2 with steps lt {} lw 2 title {}{}\n",
                        k == 0 ? Quoted(data) : "''", k, k + 1, Quoted(p.methods[k].label),
                        k + 1 < p.methods.size() ? ", \\" : "");
  }
  return Script(stem,
                fmt::format("# Dolan-More performance profile by {}. Data: {} (columns: 1 tau, 2 "
                            "share of problems).\n",
                            p.cost_name(), data),
                settings, plot);
}

}  // namespace

Plots MakePlots(const std::vector<Configuration>& configs, const Analysis& analysis,
                const std::vector<std::string>& varying, int jobs) {
  Plots plots;
  // Configurations on different problems (another --train, --model, --l2) minimise different
  // objectives: one set of objective plots per problem, each with its own target and y range.
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (analysis.configs[i].curve.empty()) continue;
    if (std::find(problems.begin(), problems.end(), configs[i].problem) == problems.end()) {
      problems.push_back(configs[i].problem);
    }
  }
  if (problems.empty()) {
    plots.notes.push_back("no objective plots: no run finished");
    return plots;
  }
  bool untimed = false;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    std::vector<std::size_t> members, blocks;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].problem == problems[k]) members.push_back(i);
    }
    const std::string name = problems.size() == 1 ? "" : fmt::format("-{}", k + 1);
    const std::string title = problems.size() == 1 ? "" : problems[k];
    double target = NAN, optimum = NAN;
    for (const ProblemTarget& t : analysis.targets) {
      if (t.problem != problems[k]) continue;
      target = t.target;
      optimum = t.optimum;
    }
    plots.files.push_back(
        {"objective" + name + ".dat", ObjectiveData(configs, analysis, members, optimum, blocks)});
    const bool timed = std::any_of(blocks.begin(), blocks.end(), [&](std::size_t i) {
      return analysis.configs[i].curve.front().seconds.n > 0;
    });
    untimed = untimed || !timed;
    // The objective, then (with f*) the suboptimality; each against epochs, and seconds if timed.
    for (const bool gap : {false, true}) {
      if (gap && std::isnan(optimum)) continue;
      for (const bool by_seconds : {false, true}) {
        if (by_seconds && !timed) continue;
        const std::string script = std::string(gap ? "suboptimality" : "objective") +
                                   (by_seconds ? "_seconds" : "_epoch") + name + ".gp";
        plots.files.push_back({script, ObjectivePlot(configs, analysis, blocks, name, title, target,
                                                     by_seconds, gap ? optimum : NAN)});
        plots.scripts.push_back(script);
      }
    }
  }
  if (untimed) {
    plots.notes.push_back(
        jobs > 1 ? fmt::format("no objective-vs-seconds plot: the runs shared the machine "
                               "(--jobs {}), so no time is a run's alone; run with --jobs 1 "
                               "for times",
                               jobs)
                 : "no objective-vs-seconds plot: the runs carry no times (--deterministic)");
  }
  for (const Profile& p : PerformanceProfiles(configs, analysis)) {
    const std::string stem = std::string("profile_") + p.cost_name();
    plots.files.push_back({stem + ".dat", ProfileData(p)});
    plots.files.push_back({stem + ".gp", ProfilePlot(p, stem, stem + ".dat")});
    plots.scripts.push_back(stem + ".gp");
  }
  std::vector<std::string> titles;
  std::vector<bool> has_time;
  std::set<double> threads;
  const std::string speedup = SpeedupData(configs, analysis, varying, titles, has_time, threads);
  if (!titles.empty()) {
    plots.files.push_back({"speedup.dat", speedup});
    plots.files.push_back({"speedup.gp", threads.size() == 1
                                             ? SpeedupBars(titles, has_time, *threads.begin())
                                             : SpeedupPlot(titles, has_time)});
    plots.scripts.push_back("speedup.gp");
  } else {
    plots.notes.push_back(
        "no speedup plot: the grid has no configuration run at --threads 1 and at more threads");
  }
  return plots;
}

}  // namespace parsgd::compare
