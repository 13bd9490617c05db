// Starting a run from a trained model (Trainer::StartFrom, train --init): the model's parameters
// replace the initial ones, the optimiser state starts at zero, and a model that does not fit the
// run is refused with both sides named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "parsgd/io/model_file.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {



Model Trained(const Trainer& t, ModelKind kind) {
  if (kind == ModelKind::kMlp) return t.mlp_model();
  return t.model();
}

std::vector<float> Params(const Model& m) {
  if (const auto* mlp = std::get_if<MlpModel>(&m)) return {mlp->params().begin(), mlp->params().end()};
  const auto w = std::get<LinearModel>(m).weights();
  return {w.begin(), w.end()};
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Plain SGD with a constant step in a fixed order has no state beyond the parameters, so a run
// started from the model of 3 epochs takes the same 3 steps as epochs 4 to 6 of a straight run.
TEST(StartFrom, ContinuesFromTheModelsParameters) {
  for (ModelKind kind : {ModelKind::kLogistic, ModelKind::kSoftmax, ModelKind::kMlp}) {
    const Dataset data = testing::MakeProblem(500, 30, 5, kind == ModelKind::kLogistic ? 2 : 3, 0.05, 51);
    TrainConfig c;
    c.model = kind;
    c.scheme = SchemeKind::kSequential;
    c.order = OrderKind::kSequential;
    c.optimizer.kind = OptimizerKind::kSgd;
    c.schedule = ScheduleKind::kConstant;
    c.hidden = {8};
    c.batch = kind == ModelKind::kMlp ? 16 : 1;
    c.epochs = 6;
    c = testing::OnlyApplied(c);
    auto executor = MakeTbbExecutor(1);
    Trainer straight(c, data, nullptr, *executor);
    for (int e = 0; e < 6; ++e) straight.RunEpoch();

    c.epochs = 3;
    Trainer first(c, data, nullptr, *executor);
    for (int e = 0; e < 3; ++e) first.RunEpoch();
    Trainer second(c, data, nullptr, *executor);
    second.StartFrom(Trained(first, kind));
    EXPECT_TRUE(SameBits(Params(Trained(second, kind)), Params(Trained(first, kind))));
    for (int e = 0; e < 3; ++e) second.RunEpoch();
    EXPECT_TRUE(SameBits(Params(Trained(second, kind)), Params(Trained(straight, kind))))
        << testing::Name(kind);
  }
}

// The MLP's input scaling is part of the model: a run on other data keeps the model's.
TEST(StartFrom, TheMlpKeepsTheModelsInputScaling) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 3, 0.0, 52);
  TrainConfig c;
  c.model = ModelKind::kMlp;
  c.hidden = {4};
  c.epochs = 1;
  auto executor = MakeTbbExecutor(1);
  MlpModel model = Trainer(c, data, nullptr, *executor).mlp_model();
  for (float& s : model.input_scale()) s = 0.25f;
  Trainer t(c, data, nullptr, *executor);
  t.StartFrom(model);
  const auto scale = t.mlp_model().input_scale();
  EXPECT_TRUE(std::all_of(scale.begin(), scale.end(), [](float s) { return s == 0.25f; }));
}

// Momentum's velocity, Adam's moments: zero at the start, whatever the model went through.
TEST(StartFrom, TheOptimiserStateStartsAtZero) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.0, 53);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.optimizer.kind = OptimizerKind::kAdam;
  c.epochs = 2;
  auto executor = MakeTbbExecutor(1);
  Trainer first(c, data, nullptr, *executor);
  first.RunEpoch();
  ASSERT_TRUE(first.Snapshot().Has("state0"));
  Trainer second(c, data, nullptr, *executor);
  second.StartFrom(first.model());
  const TrainingState s = second.Snapshot();
  for (const char* name : {"state0", "state1"}) {
    const std::vector<float>& v = s.arrays().at(name);
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 0.f; })) << name;
  }
  EXPECT_EQ(s.arrays().at("weights"), std::vector<float>(first.model().weights().begin(),
                                                          first.model().weights().end()));
  second.RunEpoch();
  EXPECT_THROW(second.StartFrom(first.model()), Error);  // only before the first epoch
}

