#include "parsgd/model/targets.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;

Dataset WithLabels(const std::vector<float>& labels, const std::string& source = "d") {
  std::vector<testing::Entries> rows(labels.size(), testing::Entries{{0, 1.f}});
  return testing::MakeDataset(rows, labels, 1, source);
}

std::vector<float> Values(const Targets& t) { return {t.values.begin(), t.values.end()}; }

TEST(Targets, AnyTwoValuesMakeABinaryProblemWithTheLargerPositive) {
  const Targets t = MakeTargets(ModelKind::kLogistic, WithLabels({2, 1, 1, 2}));
  EXPECT_EQ(t.labels.values, (std::vector<float>{1, 2}));
  EXPECT_EQ(Values(t), (std::vector<float>{1, -1, -1, 1}));
  EXPECT_EQ(t.classes, 2);
  EXPECT_EQ(MakeTargets(ModelKind::kHinge, WithLabels({-1, 0, 0})).labels.values,
            (std::vector<float>{-1, 0}));
  EXPECT_EQ(Values(MakeTargets(ModelKind::kSquared, WithLabels({0, 1, -0.f}))),
            (std::vector<float>{-1, 1, -1}));  // -0 is the label 0
}

TEST(Targets, OneClassOfTheUsualPairsIsCompletedAsBefore) {
  EXPECT_EQ(MakeTargets(ModelKind::kLogistic, WithLabels({1, 1})).labels.values,
            (std::vector<float>{-1, 1}));
  EXPECT_EQ(MakeTargets(ModelKind::kLogistic, WithLabels({-1})).labels.values,
            (std::vector<float>{-1, 1}));
  EXPECT_EQ(MakeTargets(ModelKind::kLogistic, WithLabels({0, 0})).labels.values,
            (std::vector<float>{0, 1}));
  ExpectError([] { MakeTargets(ModelKind::kLogistic, WithLabels({5, 5})); },
              {"d: model logistic is binary and needs two label values, the data has 1: 5"});
}

TEST(Targets, MoreThanTwoValuesForABinaryModelAreListed) {
  ExpectError([] { MakeTargets(ModelKind::kHinge, WithLabels({3, 1, 2, 1})); },
              {"d: model hinge is binary and needs two label values, the data has 3: 1, 2, 3",
               "softmax or mlp"});
  std::vector<float> many;
  for (int i = 0; i < 24; ++i) many.push_back(static_cast<float>(i % 12));
  ExpectError([&] { MakeTargets(ModelKind::kLogistic, WithLabels(many)); },
              {"the data has 12: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (12 in all)"});
}

// More distinct labels than half the rows (and more than 10) are values or ids, not classes: a
// regression target or the wrong column, named as such, for the binary models (the default);
// softmax and the MLP, models of classes only and so asked for by name, take them as classes.
TEST(Targets, MoreLabelsThanHalfTheRowsAreNotClasses) {
  std::vector<float> values;
  for (int i = 0; i < 40; ++i) values.push_back(0.25f * static_cast<float>(i % 30));
  for (ModelKind kind : {ModelKind::kLogistic, ModelKind::kSquared}) {
    ExpectError([&] { MakeTargets(kind, WithLabels(values)); },
                {"d: 30 distinct labels in 40 rows: real values or ids, not classes",
                 "check --label-column"});
  }
  for (ModelKind kind : {ModelKind::kSoftmax, ModelKind::kMlp}) {
    EXPECT_EQ(MakeTargets(kind, WithLabels(values)).classes, 30);
  }
  // 20 distinct in 20 rows, but told the classes (a batch of partial_fit's).
  values.resize(20);
  Dataset::Parts parts = WithLabels(values).parts();
  parts.declared_classes = values;
  std::sort(parts.declared_classes.begin(), parts.declared_classes.end());
  EXPECT_EQ(MakeTargets(ModelKind::kSoftmax, Dataset(parts)).classes, 20);
}

TEST(Targets, ClassesAreTheSortedDistinctLabels) {
  const Targets t = MakeTargets(ModelKind::kSoftmax, WithLabels({3, 1, 3, 1, 3}));
  EXPECT_EQ(t.classes, 2);  // not 4: 0 and 2 never appear
  EXPECT_EQ(t.labels.values, (std::vector<float>{1, 3}));
  EXPECT_EQ(Values(t), (std::vector<float>{1, 0, 1, 0, 1}));
  const Targets any = MakeTargets(ModelKind::kMlp, WithLabels({-2.5f, 7, 0.5f, 7}));
  EXPECT_EQ(any.labels.values, (std::vector<float>{-2.5f, 0.5f, 7}));
  EXPECT_EQ(Values(any), (std::vector<float>{0, 2, 1, 2}));
  // Class ids 0..K-1 keep their meaning.
  const Targets ids = MakeTargets(ModelKind::kSoftmax, WithLabels({2, 0, 1}));
  EXPECT_EQ(Values(ids), (std::vector<float>{2, 0, 1}));
}

