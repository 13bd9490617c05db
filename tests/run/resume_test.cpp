// Continuing a run: a checkpoint resumed into a longer run (bit for bit a straight run of the new
// length where the schedule does not depend on the length; the linear schedule re-planned), and
// the schemes whose interleaving depends on timing. The offload backend: offload_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "parsgd/io/checkpoint.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr std::string_view kLength[] = {"epochs"};

std::vector<float> Params(const Trainer& t, ModelKind model) {
  const auto p = model == ModelKind::kMlp ? t.mlp_model().params() : t.model().weights();
  return {p.begin(), p.end()};
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Runs `first` for `epochs` epochs, writes its checkpoint to `file`, and returns a trainer of
// `second` resumed from that file (through LoadCheckpoint, as the CLI does).
std::unique_ptr<Trainer> Resumed(const TrainConfig& first, int epochs, const TrainConfig& second,
                                 const Dataset& data, const std::string& file, Executor& executor) {
  {
    Trainer t(first, data, nullptr, executor);
    for (int e = 0; e < epochs; ++e) t.RunEpoch();
    SaveCheckpoint({t.RunIdentity(), t.DataIdentity(), t.Snapshot()}, file);
  }
  auto resumed = std::make_unique<Trainer>(second, data, nullptr, executor);
  const Checkpoint c = LoadCheckpoint(file);
  EXPECT_EQ(IdentityDifferences(c.run, resumed->RunIdentity(), kLength), "");
  EXPECT_EQ(IdentityDifferences(c.data, resumed->DataIdentity()), "");
  resumed->Restore(c.state);
  EXPECT_EQ(resumed->epochs_done(), epochs);
  return resumed;
}

void RunToEnd(Trainer& t) {
  while (t.epochs_done() < t.settings().epochs) t.RunEpoch();
}

struct Base {
  const char* name;
  ModelKind model;
  SchemeKind scheme;
  OptimizerKind optimizer;
  int threads;
  int batch;
  OuterKind outer = OuterKind::kSgd;  // average: the outer rule (sgd: the plain average)
};

void PrintTo(const Base& b, std::ostream* os) { *os << b.name; }

using LongerParam = std::tuple<Base, ScheduleKind>;
class LongerRun : public ::testing::TestWithParam<LongerParam> {};

// A run of c's settings for 3 epochs, checkpointed at its end and resumed with 6: the same bits
// as 6 straight.
bool ThreeResumedToSixEqualSixStraight(TrainConfig c, const Dataset& data) {
  c.epochs = 6;
  TrainConfig shorter = c;
  shorter.epochs = 3;
  auto executor = MakeTbbExecutor(c.threads);
  Trainer straight(c, data, nullptr, *executor);
  RunToEnd(straight);
  testing::TempDir dir;
  const auto resumed = Resumed(shorter, 3, c, data, dir.File("run.ckpt"), *executor);
  RunToEnd(*resumed);
  return SameBits(Params(straight, c.model), Params(*resumed, c.model));
}

TEST_P(LongerRun, ThreeEpochsResumedToSixEqualSixStraight) {
  const auto [k, schedule] = GetParam();
  TrainConfig c;
  c.model = k.model;
  c.scheme = k.scheme;
  c.optimizer.kind = k.optimizer;
  c.threads = k.threads;
  c.batch = k.batch;
  c.outer.kind = k.outer;
  c.schedule = schedule;
  c.order = OrderKind::kRandom;
  c.period = 3;
  c.hidden = {8};
  c = testing::OnlyApplied(c);
  const Dataset data = testing::MakeProblem(600, 30, 5, k.model == ModelKind::kLogistic ? 2 : 3,
                                            0.05, 41);
  EXPECT_TRUE(ThreeResumedToSixEqualSixStraight(c, data));
}

std::string LongerName(const ::testing::TestParamInfo<LongerParam>& info) {
  return std::string(std::get<0>(info.param).name) + "_" +
         NameOf<ScheduleKind>(kScheduleKinds, std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    DeterministicSchemes, LongerRun,
    ::testing::Combine(
        ::testing::Values(
            Base{"sequential_sgd", ModelKind::kLogistic, SchemeKind::kSequential, OptimizerKind::kSgd, 1, 1},
            Base{"sync_momentum", ModelKind::kSoftmax, SchemeKind::kSync, OptimizerKind::kMomentum, 2, 16},
            Base{"average_adam", ModelKind::kLogistic, SchemeKind::kAverage, OptimizerKind::kAdam, 2, 4},
            Base{"mlp_sequential_momentum", ModelKind::kMlp, SchemeKind::kSequential, OptimizerKind::kMomentum, 1, 16},
            Base{"mlp_sync_adam", ModelKind::kMlp, SchemeKind::kSync, OptimizerKind::kAdam, 2, 16},
            Base{"mlp_average_sgd", ModelKind::kMlp, SchemeKind::kAverage, OptimizerKind::kSgd, 2, 16},
            Base{"gossip_momentum", ModelKind::kSoftmax, SchemeKind::kGossip, OptimizerKind::kMomentum, 2, 1},
            Base{"mlp_gossip_adam", ModelKind::kMlp, SchemeKind::kGossip, OptimizerKind::kAdam, 2, 16},
            Base{"average_outer_momentum", ModelKind::kLogistic, SchemeKind::kAverage, OptimizerKind::kSgd, 2, 4,
                 OuterKind::kMomentum},
            Base{"mlp_average_outer_nesterov", ModelKind::kMlp, SchemeKind::kAverage, OptimizerKind::kMomentum, 2, 16,
                 OuterKind::kNesterov},
            Base{"elastic_sgd", ModelKind::kLogistic, SchemeKind::kElastic, OptimizerKind::kSgd, 2, 1}),
        ::testing::Values(ScheduleKind::kConstant, ScheduleKind::kInvTime, ScheduleKind::kGeometric)),
    LongerName);

// The optimal schedule (1 / (l2 (t0 + t))) counts the samples from the run's start, not its
// length: 3 epochs resumed to 6 are 6 straight, replicas included.
TEST(LongerRun, OptimalScheduleRepeatsAStraightRun) {
  for (const SchemeKind scheme : {SchemeKind::kSequential, SchemeKind::kAverage}) {
    const Dataset data = testing::MakeProblem(600, 30, 5, 2, 0.05, 43);
    TrainConfig c;
    c.scheme = scheme;
    c.threads = 2;
    c.schedule = ScheduleKind::kOptimal;
    c.normalize = Normalization::kNone;
    c.order = OrderKind::kRandom;
    EXPECT_TRUE(ThreeResumedToSixEqualSixStraight(c, data))
        << NameOf<SchemeKind>(kSchemeKinds, scheme);
  }
}

// The linear schedule reaches 0 at the end of the run, so a finished run continued for longer
// takes, for the epochs left, the step sizes of a run planned for the new length; a second resume
// continues that plan.
TEST(LongerRun, LinearScheduleIsReplannedForTheNewLength) {
  const Dataset data = testing::MakeProblem(600, 30, 5, 2, 0.05, 42);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.schedule = ScheduleKind::kLinear;
  c.epochs = 6;
  TrainConfig shorter = c;
  shorter.epochs = 3;
  auto executor = MakeTbbExecutor(1);
  testing::TempDir dir;

  Trainer straight(c, data, nullptr, *executor);
  std::vector<double> planned;
  for (int e = 0; e < 6; ++e) planned.push_back(straight.RunEpoch().learning_rate);

  const auto resumed = Resumed(shorter, 3, c, data, dir.File("three.ckpt"), *executor);
  const std::vector<float> after_three = Params(*resumed, c.model);
  for (int e = 3; e < 6; ++e) {
    EXPECT_EQ(resumed->RunEpoch().learning_rate, planned[e]) << "epoch " << e + 1;
  }
  EXPECT_GT(planned[3], 0.0);
  EXPECT_FALSE(SameBits(after_three, Params(*resumed, c.model)));  // the longer run trained on

  // Interrupted after epoch 4 of the re-planned run and resumed with the same length: the same
  // bits as the re-planned run without the interruption.
  const auto part = Resumed(shorter, 3, c, data, dir.File("three.ckpt"), *executor);
  part->RunEpoch();
  SaveCheckpoint({part->RunIdentity(), part->DataIdentity(), part->Snapshot()}, dir.File("four.ckpt"));
  Trainer again(c, data, nullptr, *executor);
  again.Restore(LoadCheckpoint(dir.File("four.ckpt")).state);
  RunToEnd(again);
  EXPECT_TRUE(SameBits(Params(*resumed, c.model), Params(again, c.model)));

  // And continued once more, to 9: the seventh epoch ends at eta0 * (1 - 7 / 9).
  SaveCheckpoint({again.RunIdentity(), again.DataIdentity(), again.Snapshot()}, dir.File("six.ckpt"));
  TrainConfig longer = c;
  longer.epochs = 9;
  Trainer nine(longer, data, nullptr, *executor);
  nine.Restore(LoadCheckpoint(dir.File("six.ckpt")).state);
  const double eta0 = nine.settings().eta0;
  EXPECT_EQ(nine.RunEpoch().learning_rate, static_cast<float>(eta0 * (1.0 - 7.0 / 9.0)));
}

TEST(LongerRun, ACheckpointBeyondTheRunsEndIsRefused) {
  const Dataset data = testing::MakeProblem(200, 20, 4, 2, 0.0, 43);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 4;
  auto executor = MakeTbbExecutor(1);
  Trainer four(c, data, nullptr, *executor);
  RunToEnd(four);
  c.epochs = 3;
  Trainer three(c, data, nullptr, *executor);
  try {
    three.Restore(four.Snapshot());
    ADD_FAILURE() << "restored a checkpoint after epoch 4 into a run of 3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("after epoch 4, beyond this run's 3 epochs"),
              std::string::npos)
        << e.what();
  }
}

// train --resume with a larger --epochs: the same model file as the straight run for a schedule
// that does not depend on the length; the linear plan printed; fewer epochs than done refused, as
// is any other setting.
TEST(LongerRun, TheCommandLineContinuesARunForMoreEpochs) {
  testing::TempDir dir;
  const std::string data = dir.File("d.svm");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 800 --features 100 --nnz 8 --seed 6").status, 0);
  const std::string common = "train --train " + data + " --scheme sync --batch 32 --threads 2 ";
  const std::string constant = common + "--schedule constant --quiet ";
  const std::string ck = dir.File("three.ckpt");
  ASSERT_EQ(testing::RunCli(constant + "--epochs 6 --save " + dir.File("a.model")).status, 0);
  ASSERT_EQ(testing::RunCli(constant + "--epochs 3 --checkpoint " + ck).status, 0);
  const auto longer = testing::RunCli(constant + "--epochs 6 --resume " + ck + " --save " + dir.File("b.model"));
  ASSERT_EQ(longer.status, 0) << longer.output;
  EXPECT_EQ(testing::ReadFile(dir.File("a.model")), testing::ReadFile(dir.File("b.model")));

  const auto shorter = testing::RunCli(constant + "--epochs 2 --resume " + ck);
  EXPECT_EQ(shorter.status, 1);
  EXPECT_NE(shorter.output.find("the checkpoint is after epoch 3, beyond this run's 2 epochs: give "
                                "--epochs 3 or more"),
            std::string::npos)
      << shorter.output;
  const auto other = testing::RunCli(constant + "--epochs 6 --l2 0.5 --resume " + ck);
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.output.find("l2: checkpoint"), std::string::npos) << other.output;

  const std::string linear_ck = dir.File("linear.ckpt");
  ASSERT_EQ(testing::RunCli(common + "--epochs 3 --quiet --checkpoint " + linear_ck).status, 0);
  const auto replanned = testing::RunCli(common + "--epochs 6 --resume " + linear_ck);
  ASSERT_EQ(replanned.status, 0) << replanned.output;
  EXPECT_NE(replanned.output.find("resuming after epoch 3 from " + linear_ck +
                                  ", a run of 3 epochs continued to 6"),
            std::string::npos)
      << replanned.output;
  EXPECT_NE(replanned.output.find("schedule linear re-planned for 6 epochs: eta "), std::string::npos)
      << replanned.output;
  EXPECT_NE(replanned.output.find("(the 3-epoch plan's 0), down to 0 at epoch 6"), std::string::npos)
      << replanned.output;
  EXPECT_NE(replanned.output.find("4/6"), std::string::npos) << replanned.output;
}

