// The analysis of `parsgd compare` on hand-made runs: exact means, targets, times to target,
// speedups, which pairs are tested, and failed runs left out of the statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>

#include "analysis.hpp"
#include "csv_writer.hpp"
#include "gnuplot.hpp"
#include "plot_writer.hpp"
#include "test_support.hpp"

namespace parsgd::compare {
namespace {

Configuration Config(const std::string& scheme, const std::string& threads) {
  Configuration c;
  c.point = {{"scheme", scheme}, {"threads", threads}};
  c.label = "scheme=" + scheme + " threads=" + threads;
  c.problem = "all runs";
  return c;
}

// A run of two epochs: objective 1 after the first, `final` after the second; each epoch takes
// `seconds` (nullopt: untimed) and makes 100 updates.
RunRecord MakeRun(std::size_t config, int repeat, double final, std::optional<double> seconds) {
  RunRecord r;
  r.config = config;
  r.repeat = repeat;
  r.seed = 1 + repeat;
  r.epochs = {{1, 1.0, std::nullopt, seconds, 100}, {2, final, std::nullopt, seconds, 100}};
  return r;
}

class CompareAnalysis : public ::testing::Test {
 protected:
  // #0 hogwild at 1 thread, #1 hogwild at 2 threads (twice as fast), #2 sync at 1 thread with one
  // failed run.
  std::vector<Configuration> configs_ = {Config("hogwild", "1"), Config("hogwild", "2"),
                                         Config("sync", "1")};
  std::vector<RunRecord> runs_ = {
      MakeRun(0, 0, 0.5, 2.0),   MakeRun(0, 1, 0.25, 2.0),  MakeRun(0, 2, 0.375, 2.0),
      MakeRun(1, 0, 0.5, 1.0),   MakeRun(1, 1, 0.25, 1.0),  MakeRun(1, 2, 0.375, 1.0),
      MakeRun(2, 0, 0.125, 2.0), MakeRun(2, 1, 0.125, 2.0), MakeRun(2, 2, 0.375, 2.0),
  };
  std::vector<std::string> varying_ = {"scheme", "threads"};
  void SetUp() override {
    runs_[7].epochs.resize(1);
    runs_[7].error = "epoch 2: the run diverged";
  }
};

TEST_F(CompareAnalysis, MeansAndSpreadsOverFinishedRuns) {
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  const ConfigResult& c = a.configs[0];
  EXPECT_EQ(c.runs, 3);
  EXPECT_EQ(c.failed, 0);
  EXPECT_EQ(c.objective.n, 3);
  EXPECT_EQ(c.objective.mean, 0.375);
  EXPECT_DOUBLE_EQ(c.objective.std, 0.125);
  EXPECT_EQ(c.samples_per_second.mean, 50.0);  // 200 updates in 4 seconds
  EXPECT_EQ(c.samples_per_second.std, 0.0);
  EXPECT_EQ(c.test_accuracy.n, 0);
  // The failed run is counted, its message kept, and left out of the statistics.
  const ConfigResult& s = a.configs[2];
  EXPECT_EQ(s.runs, 3);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.error, "epoch 2: the run diverged");
  EXPECT_EQ(s.objective.n, 2);
  EXPECT_EQ(s.objective.mean, 0.25);
  EXPECT_DOUBLE_EQ(s.objective.std, 0.125 * std::sqrt(2.0));
}

// f*: the reference solver's where it ran (certified with a gap), lowered to a run that went below
// it; the runs' lowest where none ran; none when asked for none.
TEST_F(CompareAnalysis, TheOptimumComesFromTheSolverOrTheRuns) {
  Reference dual;
  dual.problem = "all runs";
  dual.solver = "dual-cd";
  dual.objective = 0.1;
  dual.gap = 1e-12;
  Analysis a = Analyze(configs_, runs_, varying_, {.references = {dual}});
  EXPECT_EQ(a.targets[0].optimum, 0.1);
  EXPECT_EQ(a.targets[0].source, OptimumSource::kCertified);
  EXPECT_FALSE(a.targets[0].runs_below_solver);
  // Relative suboptimality (f - 0.1) / 0.1 of hogwild's final objectives 0.5, 0.25, 0.375.
  const ConfigResult& h = a.configs[0];
  EXPECT_EQ(h.suboptimality.n, 3);
  EXPECT_DOUBLE_EQ(h.suboptimality.mean, (4.0 + 1.5 + 2.75) / 3);
  ASSERT_EQ(h.levels.size(), 3u);
  EXPECT_EQ(h.levels[0].level, 1e-2);
  EXPECT_EQ(h.levels[0].reached, 0);  // none came within 0.001 of 0.1
  // Without a certificate, a solver above a run gives way to the run.
  Reference cd = dual;
  cd.solver = "cd";
  cd.gap.reset();
  cd.objective = 0.2;
  a = Analyze(configs_, runs_, varying_, {.references = {cd}});
  EXPECT_EQ(a.targets[0].optimum, 0.125);
  EXPECT_EQ(a.targets[0].source, OptimumSource::kSolver);
  EXPECT_TRUE(a.targets[0].runs_below_solver);
  // sync's finished runs ended at 0.125 and 0.375: one within 1e-2 (indeed 0) of f*, at epoch 2.
  const ConfigResult& s = a.configs[2];
  EXPECT_EQ(s.levels[0].reached, 1);
  EXPECT_EQ(s.levels[0].epochs.mean, 2.0);
  EXPECT_EQ(s.levels[0].seconds.mean, 4.0);
  EXPECT_EQ(s.levels[2].reached, 1);
  // No solver: the runs' lowest epoch.
  Reference none;
  none.problem = "all runs";
  none.why_none = "no solver certifies model mlp";
  a = Analyze(configs_, runs_, varying_, {.references = {none}});
  EXPECT_EQ(a.targets[0].optimum, 0.125);
  EXPECT_EQ(a.targets[0].source, OptimumSource::kRuns);
  a = Analyze(configs_, runs_, varying_, {.optimum = false});
  EXPECT_TRUE(std::isnan(a.targets[0].optimum));
  EXPECT_EQ(a.configs[0].suboptimality.n, 0);
  EXPECT_TRUE(a.configs[0].levels.empty());
}

TEST_F(CompareAnalysis, DefaultTargetIsTheBestFinalObjectivePlusOnePercent) {
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  ASSERT_EQ(a.targets.size(), 1u);
  EXPECT_FALSE(a.targets[0].given);
  EXPECT_EQ(a.targets[0].best, 0.125);
  EXPECT_EQ(a.targets[0].target, 0.125 + 0.01 * 0.125);
  EXPECT_EQ(a.configs[2].reached, 1);  // only the run that ended at 0.125
  EXPECT_EQ(a.configs[2].epochs_to_target.mean, 2.0);
  EXPECT_EQ(a.configs[2].seconds_to_target.mean, 4.0);
  EXPECT_EQ(a.configs[0].reached, 0);
}

TEST_F(CompareAnalysis, GivenTargetAndSpeedupsOverTheOneThreadRun) {
  const Analysis a = Analyze(configs_, runs_, varying_, {.target = 0.5});
  EXPECT_TRUE(a.targets[0].given);
  const ConfigResult& one = a.configs[0];
  const ConfigResult& two = a.configs[1];
  EXPECT_EQ(one.reached, 3);
  EXPECT_EQ(one.epochs_to_target.mean, 2.0);
  EXPECT_EQ(one.seconds_to_target.mean, 4.0);
  EXPECT_EQ(two.seconds_to_target.mean, 2.0);
  ASSERT_TRUE(two.baseline.has_value());
  EXPECT_EQ(*two.baseline, 0u);
  EXPECT_EQ(two.throughput_speedup, 2.0);
  EXPECT_EQ(two.time_speedup, 2.0);
  EXPECT_EQ(one.throughput_speedup, 1.0);  // its own baseline
  // sync has no configuration on more threads: no speedup to show (not a 1x).
  EXPECT_FALSE(a.configs[2].baseline.has_value());
  EXPECT_FALSE(a.configs[2].throughput_speedup.has_value());
  EXPECT_FALSE(a.configs[2].time_speedup.has_value());
}

// Test accuracies per epoch: hogwild at 1 thread reaches 0.80 after epoch 2 (4 s), at 2 threads
// after epoch 2 (2 s, three runs); sync ends at 0.84, and the default target is 0.84 - 0.005.
TEST_F(CompareAnalysis, TimeToATargetTestAccuracyAndItsSpeedup) {
  for (RunRecord& r : runs_) {
    const double last = r.config == 2 ? 0.84 : 0.80;
    r.epochs[0].test_accuracy = 0.70;
    if (r.epochs.size() > 1) r.epochs[1].test_accuracy = last;
  }
  const Analysis given = Analyze(configs_, runs_, varying_, {.target_accuracy = 0.80});
  EXPECT_TRUE(given.targets[0].accuracy_given);
  const ConfigResult& one = given.configs[0];
  const ConfigResult& two = given.configs[1];
  EXPECT_EQ(one.reached_accuracy, 3);
  EXPECT_EQ(one.epochs_to_accuracy.mean, 2.0);
  EXPECT_EQ(one.seconds_to_accuracy.mean, 4.0);
  EXPECT_EQ(two.seconds_to_accuracy.mean, 2.0);
  EXPECT_EQ(two.accuracy_time_speedup, 2.0);
  EXPECT_EQ(given.configs[2].reached_accuracy, 2);  // its failed run is not counted
  const Analysis automatic = Analyze(configs_, runs_, varying_, {});
  EXPECT_FALSE(automatic.targets[0].accuracy_given);
  EXPECT_EQ(automatic.targets[0].accuracy_best, 0.84);
  EXPECT_EQ(automatic.targets[0].accuracy_target, 0.84 - kAccuracyMargin);
  EXPECT_EQ(automatic.configs[0].reached_accuracy, 0);
  EXPECT_FALSE(automatic.configs[1].accuracy_time_speedup.has_value());
  EXPECT_EQ(automatic.configs[2].reached_accuracy, 2);
  const std::string csv = SummaryCsv(configs_, given, varying_);
  EXPECT_NE(csv.find(",accuracy_target,reached_accuracy,epochs_to_accuracy_mean,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",0.8,3,2,0,4,0,1,"), std::string::npos) << csv;  // hogwild at 1 thread
  // Without test accuracies there is no target and nothing to reach.
  const Analysis none = Analyze(configs_, runs_ = {MakeRun(0, 0, 0.5, 1.0)}, varying_, {});
  EXPECT_TRUE(std::isnan(none.targets[0].accuracy_target));
  EXPECT_EQ(none.configs[0].reached_accuracy, 0);
}

TEST_F(CompareAnalysis, PairsDifferingInOneFlagAreTested) {
  const Analysis a = Analyze(configs_, runs_, varying_, {.target = 0.5});
  ASSERT_EQ(a.comparisons.size(), 2u);
  const Comparison& scheme = a.comparisons[0];  // hogwild vs sync at 1 thread
  EXPECT_EQ(scheme.flag, "scheme");
  EXPECT_EQ(scheme.a, 0u);
  EXPECT_EQ(scheme.b, 2u);
  ASSERT_TRUE(scheme.objective.has_value());
  const double t = (0.375 - 0.25) / std::sqrt(0.125 * 0.125 / 3 + 2 * 0.125 * 0.125 / 2);
  EXPECT_NEAR(scheme.objective->t, t, 1e-14);
  ASSERT_TRUE(scheme.seconds_to_target.has_value());  // the finished sync runs reached it
  EXPECT_EQ(scheme.seconds_to_target->p, 1.0);        // in 4 s, as every hogwild run
  const Comparison& threads = a.comparisons[1];       // hogwild at 1 vs 2 threads: same objectives
  EXPECT_EQ(threads.flag, "threads");
  EXPECT_EQ(threads.objective->t, 0.0);
  EXPECT_EQ(threads.objective->p, 1.0);
  ASSERT_TRUE(threads.seconds_to_target.has_value());
  EXPECT_EQ(threads.seconds_to_target->p, 0.0);  // 4 s against 2 s in every repeat
  EXPECT_FALSE(threads.test_accuracy.has_value());
}

TEST_F(CompareAnalysis, OtherProblemsAreComparedByTestAccuracyOnly) {
  configs_[2].problem = "model=hinge";  // another objective
  for (RunRecord& r : runs_) r.epochs.back().test_accuracy = 0.5 + 0.125 * r.repeat;
  const Analysis a = Analyze(configs_, runs_, varying_, {.target = 0.5});
  ASSERT_EQ(a.targets.size(), 2u);
  const Comparison& scheme = a.comparisons[0];
  EXPECT_FALSE(scheme.objective.has_value());
  EXPECT_FALSE(scheme.seconds_to_target.has_value());
  ASSERT_TRUE(scheme.test_accuracy.has_value());
  EXPECT_TRUE(a.comparisons[1].objective.has_value());  // threads: the same problem
}

TEST_F(CompareAnalysis, CurvesAreMeansPerEpoch) {
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  const auto& curve = a.configs[0].curve;
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[0].objective.mean, 1.0);
  EXPECT_EQ(curve[0].objective.std, 0.0);
  EXPECT_EQ(curve[1].objective.mean, 0.375);
  EXPECT_EQ(curve[1].seconds.mean, 4.0);
}

TEST_F(CompareAnalysis, UntimedRunsHaveEpochsToTargetButNoSeconds) {
  for (RunRecord& r : runs_) {
    for (EpochRecord& e : r.epochs) e.train_seconds.reset();
  }
  const Analysis a = Analyze(configs_, runs_, varying_, {.target = 0.5});
  EXPECT_EQ(a.configs[0].reached, 3);
  EXPECT_EQ(a.configs[0].epochs_to_target.mean, 2.0);
  EXPECT_EQ(a.configs[0].seconds_to_target.n, 0);
  EXPECT_EQ(a.configs[0].samples_per_second.n, 0);
  EXPECT_FALSE(a.configs[1].throughput_speedup.has_value());
  EXPECT_FALSE(a.configs[1].time_speedup.has_value());
  const Plots plots = MakePlots(configs_, a, varying_);
  for (const PlotFile& f : plots.files) EXPECT_NE(f.name, "objective_seconds.gp");
}

// The text of plot file `name`, or "" when there is none.
std::string PlotText(const Plots& plots, const std::string& name) {
  for (const PlotFile& f : plots.files) {
    if (f.name == name) return f.contents;
  }
  return "";
}

// Different problems minimise different objectives: each gets its own data, plots and target.
TEST_F(CompareAnalysis, EachProblemGetsItsOwnObjectivePlots) {
  configs_[2].problem = "train=b.bin";  // sync on another data set; the best finished run: 0.125
  const Plots plots = MakePlots(configs_, Analyze(configs_, runs_, varying_, {}), varying_);
  ASSERT_EQ(plots.scripts,
            (std::vector<std::string>{
                "objective_epoch-1.gp", "objective_seconds-1.gp", "suboptimality_epoch-1.gp",
                "suboptimality_seconds-1.gp", "objective_epoch-2.gp", "objective_seconds-2.gp",
                "suboptimality_epoch-2.gp", "suboptimality_seconds-2.gp", "speedup.gp"}));
  const std::string first = PlotText(plots, "objective-1.dat"),
                    second = PlotText(plots, "objective-2.dat");
  EXPECT_NE(first.find("# config 1:"), std::string::npos) << first;
  EXPECT_NE(first.find("# config 2:"), std::string::npos) << first;
  EXPECT_EQ(first.find("# config 3:"), std::string::npos) << first;
  EXPECT_NE(second.find("# config 3:"), std::string::npos) << second;
  EXPECT_EQ(PlotText(plots, "objective.dat"), "");
  for (const char* script : {"objective_epoch-1.gp", "objective_seconds-1.gp"}) {
    const std::string gp = PlotText(plots, script);
    EXPECT_NE(gp.find("stats 'objective-1.dat'"), std::string::npos) << gp;
    EXPECT_NE(gp.find("plot \\\n  'objective-1.dat' index 0"), std::string::npos) << gp;
    EXPECT_NE(gp.find("first 0.2525 "), std::string::npos) << gp;  // 0.25 + 1%
    EXPECT_NE(gp.find("'all runs: objective"), std::string::npos) << gp;
  }
  const std::string gp = PlotText(plots, "objective_epoch-2.gp");
  EXPECT_NE(gp.find("'objective-2.dat' index 0"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("index 1"), std::string::npos) << gp;         // one configuration
  EXPECT_NE(gp.find("first 0.12625 "), std::string::npos) << gp;  // 0.125 + 1%
  EXPECT_NE(gp.find("'train=b.bin: objective"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set output 'objective_epoch-2.svg'"), std::string::npos) << gp;
}

TEST_F(CompareAnalysis, SummaryCsvHasOneRowPerConfigurationWithItsStatus) {
  configs_.push_back(Config("striped", "1"));
  configs_.back().impossible = "not for this model";
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  const std::string csv = SummaryCsv(configs_, a, varying_);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_EQ(csv.find("config,label,scheme,threads,status,runs,failed,objective_mean"), 0u);
  EXPECT_NE(csv.find("\n1,scheme=hogwild threads=1,hogwild,1,ok,3,0,0.375,0.125,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",partial,3,1,0.25,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",impossible,0,0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("not for this model"), std::string::npos) << csv;
}

TEST_F(CompareAnalysis, PlotDataHasOneBlockPerConfigurationAndScriptsNameThem) {
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  const Plots plots = MakePlots(configs_, a, varying_);
  ASSERT_EQ(plots.scripts, (std::vector<std::string>{"objective_epoch.gp", "objective_seconds.gp",
                                                     "suboptimality_epoch.gp",
                                                     "suboptimality_seconds.gp", "speedup.gp"}));
  for (const PlotFile& f : plots.files) {
    if (f.name == "objective.dat") {
      EXPECT_NE(f.contents.find("# config 3: scheme=sync threads=1\n"), std::string::npos);
      // f* = 0.125, the lowest objective of any run: suboptimality 0 is NaN on the log axis.
      EXPECT_NE(f.contents.find("\n2 4 0.375 0.125 0.25 0.5 3 0.25 0.125 0.375\n"),
                std::string::npos)
          << f.contents;
      // The band is the lowest and highest run (0.125, 0.375), not mean -+ std (0.073, 0.427).
      EXPECT_NE(f.contents.find("\n2 4 0.25 0.176776695 0.125 0.375 2 0.125 NaN 0.25\n"),
                std::string::npos)
          << f.contents;
    }
    if (f.name == "objective_epoch.gp") {
      EXPECT_NE(f.contents.find("index 2 using 1:3"), std::string::npos);
      EXPECT_NE(f.contents.find("set logscale y"), std::string::npos);
      EXPECT_NE(f.contents.find("set output 'objective_epoch.svg'"), std::string::npos);
      EXPECT_NE(f.contents.find("set xtics 1\n"), std::string::npos);  // whole epochs
    }
    if (f.name == "speedup.dat") {
      EXPECT_NE(f.contents.find("# scheme=hogwild\n"), std::string::npos) << f.contents;
      EXPECT_NE(f.contents.find("\n2 2 NaN\n"), std::string::npos) << f.contents;
    }
  }
}

// What gnuplot draws for `script` of `plots` (reading `data`) on its text terminal, or nullopt
// when gnuplot is not installed.
std::optional<std::string> DrawnText(const Plots& plots, const std::string& script,
                                     const std::string& data) {
  const auto gnuplot = FindProgram("gnuplot");
  if (!gnuplot) return std::nullopt;
  // The script's settings (up to its PNG terminal), then its plot command (up to the SVG one).
  const std::string gp = PlotText(plots, script);
  const auto png = gp.find("# PNG");
  const auto plot = gp.find("\nplot ", png), svg = gp.find("set terminal svg", plot);
  if (png == std::string::npos || plot == std::string::npos || svg == std::string::npos) {
    ADD_FAILURE() << "no plot command in\n" << gp;
    return std::string();
  }
  testing::TempDir dir;
  dir.Write(data, PlotText(plots, data));
  dir.Write("text.gp", gp.substr(0, png) + "set terminal dumb size 70,32\nset output 'plot.txt'\n" +
                           gp.substr(plot + 1, svg - plot - 1));
  const std::string command =
      "cd '" + dir.path().string() + "' && '" + *gnuplot + "' text.gp 2>gnuplot.err";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << testing::ReadFile(dir.File("gnuplot.err"));
    return std::string();
  }
  return testing::ReadFile(dir.File("plot.txt"));
}

// The y tic labels gnuplot draws for the objective-vs-epoch script of `plots` (the first word of
// each line of its text terminal), or nullopt when gnuplot is not installed.
std::optional<std::set<std::string>> DrawnTicLabels(const Plots& plots) {
  const auto text = DrawnText(plots, "objective_epoch.gp", "objective.dat");
  if (!text) return std::nullopt;
  std::set<std::string> labels;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    if (words >> first) labels.insert(first);
  }
  return labels;
}

// gnuplot labels a log axis at powers of ten only: the objective scripts compute labelled tics
// from the data, linear ones within a decade, 1-2-5 ones over more. Drawn on gnuplot's text
// terminal when gnuplot is installed (CI has it).
TEST_F(CompareAnalysis, ObjectivePlotsLabelTheirLogAxis) {
  // Objective 1 after epoch 1, then 0.5, 0.625, 0.75 (0.625 +- 0.125): drawn from 0.5 to 1.
  std::vector<RunRecord> narrow;
  for (int r = 0; r < 3; ++r) narrow.push_back(MakeRun(0, r, 0.5 + 0.125 * r, 1.0));
  const std::vector<Configuration> one = {configs_[0]};
  const Plots within = MakePlots(one, Analyze(one, narrow, varying_, {}), varying_);
  ASSERT_NE(PlotText(within, "objective_epoch.gp").find("set autoscale yfix"), std::string::npos);
  // Runs ending at 0.05, 0.5 and 0.9: the band from the lowest run to 1, more than a decade.
  std::vector<RunRecord> spread;
  for (int r = 0; r < 3; ++r) spread.push_back(MakeRun(0, r, r == 0 ? 0.05 : 0.4 * r + 0.1, 1.0));
  const Plots across = MakePlots(one, Analyze(one, spread, varying_, {}), varying_);

  const auto labels = DrawnTicLabels(within);
  if (!labels) GTEST_SKIP() << "gnuplot is not installed";
  for (const char* tic : {"0.5", "0.6", "0.7", "0.8", "0.9"}) {
    EXPECT_TRUE(labels->contains(tic)) << tic;
  }
  const auto wide = DrawnTicLabels(across);
  ASSERT_TRUE(wide);
  for (const char* tic : {"0.1", "0.2", "0.5"}) EXPECT_TRUE(wide->contains(tic)) << tic;
  EXPECT_FALSE(wide->contains("0.3"));
}

// One thread count besides 1: a pair of bars per configuration (a line per configuration would
// be one segment each); more thread counts: lines against threads. Both drawn by gnuplot.
TEST_F(CompareAnalysis, SpeedupIsBarsForOneThreadCountAndLinesForMore) {
  // Target 0.5: every run reaches it, so both speedups exist (2x each).
  const Plots bars =
      MakePlots(configs_, Analyze(configs_, runs_, varying_, {.target = 0.5}), varying_);
  const std::string gp = PlotText(bars, "speedup.gp");
  EXPECT_NE(gp.find("'speedup.dat' index 0 every ::1::1 using (0 - 0.18):2 with boxes"),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("using (0 + 0.18):3 with boxes"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set xtics ('scheme=hogwild' 0) rotate"), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'ideal (2x)'"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("linespoints"), std::string::npos) << gp;

  // A third thread count: hogwild at 4 threads, three times as fast as at 1.
  configs_.push_back(Config("hogwild", "4"));
  for (int r = 0; r < 3; ++r) runs_.push_back(MakeRun(3, r, 0.375, 2.0 / 3));
  const Plots lines =
      MakePlots(configs_, Analyze(configs_, runs_, varying_, {.target = 0.5}), varying_);
  const std::string line_gp = PlotText(lines, "speedup.gp");
  EXPECT_NE(line_gp.find("'speedup.dat' index 0 using 1:2 with linespoints"), std::string::npos)
      << line_gp;
  EXPECT_EQ(line_gp.find("with boxes"), std::string::npos) << line_gp;

  const auto drawn = DrawnText(bars, "speedup.gp", "speedup.dat");
  if (!drawn) GTEST_SKIP() << "gnuplot is not installed";
  EXPECT_NE(drawn->find("ideal (2x)"), std::string::npos) << *drawn;
  EXPECT_NE(drawn->find("time to target"), std::string::npos) << *drawn;
  const auto drawn_lines = DrawnText(lines, "speedup.gp", "speedup.dat");
  ASSERT_TRUE(drawn_lines);
  EXPECT_NE(drawn_lines->find("scheme=hogwild"), std::string::npos) << *drawn_lines;
}

}  // namespace
}  // namespace parsgd::compare
