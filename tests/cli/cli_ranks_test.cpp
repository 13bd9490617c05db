// `parsgd train` across ranks, end to end: the program launched by mpirun on 2 and 3 ranks of this
// machine (the tests are skipped in a build without MPI). Rank 0 reports for the whole run, a bad
// line in rank 1's share ends every rank with its line number in the whole file, a checkpoint
// resumes the ranks exactly and is refused by another rank count.
#include <gtest/gtest.h>

#include <string>

#include "parsgd/data/libsvm.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::Contains;
using testing::Lines;

class TrainAcrossRanks : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef PARSGD_MPIEXEC
    GTEST_SKIP() << "built without MPI";
#endif
    WriteLibsvm(testing::MakeProblem(3000, 400, 12, 2, 0.05, 7), dir_.File("train.svm"));
    WriteLibsvm(testing::MakeProblem(800, 400, 12, 2, 0.05, 7), dir_.File("test.svm"));
  }

  // `parsgd train --train TRAIN ARGS` on `ranks` ranks (as root in CI; more ranks than cores
  // oversubscribed; no single-copy mechanism in containers); Train: on train.svm, one thread a
  // rank.
  testing::CliResult TrainOn(int ranks, const std::string& train, const std::string& args) const {
#ifdef PARSGD_MPIEXEC
    const std::string env =
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
        "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none ";
    return testing::RunShell(env + PARSGD_MPIEXEC + " -np " + std::to_string(ranks) + " " +
                             PARSGD_CLI_PATH + " train --train " + train + " " + args);
#else
    return {-1, std::to_string(ranks) + train + args};
#endif
  }
  testing::CliResult Train(int ranks, const std::string& args) const {
    return TrainOn(ranks, dir_.File("train.svm"), "--threads 1 " + args);
  }

  // The test accuracy a run printed is what `eval` gives the model it saved on test.svm.
  void ExpectPrintedIsSavedModels(const std::string& output, const std::string& model) const {
    const std::size_t at = output.rfind("test accuracy ");
    ASSERT_NE(at, std::string::npos) << output;
    const std::string accuracy = output.substr(at + 14, output.find('%', at) - at - 14);
    const testing::CliResult eval = testing::RunCli("eval " + model + " " + dir_.File("test.svm"));
    ASSERT_EQ(eval.status, 0) << eval.output;
    EXPECT_TRUE(Contains(eval.output, "accuracy " + accuracy + "%")) << eval.output << output;
  }

  testing::TempDir dir_;
};

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST_F(TrainAcrossRanks, RankZeroReportsTheWholeRunAndSavesTheAveragedModel) {
  const std::string model = dir_.File("m.model"), metrics = dir_.File("m.jsonl");
  const testing::CliResult r = Train(2, "--test " + dir_.File("test.svm") + " --epochs 3 --save " +
                                            model + " --metrics " + metrics);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(Count(r.output, "parsgd train: 3000 rows"), 1u) << r.output;
  EXPECT_TRUE(Contains(r.output, "across 2 ranks")) << r.output;
  EXPECT_EQ(Lines(testing::ReadFile(metrics)).size(), 3u);
  EXPECT_TRUE(Contains(testing::ReadFile(metrics), "\"updates\":3000,"))
      << testing::ReadFile(metrics);
  // The test metrics of the ranks' shares together are the saved model's on the whole test set.
  ExpectPrintedIsSavedModels(r.output, model);
}

// Class weights across ranks are those of the whole data (its class counts), and so is the auto
// L2 they scale: the setup line says the same as one process's.
TEST_F(TrainAcrossRanks, ClassWeightsAreTheWholeDatasAndSoIsTheirAutoL2) {
  auto l2 = [](const std::string& output) {
    const std::size_t at = output.find("--l2 ");
    return at == std::string::npos ? std::string("none")
                                   : output.substr(at + 5, output.find(' ', at + 5) - at - 5);
  };
  const testing::CliResult one =
      testing::RunCli("train --train " + dir_.File("train.svm") +
                      " --threads 1 --class-weight balanced --epochs 1 --scheme average");
  ASSERT_EQ(one.status, 0) << one.output;
  const testing::CliResult two = Train(2, "--class-weight balanced --epochs 1");
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_EQ(l2(two.output), l2(one.output)) << one.output << two.output;
  EXPECT_NE(l2(one.output), "none") << one.output;
  EXPECT_TRUE(Contains(two.output, "(weighted ")) << two.output;
}