TEST(Targets, MultiClassNeedsTwoToTwoTo16Classes) {
  ExpectError([] { MakeTargets(ModelKind::kSoftmax, WithLabels({4, 4})); },
              {"d: every row has the label 4: model softmax needs at least two classes"});
  std::vector<float> many;
  for (int i = 0; i <= 65536; ++i) many.push_back(static_cast<float>(i));
  ExpectError([&] { MakeTargets(ModelKind::kMlp, WithLabels(many)); },
              {"more than 65536 distinct labels (model mlp makes one class of each)"});
}

TEST(Targets, OtherDataIsMappedWithTheTrainingLabels) {
  const ClassLabels trained{{1, 3, 8}};
  const Targets t = MakeTargets(ModelKind::kSoftmax, WithLabels({8, 1, 8}), trained);
  EXPECT_EQ(Values(t), (std::vector<float>{2, 0, 2}));
  EXPECT_EQ(t.classes, 3);  // a class absent from the test data is still a class
  ExpectError([&] { MakeTargets(ModelKind::kSoftmax, WithLabels({1, 3, 2}, "test.svm"), trained); },
              {"test.svm: row 3: label 2: the model was trained on the labels 1, 3, 8 and never "
               "saw this one"});
  ExpectError([] { MakeTargets(ModelKind::kLogistic, WithLabels({1, 0}), ClassLabels{{1, 2}}); },
              {"row 2: label 0"});
}

// Relabelled data trains the same model, bit for bit: only the labels the model keeps differ.
TEST(Targets, RelabelledDataTrainsTheSameModel) {
  const Dataset binary = testing::MakeProblem(400, 30, 6, 2, 0.05, 3);
  const Dataset classes = testing::MakeProblem(400, 30, 6, 3, 0.05, 4);
  auto relabel = [](const Dataset& d, auto map) {
    std::vector<testing::Entries> rows(d.rows());
    std::vector<float> labels(d.rows());
    for (uint64_t i = 0; i < d.rows(); ++i) {
      const SparseRow r = d.row(i);
      for (uint32_t k = 0; k < r.nnz; ++k) rows[i].push_back({r.index[k], r.value[k]});
      labels[i] = map(d.label(i));
    }
    return testing::MakeDataset(rows, labels, d.features());
  };
  const Dataset one_two = relabel(binary, [](float y) { return y > 0 ? 2.f : 1.f; });
  const Dataset spread = relabel(classes, [](float y) { return 10.f * y - 5.f; });  // -5, 5, 15
  auto executor = MakeTbbExecutor(1);
  for (Backend backend : {Backend::kCpu, Backend::kOffload}) {
    TrainConfig config;
    config.scheme = SchemeKind::kSequential;
    config.epochs = 2;
    config.threads = 1;
    config.backend = backend;
    const LinearModel a = testing::TrainModel(config, binary, *executor);
    const LinearModel b = testing::TrainModel(config, one_two, *executor);
    EXPECT_TRUE(testing::SameBits(a, b));
    EXPECT_EQ(b.labels().values, (std::vector<float>{1, 2}));
    config.model = ModelKind::kSoftmax;
    const LinearModel c = testing::TrainModel(config, classes, *executor);
    const LinearModel d = testing::TrainModel(config, spread, *executor);
    EXPECT_TRUE(testing::SameBits(c, d));
    EXPECT_EQ(d.outputs(), 3);
    EXPECT_EQ(d.labels().values, (std::vector<float>{-5, 5, 15}));
  }
  TrainConfig mlp;
  mlp.model = ModelKind::kMlp;
  mlp.hidden = {4};
  mlp.scheme = SchemeKind::kSequential;
  mlp.epochs = 1;
  mlp.threads = 1;
  Trainer e(mlp, classes, nullptr, *executor);
  Trainer f(mlp, spread, nullptr, *executor);
  e.RunEpoch();
  f.RunEpoch();
  const auto pe = e.mlp_model().params(), pf = f.mlp_model().params();
  ASSERT_EQ(pe.size(), pf.size());
  EXPECT_EQ(std::memcmp(pe.data(), pf.data(), pe.size_bytes()), 0);
  EXPECT_EQ(f.mlp_model().labels().values, (std::vector<float>{-5, 5, 15}));
}

TEST(Targets, TestDataWithALabelTrainingNeverSawIsRefusedBeforeTraining) {
  auto executor = MakeTbbExecutor(1);
  const Dataset train = WithLabels({1, 2, 1, 2}, "train.svm");
  const Dataset test = WithLabels({1, 3}, "test.svm");
  TrainConfig config;
  config.scheme = SchemeKind::kSequential;
  config.epochs = 1;
  ExpectError([&] { Trainer(config, train, &test, *executor); },
              {"test.svm: row 2: label 3: the model was trained on the labels 1, 2"});
}

