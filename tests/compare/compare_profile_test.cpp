// Dolan-More performance profiles of `parsgd compare` on hand-made runs over two problems: the
// cost ratios, the shares rho(tau), the plot data, and when there is no profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "plot_writer.hpp"
#include "profile.hpp"

namespace parsgd::compare {
namespace {

Configuration Config(const std::string& problem, const std::string& method) {
  Configuration c;
  c.point = {{"train", problem}, {"scheme", method}};
  c.label = "train=" + problem + " scheme=" + method;
  c.problem = "train=" + problem;
  c.method = "scheme=" + method;
  return c;
}

// Two epochs with objectives `first` and `second`, each taking `seconds`.
RunRecord TwoEpochs(std::size_t config, int repeat, double first, double second, double seconds) {
  RunRecord r;
  r.config = config;
  r.repeat = repeat;
  r.epochs = {{1, first, std::nullopt, seconds, 10}, {2, second, std::nullopt, seconds, 10}};
  return r;
}

// Problem p1 (f* = 0.5, the runs' lowest): a within 1e-3 of it after epoch 1 (1 s), b after epoch 2
// (4 s): ratios 1 and 4. Problem p2 (f* = 0.3): a never (0.9), b after epoch 2 (2 s).
class CompareProfile : public ::testing::Test {
 protected:
  std::vector<Configuration> configs_ = {Config("p1", "a"), Config("p1", "b"), Config("p2", "a"),
                                         Config("p2", "b")};
  std::vector<RunRecord> runs_ = {TwoEpochs(0, 0, 0.5, 0.5, 1), TwoEpochs(0, 1, 0.5, 0.5, 1),
                                  TwoEpochs(1, 0, 1.0, 0.5, 2), TwoEpochs(1, 1, 1.0, 0.5, 2),
                                  TwoEpochs(2, 0, 1.0, 0.9, 1), TwoEpochs(2, 1, 1.0, 0.9, 1),
                                  TwoEpochs(3, 0, 1.0, 0.3, 1), TwoEpochs(3, 1, 1.0, 0.3, 1)};
  std::vector<std::string> varying_ = {"train", "scheme"};
};

TEST_F(CompareProfile, RatiosAndSharesOverTheProblems) {
  const Analysis a = Analyze(configs_, runs_, varying_, {});
  const std::vector<Profile> profiles = PerformanceProfiles(configs_, a);
  ASSERT_EQ(profiles.size(), 2u);  // by seconds, by epochs
  const Profile& seconds = profiles[0];
  EXPECT_EQ(seconds.cost, Profile::Cost::kSeconds);
  EXPECT_EQ(seconds.level, 1e-4);  // f* is the runs' lowest: the best method solves each at 0
  EXPECT_EQ(seconds.problems, (std::vector<std::string>{"train=p1", "train=p2"}));
  ASSERT_EQ(seconds.methods.size(), 2u);
  const Profile::Method& ma = seconds.methods[0];
  const Profile::Method& mb = seconds.methods[1];
  EXPECT_EQ(ma.label, "scheme=a");
  EXPECT_EQ(ma.ratios, (std::vector<double>{1, kUnsolved}));
  EXPECT_EQ(mb.ratios, (std::vector<double>{4, 1}));
  EXPECT_EQ(ma.Share(1), 0.5);
  EXPECT_EQ(ma.Share(100), 0.5);  // p2 never solved
  EXPECT_EQ(ma.Solved(), 0.5);
  EXPECT_EQ(mb.Solved(), 1.0);
  EXPECT_EQ(mb.Share(1), 0.5);
  EXPECT_EQ(mb.Share(3.9), 0.5);
  EXPECT_EQ(mb.Share(4), 1.0);
  // By epochs: a 1 epoch, b 2 on p1.
  EXPECT_EQ(profiles[1].methods[1].ratios, (std::vector<double>{2, 1}));

  const Plots plots = MakePlots(configs_, a, varying_);
  std::string data;
  for (const PlotFile& f : plots.files) {
    if (f.name == "profile_seconds.dat") data = f.contents;
  }
  // b's steps: 0.5 at tau 1 (p2), 1 from tau 4 (p1), flat past the largest ratio.
  EXPECT_NE(data.find("# scheme=b\n# tau share\n1 0.5\n4 1\n8 1\n"), std::string::npos) << data;
  EXPECT_NE(data.find("# scheme=a\n# tau share\n1 0.5\n8 0.5\n"), std::string::npos) << data;
  EXPECT_NE(std::find(plots.scripts.begin(), plots.scripts.end(), "profile_epochs.gp"),
            plots.scripts.end());
}

// The level is the tightest at which every problem is solved by some method: with p2's f* from a
// solver at 0.299, b's 0.3 is 3.3e-3 above it, solved at 1e-2 only.
TEST_F(CompareProfile, TheLevelIsTheTightestEveryProblemIsSolvedAt) {
  Reference solver;
  solver.problem = "train=p2";
  solver.solver = "cd";
  solver.objective = 0.299;
  const Analysis a = Analyze(configs_, runs_, varying_, {.references = {solver}});
  const std::vector<Profile> profiles = PerformanceProfiles(configs_, a);
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].level, 1e-2);
  EXPECT_EQ(profiles[0].methods[1].ratios, (std::vector<double>{4, 1}));
}

TEST_F(CompareProfile, NoneWithOneProblemOrWithoutTheOptimum) {
  const Analysis none = Analyze(configs_, runs_, varying_, {.optimum = false});
  EXPECT_TRUE(PerformanceProfiles(configs_, none).empty());
  const std::vector<Configuration> one(configs_.begin(), configs_.begin() + 2);
  const std::vector<RunRecord> runs(runs_.begin(), runs_.begin() + 4);
  EXPECT_TRUE(PerformanceProfiles(one, Analyze(one, runs, varying_, {})).empty());
  // Untimed runs (--deterministic): a profile by epochs only.
  std::vector<RunRecord> untimed = runs_;
  for (RunRecord& r : untimed) {
    for (EpochRecord& e : r.epochs) e.train_seconds.reset();
  }
  const auto profiles = PerformanceProfiles(configs_, Analyze(configs_, untimed, varying_, {}));
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].cost, Profile::Cost::kEpochs);
}

}  // namespace
}  // namespace parsgd::compare