// A resumed run's --metrics file holds the whole run once: the epochs up to the checkpoint kept
// from the file the first run wrote (an epoch after the checkpoint dropped), then the new ones.
TEST(LongerRun, AResumedRunsMetricsHoldEveryEpochOnce) {
  testing::TempDir dir;
  const std::string data = dir.File("d.svm");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 400 --features 50 --nnz 6 --seed 6").status, 0);
  const std::string run = "train --train " + data + " --scheme sequential --threads 1 --quiet ";
  const std::string metrics = dir.File("m.jsonl"), ck = dir.File("two.ckpt");
  ASSERT_EQ(testing::RunCli(run + "--epochs 2 --checkpoint " + ck).status, 0);
  ASSERT_EQ(testing::RunCli(run + "--epochs 3 --metrics " + metrics).status, 0);
  const std::vector<std::string> before = testing::Lines(testing::ReadFile(metrics));
  ASSERT_EQ(before.size(), 3u);
  const auto resumed = testing::RunCli(run + "--epochs 5 --resume " + ck + " --metrics " + metrics);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  const std::vector<std::string> lines = testing::Lines(testing::ReadFile(metrics));
  ASSERT_EQ(lines.size(), 5u);  // the first run's epoch 3 dropped: the resumed run wrote its own
  for (int e = 0; e < 5; ++e) {
    EXPECT_EQ(lines[e].rfind(fmt::format("{{\"epoch\":{},", e + 1), 0), 0u) << lines[e];
  }
  EXPECT_EQ(lines[0], before[0]);  // kept as the first run wrote them
  EXPECT_EQ(lines[1], before[1]);
}