// `data` with its labels declared as `kind`, drawn from `classes` (empty: undeclared).
Dataset Declared(const Dataset& data, LabelKind kind, std::vector<float> classes = {}) {
  Dataset::Parts parts;
  parts.offsets = data.offsets();
  parts.indices = data.indices();
  parts.values = data.values();
  parts.labels = data.labels();
  parts.features = data.features();
  parts.source = data.source();
  parts.label_kind = kind;
  parts.declared_classes = std::move(classes);
  return Dataset(std::move(parts));
}

TEST(Targets, DeclaredClassesAreTheClassesEvenWhereTheRowsLackSome) {
  const Targets t = MakeTargets(ModelKind::kSoftmax,
                                Declared(WithLabels({0, 1, 0}), LabelKind::kClasses, {0, 1, 2}));
  EXPECT_EQ(t.classes, 3);
  EXPECT_EQ(t.labels.values, (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(Values(t), (std::vector<float>{0, 1, 0}));
  const Targets binary =
      MakeTargets(ModelKind::kHinge, Declared(WithLabels({7, 7}), LabelKind::kClasses, {3, 7}));
  EXPECT_EQ(binary.labels.values, (std::vector<float>{3, 7}));
  EXPECT_EQ(Values(binary), (std::vector<float>{1, 1}));
  ExpectError(
      [] {
        MakeTargets(ModelKind::kSoftmax,
                    Declared(WithLabels({0, 5}), LabelKind::kClasses, {0, 1, 2}));
      },
      {"d: row 2: label 5: the model was trained on the labels 0, 1, 2"});
  ExpectError(
      [] {
        MakeTargets(ModelKind::kLogistic,
                    Declared(WithLabels({0, 1}), LabelKind::kClasses, {0, 1, 2}));
      },
      {"needs two label values, the data has 3"});
  ExpectError(
      [] {
        Declared(WithLabels({0, 1}), LabelKind::kClasses, {1, 0});
      },
      {"d: the declared classes are not finite and strictly ascending"});
  ExpectError(
      [] {
        Declared(WithLabels({0, 1}), LabelKind::kValues, {0, 1});
      },
      {"d: declared classes for real-valued labels"});
}

TEST(Targets, RealValuedLabelsAreTheTargetsOfTheRegressionModelsOnly) {
  const Dataset data = Declared(WithLabels({2.5f, -7, 0, 1e6f}), LabelKind::kValues);
  for (const Targets& t :
       {MakeTargets(ModelKind::kSquared, data),
        MakeTargets(ModelKind::kSquared, data, ClassLabels{{-1, 1}}),
        MakeTargets(ModelKind::kHuber, data), MakeTargets(ModelKind::kEpsilonInsensitive, data)}) {
    EXPECT_EQ(Values(t), (std::vector<float>{2.5f, -7, 0, 1e6f}));
    EXPECT_EQ(t.labels.values, (std::vector<float>{-1, 1}));
    EXPECT_TRUE(t.regression);
  }
  ExpectError([&] { MakeTargets(ModelKind::kLogistic, data); },
              {"d: real-valued labels are regressed by the models squared, huber and "
               "epsilon-insensitive, not by logistic"});
  ExpectError([&] { MakeTargets(ModelKind::kSoftmax, data); }, {"not by softmax"});
}

// y = 2 x0 - 3 x1 + 0.5 exactly: without L2 the least-squares optimum is those weights, which the
// squared model reaches on the real-valued labels (on +-1 targets it would fit their signs).
TEST(Targets, ModelSquaredRegressesRealValuedLabels) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 200; ++i) {
    const float a = static_cast<float>(i % 13) / 13.f, b = static_cast<float>(i % 7) / 7.f;
    rows.push_back({{0, a}, {1, b}});
    labels.push_back(2 * a - 3 * b + 0.5f);
  }
  const Dataset data = Declared(testing::MakeDataset(rows, labels, 2), LabelKind::kValues);
  TrainConfig config;
  config.model = ModelKind::kSquared;
  config.scheme = SchemeKind::kSequential;
  config.threads = 1;
  config.epochs = 200;
  config.l2 = 0;
  auto executor = MakeTbbExecutor(1);
  const LinearModel m = testing::TrainModel(config, data, *executor);
  EXPECT_NEAR(m.weights()[0], 2, 1e-3);
  EXPECT_NEAR(m.weights()[1], -3, 1e-3);
  EXPECT_NEAR(m.bias()[0], 0.5, 1e-3);
}

}  // namespace
}  // namespace parsgd