TEST_F(TrainAcrossRanks, ABadLineInRankOnesShareEndsEveryRankWithItsLineInTheFile) {
  std::vector<std::string> lines = Lines(testing::ReadFile(dir_.File("train.svm")));
  lines[2499] = "+1 3:x";
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  dir_.Write("train.svm", text);
  const testing::CliResult r = Train(2, "--epochs 1");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(Count(r.output, "train.svm:2500:"), 1u) << r.output;
}

TEST_F(TrainAcrossRanks, ACheckpointResumesEveryRankExactlyAndAnotherRankCountIsRefused) {
  const std::string a = dir_.File("a.model"), b = dir_.File("b.model"),
                    ckpt = dir_.File("run.ckpt");
  const std::string flags = " --schedule constant --ranks-period 100";
  ASSERT_EQ(Train(2, "--epochs 4 --save " + a + flags).status, 0);
  ASSERT_EQ(Train(2, "--epochs 2 --checkpoint " + ckpt + flags).status, 0);
  const testing::CliResult resumed =
      Train(2, "--epochs 4 --resume " + ckpt + " --save " + b + flags);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(testing::ReadFile(a), testing::ReadFile(b));
  const testing::CliResult three = Train(3, "--epochs 4 --resume " + ckpt + flags);
  EXPECT_NE(three.status, 0) << three.output;
  EXPECT_EQ(Count(three.output, "ranks: checkpoint 2, this run 3"), 1u) << three.output;
}

// Under mpirun, where the maths says a run across ranks is one of a process, the two models score
// every test row alike: from a binary cache (each rank's share a row range, as each worker's shard
// under the sequential order), 2 ranks of one thread averaging after every sample are the average
// scheme of 2 workers averaging after every sample (the constant schedule: the workers recompute
// their step every 64 samples, the ranks at every combination), and --ranks-scheme sync with a
// sample of each rank a step (so that the ranks' sum of two floats rounds as the workers' does) is
// the sync scheme of 2 workers.
TEST_F(TrainAcrossRanks, RunsThatAreOneProcessesScoreAlike) {
  const std::string bin = dir_.File("train.bin");
  ASSERT_EQ(testing::RunCli("convert " + dir_.File("train.svm") + " " + bin).status, 0);
  const std::string common = " --epochs 2 --order sequential --learning-rate 0.1";
  struct Case {
    std::string one, ranks;
  };
  for (const Case& c : {Case{"--scheme average --batch 1 --period 1 --average-rule mean "
                             "--schedule constant",
                             "--ranks-period 1 --scheme sequential --schedule constant"},
                        Case{"--scheme sync --batch 2", "--ranks-scheme sync --batch 2"}}) {
    SCOPED_TRACE(c.ranks);
    const std::string a = dir_.File("a.model"), b = dir_.File("b.model");
    const testing::CliResult one =
        testing::RunCli("train --train " + bin + " --threads 2 --save " + a + " " + c.one + common);
    ASSERT_EQ(one.status, 0) << one.output;
    const testing::CliResult ranks =
        TrainOn(2, bin, "--threads 1 --save " + b + " " + c.ranks + common);
    ASSERT_EQ(ranks.status, 0) << ranks.output;
    EXPECT_TRUE(Contains(ranks.output, "across 2 ranks")) << ranks.output;
    const std::string test = " " + dir_.File("test.svm") + " --scores";
    const testing::CliResult scores_a = testing::RunCli("predict " + a + test);
    const testing::CliResult scores_b = testing::RunCli("predict " + b + test);
    ASSERT_EQ(scores_a.status, 0) << scores_a.output;
    EXPECT_EQ(scores_a.output, scores_b.output);
  }
}

// The MLP across ranks: rank 0 reports once, and the saved model is the one it evaluated.
TEST_F(TrainAcrossRanks, TheMlpTrainsAcrossRanks) {
  const std::string model = dir_.File("mlp.model");
  const testing::CliResult r = Train(
      2, "--model mlp --hidden 16 --epochs 2 --test " + dir_.File("test.svm") + " --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(Count(r.output, "  model mlp"), 1u) << r.output;
  ExpectPrintedIsSavedModels(r.output, model);
}

}  // namespace
}  // namespace parsgd