// --scheme auto, resumed: the run continues with the scheme its checkpoint's run took, not a new
// choice (for the MLP auto would choose average; the checkpoint's run was hogwild).
TEST(LongerRun, AnAutoSchemeResumesWithTheCheckpointsScheme) {
  testing::TempDir dir;
  const std::string data = dir.File("d.svm");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 300 --features 20 --nnz 6 --seed 6").status, 0);
  const std::string common = "train --train " + data + " --model mlp --hidden 8 --threads 2 ";
  const std::string ck = dir.File("hogwild.ckpt");
  ASSERT_EQ(testing::RunCli(common + "--scheme hogwild --epochs 1 --quiet --checkpoint " + ck).status,
            0);
  const auto resumed = testing::RunCli(common + "--epochs 2 --resume " + ck);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("scheme hogwild"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("2/2"), std::string::npos) << resumed.output;
}

// auto may choose per-sample replicas (average with --batch 1): a resumed auto run takes the
// checkpoint's minibatch with its scheme, not the scheme's default of 32.
TEST(LongerRun, AnAutoSchemeResumesWithTheCheckpointsMinibatch) {
  testing::TempDir dir;
  const std::string data = dir.File("d.svm");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 300 --features 20 --nnz 6 --seed 6").status, 0);
  const std::string common = "train --train " + data + " --threads 2 ";
  const std::string ck = dir.File("replicas.ckpt");
  ASSERT_EQ(testing::RunCli(common + "--scheme average --batch 1 --epochs 1 --quiet --checkpoint " + ck)
                .status,
            0);
  const auto resumed = testing::RunCli(common + "--epochs 2 --resume " + ck);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("scheme average"), std::string::npos) << resumed.output;
  EXPECT_EQ(resumed.output.find("(batch 32)"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("2/2"), std::string::npos) << resumed.output;
}

