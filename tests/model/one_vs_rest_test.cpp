// One-vs-rest: a binary loss on more than two classes trains one binary classifier a class in one
// pass. Each class's weights are those of the binary model of that class against the rest; the
// head's loss and gradient against a hand computation; predictions by the largest score; the
// model file; the refusals (--multiclass off, cd); the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/linear/linear_runner.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(900, 40, 6, 4, 0.05, 41);
  return data;
}

// `data` with the labels +1 where they are `k`, -1 elsewhere.
Dataset OneAgainstTheRest(const Dataset& data, int k) {
  AlignedArray<float> labels(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) labels[i] = data.label(i) == k ? 1.f : -1.f;
  Dataset::Parts parts = data.parts();
  parts.labels = SharedArray<float>(std::move(labels));
  return Dataset(std::move(parts));
}

TEST(OneVsRest, TheHeadSumsEachClassesBinaryLossAgainstTheRest) {
  const OneVsRestHead head{Loss::kHinge};
  float z[3] = {0.5f, -2.f, 0.2f};  // class 1 the target: margins 0.5 (as -1), -2, 0.2 (as -1)
  const double loss = head.LossAndGradient(z, 3, 1.f);
  // hinge(0.5, -1) = 1.5, hinge(-2, +1) = 3, hinge(0.2, -1) = 1.2
  EXPECT_FLOAT_EQ(static_cast<float>(loss), 1.5f + 3.f + 1.2f);
  EXPECT_EQ(z[0], 1.f);
  EXPECT_EQ(z[1], -1.f);
  EXPECT_EQ(z[2], 1.f);
  const float scores[3] = {0.5f, -2.f, 0.7f};
  EXPECT_TRUE(head.Correct(scores, 3, 2.f));
  EXPECT_FALSE(head.Correct(scores, 3, 0.f));
  const OneVsRestHead logistic{Loss::kLogistic};
  const float at[2] = {0.f, 0.f};
  EXPECT_NEAR(logistic.Value(at, 2, 0.f), 2 * std::log(2.0), 1e-6);
}

// Under the sequential scheme every class's weights move only with their own score: the
// one-vs-rest model's weights for class k are the binary model's of k against the rest (to the
// rounding of the scores' sums, which the two heads add in another order).
TEST(OneVsRest, EachClassIsTheBinaryModelOfThatClassAgainstTheRest) {
  for (ModelKind model : {ModelKind::kHinge, ModelKind::kLogistic, ModelKind::kSquaredHinge}) {
    SCOPED_TRACE(testing::Name(model));
    TrainConfig c;
    c.model = model;
    c.multiclass = Multiclass::kOneVsRest;  // logistic's auto is softmax
    c.scheme = SchemeKind::kSequential;
    c.threads = 1;
    c.epochs = 3;
    auto executor = MakeTbbExecutor(1);
    Trainer all(c, Problem(), nullptr, *executor);
    testing::TrainFor(all, c.epochs);
    const LinearModel& m = all.model();
    ASSERT_TRUE(m.one_vs_rest());
    ASSERT_EQ(m.outputs(), 4);
    EXPECT_EQ(all.settings().outputs, 4);
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE(k);
      const Dataset binary = OneAgainstTheRest(Problem(), k);
      Trainer one(c, binary, nullptr, *executor);
      testing::TrainFor(one, c.epochs);
      const std::span<const float> w = one.model().weights();
      for (uint64_t j = 0; j <= m.features(); ++j) {
        EXPECT_NEAR(m.weights()[j * 4 + k], w[j], 1e-4 * (1 + std::abs(w[j]))) << j;
      }
    }
  }
}

// --multiclass auto: logistic on more than two classes is the softmax model (the run an explicit
// --model softmax makes, the reason said); the other binary losses train one-vs-rest.
TEST(OneVsRest, LogisticOnManyClassesIsSoftmaxUnderAuto) {
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = 3;
  auto executor = MakeTbbExecutor(1);
  Trainer logistic(c, Problem(), nullptr, *executor);
  testing::TrainFor(logistic, c.epochs);
  EXPECT_EQ(logistic.model().kind(), ModelKind::kSoftmax);
  EXPECT_EQ(logistic.config().model, ModelKind::kSoftmax);
  EXPECT_FALSE(logistic.model().one_vs_rest());
  EXPECT_NE(logistic.settings().multiclass_reason.find("logistic on 4 classes"), std::string::npos);
  TrainConfig explicit_softmax = c;
  explicit_softmax.model = ModelKind::kSoftmax;
  Trainer softmax(explicit_softmax, Problem(), nullptr, *executor);
  testing::TrainFor(softmax, c.epochs);
  EXPECT_TRUE(std::equal(logistic.model().weights().begin(), logistic.model().weights().end(),
                         softmax.model().weights().begin(), softmax.model().weights().end()));
  EXPECT_TRUE(softmax.settings().multiclass_reason.empty());
  TrainConfig hinge = c;
  hinge.model = ModelKind::kHinge;
  Trainer ovr(hinge, Problem(), nullptr, *executor);
  EXPECT_TRUE(ovr.model().one_vs_rest());
  EXPECT_TRUE(ovr.settings().multiclass_reason.empty());
}