std::string Refusal(const Model& model, const TrainConfig& c, const Dataset& data) {
  auto executor = MakeTbbExecutor(1);
  Trainer t(c, data, nullptr, *executor);
  try {
    t.StartFrom(model);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(StartFrom, AModelThatDoesNotFitIsRefusedNamingBothSides) {
  auto executor = MakeTbbExecutor(1);
  const Dataset binary = testing::MakeProblem(200, 20, 4, 2, 0.0, 54);
  const Dataset three = testing::MakeProblem(200, 20, 4, 3, 0.0, 55);
  const Dataset four = testing::MakeProblem(400, 20, 4, 4, 0.0, 56);
  const Dataset wider = testing::MakeProblem(200, 25, 4, 2, 0.0, 57);
  TrainConfig logistic;
  logistic.epochs = 1;
  TrainConfig softmax = logistic;
  softmax.model = ModelKind::kSoftmax;
  TrainConfig mlp = logistic;
  mlp.model = ModelKind::kMlp;
  mlp.hidden = {4};
  const LinearModel binary_model = Trainer(logistic, binary, nullptr, *executor).model();
  const LinearModel softmax_model = Trainer(softmax, three, nullptr, *executor).model();
  const MlpModel mlp_model = Trainer(mlp, three, nullptr, *executor).mlp_model();
  ASSERT_EQ(four.features(), 20u);
  ASSERT_EQ(wider.features(), 25u);
  // The binary problem relabelled 1/2: two classes again, of other label values.
  std::vector<testing::Entries> rows(binary.rows());
  std::vector<float> twelve(binary.rows());
  for (uint64_t i = 0; i < binary.rows(); ++i) {
    const SparseRow r = binary.row(i);
    for (uint32_t e = 0; e < r.nnz; ++e) rows[i].push_back({r.index[e], r.value[e]});
    twelve[i] = binary.labels()[i] > 0 ? 2.f : 1.f;
  }
  const Dataset relabelled = testing::MakeDataset(rows, twelve, binary.features(), "problem");

  struct Case {
    Model model;
    TrainConfig config;
    const Dataset* data;
    std::string expected;
  };
  TrainConfig hinge = logistic;
  hinge.model = ModelKind::kHinge;
  TrainConfig mlp8 = mlp;
  mlp8.hidden = {8};
  const std::vector<Case> cases = {
      {binary_model, logistic, &wider, "features: start model 20, this run 25 (the training data)"},
      {softmax_model, softmax, &four, "classes: start model 3, this run 4 (the training data)"},
      {softmax_model, logistic, &binary,
       "model: start model softmax (linear, 3 classes), this run logistic (linear, binary)"},
      {mlp_model, softmax, &three, "model: start model mlp 20-4-3, this run softmax (linear, 3 classes)"},
      {softmax_model, mlp, &three, "model: start model softmax (linear, 3 classes), this run mlp 20-4-3"},
      {mlp_model, mlp8, &three, "hidden: start model 4, this run 8"},
      {mlp_model, mlp, &four, "classes: start model 3, this run 4 (the training data)"},
      {binary_model, logistic, &relabelled, "labels: start model -1, 1, this run 1, 2 (the training data)"},
  };
  for (const Case& k : cases) {
    const std::string what = Refusal(k.model, k.config, *k.data);
    EXPECT_NE(what.find(k.expected), std::string::npos) << what;
    EXPECT_NE(what.find("the model does not fit this run on problem"), std::string::npos) << what;
  }
  // A binary model starts another binary loss: the same weights, a score whose sign is the class.
  EXPECT_EQ(Refusal(binary_model, hinge, binary), "(accepted)");
}

// train --init: the command line around StartFrom.
class Init : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(testing::RunCli("gen " + dir_.File("d.svm") +
                              " --rows 600 --features 100 --nnz 8 --seed 7").status,
              0);
    data_ = dir_.File("d.svm");
  }
  testing::TempDir dir_;
  std::string data_;
};

TEST_F(Init, AModelFileStartsTheRun) {
  const std::string common = "train --train " + data_ +
                             " --scheme sequential --order sequential --schedule constant --threads 1 ";
  ASSERT_EQ(testing::RunCli(common + "--epochs 6 --quiet --save " + dir_.File("six.model")).status, 0);
  ASSERT_EQ(testing::RunCli(common + "--epochs 3 --quiet --save " + dir_.File("three.model")).status, 0);
  const auto r = testing::RunCli(common + "--epochs 3 --init " + dir_.File("three.model") +
                                 " --save " + dir_.File("more.model"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("starting from the model in " + dir_.File("three.model")), std::string::npos)
      << r.output;
  const LoadedModel six = LoadModel(dir_.File("six.model"));
  const LoadedModel more = LoadModel(dir_.File("more.model"));
  EXPECT_TRUE(SameBits(Params(six.model), Params(more.model)));
  EXPECT_NE(more.settings.find("init=" + dir_.File("three.model")), std::string::npos);
}

TEST_F(Init, AnMlpModelGivesItsKindAndHiddenSizes) {
  std::string text;
  Rng rng(4);
  for (int i = 0; i < 300; ++i) {
    const float a = static_cast<float>(rng.UniformDouble()), b = static_cast<float>(rng.UniformDouble());
    text += fmt::format("{} 1:{} 2:{}\n", a > b ? 1 : 0, a, b);
  }
  const std::string classes = dir_.Write("classes.svm", text);
  const std::string model = dir_.File("mlp.model");
  ASSERT_EQ(testing::RunCli("train --train " + classes + " --model mlp --hidden 6 --epochs 2 --quiet --save " + model).status, 0);
  const auto r = testing::RunCli("train --train " + classes + " --epochs 1 --init " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("model mlp 2-6-2"), std::string::npos) << r.output;
  const auto linear = testing::RunCli("train --train " + classes + " --epochs 1 --model softmax --init " + model);
  EXPECT_EQ(linear.status, 1);
  EXPECT_NE(linear.output.find("--init " + model + ": the model does not fit this run on " + classes),
            std::string::npos)
      << linear.output;
  EXPECT_NE(linear.output.find("model: start model mlp 2-6-2, this run softmax (linear, 2 classes)"),
            std::string::npos)
      << linear.output;
}

TEST_F(Init, IsRefusedWithResumeAndWhenTheDataIsWider) {
  const std::string model = dir_.File("m.model");
  ASSERT_EQ(testing::RunCli("train --train " + data_ + " --epochs 1 --quiet --save " + model).status, 0);
  const auto both = testing::RunCli("train --train " + data_ + " --init " + model + " --resume x.ckpt");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.output.find("--init and --resume"), std::string::npos) << both.output;
  // The data is read as wide as the model: an index beyond it is an error of the file.
  const std::string wide = dir_.Write("wide.svm", "1 1:1 150:1\n-1 2:1\n");
  const auto r = testing::RunCli("train --train " + wide + " --init " + model);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("150"), std::string::npos) << r.output;
  const uint64_t features = std::get<LinearModel>(LoadModel(model).model).features();
  const auto given = testing::RunCli("train --train " + wide + " --features 150 --init " + model);
  EXPECT_EQ(given.status, 1);
  EXPECT_NE(given.output.find(fmt::format("features: start model {}, this run 150", features)),
            std::string::npos)
      << given.output;
}

}  // namespace
}  // namespace parsgd