// The schemes whose interleaving depends on timing. With one worker there is none: resumed, they
// end on the bits of a straight run. With two: the restored state is the checkpoint's, and
// training goes on from it.
class AsyncResume : public ::testing::TestWithParam<SchemeKind> {};

TEST_P(AsyncResume, OneWorkerResumesExactly) {
  const Dataset data = testing::MakeProblem(600, 30, 5, 3, 0.05, 44);
  TrainConfig c;
  c.model = ModelKind::kSoftmax;
  c.scheme = GetParam();
  c.optimizer.kind = OptimizerKind::kAdam;
  c.threads = 1;
  c.epochs = 6;
  auto executor = MakeTbbExecutor(1);
  Trainer straight(c, data, nullptr, *executor);
  RunToEnd(straight);
  testing::TempDir dir;
  const auto resumed = Resumed(c, 2, c, data, dir.File("run.ckpt"), *executor);
  RunToEnd(*resumed);
  EXPECT_TRUE(SameBits(Params(straight, c.model), Params(*resumed, c.model)));
}

TEST_P(AsyncResume, TwoWorkersRestoreTheStateAndTrainOn) {
  const Dataset data = testing::MakeProblem(2000, 40, 6, 2, 0.02, 45);
  TrainConfig c;
  c.scheme = GetParam();
  c.optimizer.kind = OptimizerKind::kMomentum;
  c.threads = 2;
  c.epochs = 6;
  auto executor = MakeTbbExecutor(2);
  Trainer first(c, data, nullptr, *executor);
  EpochReport at_checkpoint;
  for (int e = 0; e < 2; ++e) at_checkpoint = first.RunEpoch();
  const TrainingState saved = first.Snapshot();

  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(saved);
  const TrainingState restored = resumed.Snapshot();
  EXPECT_EQ(restored.counters(), saved.counters());
  EXPECT_EQ(restored.arrays(), saved.arrays());  // weights and momentum, bit for bit
  ASSERT_TRUE(saved.Has("state0"));
  EpochReport last;
  while (resumed.epochs_done() < c.epochs) {
    last = resumed.RunEpoch();
    EXPECT_EQ(last.updates, data.rows());
  }
  EXPECT_EQ(last.epoch, 6);
  EXPECT_LT(last.objective, at_checkpoint.objective);
}