TEST(OneVsRest, EverySchemeLearnsTheClasses) {
  for (SchemeKind scheme : {SchemeKind::kHogwild, SchemeKind::kSync, SchemeKind::kAverage}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.model = ModelKind::kHinge;
    c.scheme = scheme;
    c.threads = 2;
    c.epochs = 10;
    c.batch = scheme == SchemeKind::kSync ? 16 : 0;
    auto executor = MakeTbbExecutor(2);
    Trainer trainer(c, Problem(), nullptr, *executor);
    EXPECT_GT(testing::TrainFor(trainer, c.epochs).train_accuracy, 0.8);
  }
}

TEST(OneVsRest, OffRefusesAndCdRefusesByName) {
  auto executor = MakeTbbExecutor(1);
  TrainConfig off;
  off.model = ModelKind::kHinge;
  off.multiclass = Multiclass::kOff;
  try {
    Trainer t(off, Problem(), nullptr, *executor);
    FAIL() << "4 classes trained with --multiclass off";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "needs two label values")) << e.what();
    EXPECT_TRUE(testing::Contains(e.what(), "--multiclass ovr")) << e.what();
  }
  TrainConfig cd;
  cd.model = ModelKind::kLogistic;
  cd.solver = Solver::kCd;
  try {
    Trainer t(cd, Problem(), nullptr, *executor);
    FAIL() << "cd trained one-vs-rest";
  } catch (const SettingError& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "one-vs-rest under solver sgd")) << e.what();
  }
}

TEST(OneVsRest, TheModelFileAndThePredictionsKeepTheClasses) {
  TrainConfig c;
  c.model = ModelKind::kSquaredHinge;
  c.threads = 1;
  c.epochs = 2;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(c, Problem(), nullptr, *executor);
  testing::TrainFor(trainer, c.epochs);
  testing::TempDir dir;
  SaveModel(trainer.model(), dir.File("m.bin"), "");
  const LoadedModel loaded = LoadModel(dir.File("m.bin"));
  const auto& m = std::get<LinearModel>(loaded.model);
  EXPECT_TRUE(m.one_vs_rest());
  EXPECT_EQ(m.labels().values, trainer.model().labels().values);
  EXPECT_TRUE(testing::SameBits(m, trainer.model()));
  const std::vector<int> classes = PredictClasses(m, Problem(), *executor);
  for (uint64_t i = 0; i < 20; ++i) {
    std::vector<float> z(4);
    const SparseRow x = Problem().row(i);
    m.Scores(x.index, x.value, x.nnz, z.data());
    EXPECT_EQ(classes[i], std::max_element(z.begin(), z.end()) - z.begin());
  }
}

TEST(OneVsRest, TheCommandLineTrainsPredictsAndEvaluates) {
  testing::TempDir dir;
  std::string text;
  for (uint64_t i = 0; i < Problem().rows(); ++i) {
    text += std::to_string(static_cast<int>(Problem().label(i)));
    const SparseRow x = Problem().row(i);
    for (uint32_t e = 0; e < x.nnz; ++e) {
      text += " " + std::to_string(x.index[e] + 1) + ":" + std::to_string(x.value[e]);
    }
    text += "\n";
  }
  const std::string file = dir.Write("four.svm", text);
  const testing::CliResult run = testing::RunCli(
      "train --train " + file + " --model hinge --threads 1 --save " + dir.File("m.bin"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "one-vs-rest, 4 classes")) << run.output;
  EXPECT_GT(testing::After(run.output, "train accuracy "), 80) << run.output;
  const testing::CliResult eval = testing::RunCli("eval " + dir.File("m.bin") + " " + file);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_TRUE(testing::Contains(eval.output, "precision")) << eval.output;
  const testing::CliResult off =
      testing::RunCli("train --train " + file + " --model hinge --multiclass off --threads 1");
  EXPECT_NE(off.status, 0) << off.output;
  const testing::CliResult cd =
      testing::RunCli("train --train " + file + " --model logistic --solver cd --threads 1");
  EXPECT_EQ(cd.status, 2) << cd.output;
}

}  // namespace
}  // namespace parsgd