INSTANTIATE_TEST_SUITE_P(TimingSchemes, AsyncResume,
                         ::testing::Values(SchemeKind::kHogwild, SchemeKind::kLocked,
                                           SchemeKind::kStriped, SchemeKind::kAtomic),
                         testing::ParamName());

}  // namespace
// Checkpoints of the run identity's first version (no version line; written by the program before
// the identity was derived from the settings table, data/fixtures/v1_*.ckpt) still resume: the
// same command plus --resume continues them to more epochs. The fixtures' runs: data/README.md.
TEST(LongerRun, CheckpointsOfTheFirstIdentityVersionStillResume) {
  const std::string data = testing::SourcePath("data/fixtures/anchor.svm");
  const std::pair<std::string, std::string> runs[] = {
      {"v1_average_outer.ckpt",
       "--scheme average --threads 2 --period 4 --batch 16 --outer-optimizer momentum "
       "--optimizer adam --learning-rate 0.01 --deterministic"},
      {"v1_gossip_mlp.ckpt",
       "--model mlp --hidden 8 --scheme gossip --threads 2 --period 5 --batch 16 --deterministic"},
  };
  testing::TempDir dir;
  for (const auto& [checkpoint, flags] : runs) {
    const testing::CliResult r =
        testing::RunCli("train --train " + data + " " + flags + " --epochs 4 --resume " +
                        testing::SourcePath("data/fixtures/" + checkpoint) + " --save " +
                        dir.File(checkpoint + ".model"));
    EXPECT_EQ(r.status, 0) << checkpoint << ": " << r.output;
    EXPECT_TRUE(testing::Contains(r.output, "resuming after epoch 2")) << r.output;
    EXPECT_TRUE(testing::Contains(r.output, "\n    4/4 ")) << r.output;
    // Other settings are still told apart from a first-version identity.
    const testing::CliResult other = testing::RunCli(
        "train --train " + data + " " + flags + " --seed 9 --epochs 4 --resume " +
        testing::SourcePath("data/fixtures/" + checkpoint));
    EXPECT_EQ(other.status, 1) << other.output;
    EXPECT_TRUE(testing::Contains(other.output, "seed: checkpoint 1, this run 9")) << other.output;
  }
}

}  // namespace parsgd
