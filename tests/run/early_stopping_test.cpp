// Early stopping on held-out rows: HoldOut's seeded, stratified cut; every epoch measured on the
// held-out rows; the run stops after --patience epochs without a better one and ends with the best
// epoch's model; a resumed run keeps the best so far; the command line's --validation FILE.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/holdout.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(2000, 30, 8, 3, 0.1, 31);
  return data;
}

// Each row's (label, its entries) as a string: to match the parts' rows to the whole's.
std::multiset<std::string> RowTexts(const Dataset& d) {
  std::multiset<std::string> out;
  for (uint64_t i = 0; i < d.rows(); ++i) {
    const SparseRow x = d.row(i);
    std::string t = std::to_string(d.label(i));
    for (uint32_t e = 0; e < x.nnz; ++e) {
      t += " " + std::to_string(x.index[e]) + ":" + std::to_string(x.value[e]);
    }
    out.insert(t);
  }
  return out;
}

TEST(HoldOut, CutsEveryClassByTheFractionAndTheSeed) {
  const Dataset& data = Problem();
  const Holdout h = HoldOut(data, 0.2, 7);
  EXPECT_EQ(h.kept.rows() + h.held.rows(), data.rows());
  EXPECT_EQ(h.kept.features(), data.features());
  // The two parts together are the whole's rows.
  std::multiset<std::string> both = RowTexts(h.kept);
  for (const std::string& t : RowTexts(h.held)) both.insert(t);
  EXPECT_EQ(both, RowTexts(data));
  // Each class's share held out is the fraction, rounded.
  std::map<float, int> all, held;
  for (uint64_t i = 0; i < data.rows(); ++i) ++all[data.label(i)];
  for (uint64_t i = 0; i < h.held.rows(); ++i) ++held[h.held.label(i)];
  ASSERT_EQ(all.size(), 3u);
  for (const auto& [label, n] : all) EXPECT_NEAR(held[label], 0.2 * n, 0.51) << label;
  // Both parts know every class.
  EXPECT_EQ(h.held.declared_classes(), (std::vector<float>{0.f, 1.f, 2.f}));
  EXPECT_EQ(h.kept.declared_classes(), h.held.declared_classes());
  // The same seed cuts the same rows; another seed others.
  EXPECT_EQ(RowTexts(HoldOut(data, 0.2, 7).held), RowTexts(h.held));
  EXPECT_NE(RowTexts(HoldOut(data, 0.2, 8).held), RowTexts(h.held));
  // Too few rows to cut in two: refused, naming the data.
  const Dataset one = testing::MakeDataset({{{0, 1.f}}}, {1.f}, 1, "one.svm");
  try {
    HoldOut(one, 0.5, 1);
    FAIL() << "a single row was cut";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "one.svm")) << e.what();
  }
}

TrainConfig Config(int epochs, double fraction) {
  TrainConfig c;
  c.model = ModelKind::kSoftmax;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = epochs;
  c.validation_fraction = fraction;
  c.patience = 3;
  return c;
}

// The run ends with the best epoch's model: the same bits as a run of the same settings stopped
// by hand after that epoch.
TEST(EarlyStopping, TheRunEndsWithTheBestEpochsModel) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Config(25, 0.2);
  c.learning_rate = 2;  // steps large enough that the held-out loss goes up and down
  c.schedule = ScheduleKind::kConstant;
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_TRUE(trainer.early_stopping());
  std::vector<EpochReport> reports;
  const RunLoopResult r =
      RunEpochs(trainer, {}, [&](const EpochReport& e, double) { reports.push_back(e); });
  ASSERT_TRUE(r.best.has_value());
  // The best is the lowest held-out loss of the epochs run.
  const auto lowest = std::min_element(reports.begin(), reports.end(), [](auto& a, auto& b) {
    return *a.validation_loss < *b.validation_loss;
  });
  EXPECT_EQ(r.best->epoch, lowest->epoch);
  for (const EpochReport& e : reports) EXPECT_TRUE(e.validation_accuracy.has_value());
  Trainer again(c, data, nullptr, *executor);
  for (int e = 0; e < r.best->epoch; ++e) again.RunEpoch();
  EXPECT_TRUE(testing::SameBits(trainer.model(), again.model()));
  if (r.last.epoch < 25) {  // stopped: patience epochs after the best without a better one
    EXPECT_TRUE(r.last.converged);
    EXPECT_GE(r.last.epoch - r.best->epoch, c.patience);
  }
}

// Held-out rows whose labels are the training rows' shifted by one class: the better the model
// fits the training rows, the worse it does on them, so the first epoch is the best and the run
// stops `patience` epochs later.
TEST(EarlyStopping, StopsAfterPatienceEpochsWithoutABetterOne) {
  const Dataset& data = Problem();
  Dataset::Parts parts = data.parts();
  AlignedArray<float> labels(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) labels[i] = std::fmod(data.label(i) + 1.f, 3.f);
  parts.labels = SharedArray<float>(std::move(labels));
  const Dataset wrong(std::move(parts));
  auto executor = MakeTbbExecutor(1);
  for (const ValidationMetric metric : {ValidationMetric::kLoss, ValidationMetric::kAccuracy}) {
    TrainConfig c = Config(30, 0);
    c.held_out_file = true;
    c.validation_metric = metric;
    Trainer trainer(c, data, nullptr, *executor, nullptr, &wrong);
    const RunLoopResult r = RunEpochs(trainer, {}, [](const EpochReport&, double) {});
    ASSERT_TRUE(r.best.has_value());
    EXPECT_LT(r.best->epoch, 5);
    EXPECT_EQ(r.last.epoch, r.best->epoch + c.patience);
    EXPECT_TRUE(r.last.converged);
  }
}

// A resumed run keeps the best epoch so far (its model and report): it ends where the straight run
// ends, with the same model.
TEST(EarlyStopping, AResumedRunKeepsTheBestSoFar) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Config(14, 0.2);
  c.learning_rate = 2;
  c.schedule = ScheduleKind::kConstant;
  c.patience = 100;  // run every epoch
  Trainer straight(c, data, nullptr, *executor);
  const RunLoopResult whole = RunEpochs(straight, {}, [](const EpochReport&, double) {});
  for (int stop : {3, 9}) {
    Trainer first(c, data, nullptr, *executor);
    for (int e = 0; e < stop; ++e) first.RunEpoch();
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(first.Snapshot());
    const RunLoopResult rest = RunEpochs(resumed, {}, [](const EpochReport&, double) {});
    ASSERT_TRUE(rest.best.has_value());
    EXPECT_EQ(rest.best->epoch, whole.best->epoch) << stop;
    EXPECT_EQ(*rest.best->validation_loss, *whole.best->validation_loss) << stop;
    EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model())) << stop;
  }
  EXPECT_TRUE(
      testing::Contains(straight.RunIdentity(), "\nvalidation_fraction=0.20000000000000001\n"));
}

// --validation-metric auc: the held-out rows' ROC AUC each epoch, the best epoch the highest's;
// refused where the model has more than two classes.
TEST(EarlyStopping, TheAucMetricKeepsTheEpochOfTheHighestAuc) {
  const Dataset data = testing::MakeProblem(2000, 30, 8, 2, 0.1, 32);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Config(12, 0.25);
  c.model = ModelKind::kLogistic;
  c.validation_metric = ValidationMetric::kAuc;
  c.learning_rate = 5;
  c.schedule = ScheduleKind::kConstant;
  Trainer trainer(c, data, nullptr, *executor);
  std::vector<EpochReport> reports;
  const RunLoopResult r =
      RunEpochs(trainer, {}, [&](const EpochReport& e, double) { reports.push_back(e); });
  ASSERT_TRUE(r.best.has_value());
  double highest = 0;
  int at = 0;
  for (const EpochReport& e : reports) {
    ASSERT_TRUE(e.validation_auc.has_value());
    EXPECT_GT(*e.validation_auc, 0.5);
    EXPECT_LE(*e.validation_auc, 1.0);
    if (*e.validation_auc > highest) highest = *e.validation_auc, at = e.epoch;
  }
  EXPECT_EQ(r.best->epoch, at);
  TrainConfig three = Config(2, 0.25);
  three.validation_metric = ValidationMetric::kAuc;
  testing::ExpectError([&] { Trainer t(three, Problem(), nullptr, *executor); },
                       {"validation-metric", "auc", "3 classes"});
}

TEST(EarlyStopping, ItsSettingsAreRefusedWithoutHeldOutRows) {
  using testing::Refusal;
  TrainConfig c;
  c.validation_fraction = 0.1;
  c.held_out_file = true;
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  EXPECT_TRUE(testing::Contains(Refusal(c), "validation-fraction")) << Refusal(c);
  EXPECT_THROW([&] { Trainer t(c, data, nullptr, *executor, nullptr, &data); }(), Error);
  c.held_out_file = false;
  c.validation_fraction = 0;
  const testing::CliResult patience =
      testing::RunCli("train --train " + testing::SourcePath("data/fixtures/cd_bias.svm") +
                      " --schedule linear --patience 3");
  EXPECT_EQ(patience.status, 2);
  EXPECT_TRUE(testing::Contains(patience.output, "--patience 3 would be ignored"))
      << patience.output;
  EXPECT_TRUE(testing::Contains(patience.output, "this run has none of them")) << patience.output;
  // --schedule auto: refused once the data says the schedule is linear (20 planned epochs)...
  const testing::CliResult planned =
      testing::RunCli("train --train " + testing::SourcePath("data/fixtures/cd_bias.svm") +
                      " --epochs 20 --patience 3");
  EXPECT_EQ(planned.status, 2);
  EXPECT_TRUE(testing::Contains(planned.output, "--patience 3 would be ignored: --schedule auto "
                                                "is linear for this run's 20 planned epochs"))
      << planned.output;
  // ... and taken where it is adaptive (the automatic epochs of 300 rows: 1000).
  const testing::CliResult adaptive = testing::RunCli(
      "train --train " + testing::SourcePath("data/fixtures/cd_bias.svm") + " --patience 3");
  EXPECT_EQ(adaptive.status, 0) << adaptive.output;
  EXPECT_TRUE(testing::Contains(adaptive.output, "--schedule adaptive (auto)")) << adaptive.output;
  EXPECT_TRUE(testing::Contains(adaptive.output, "the step falls to a quarter once 3 epochs in a row"))
      << adaptive.output;
  const testing::CliResult metric =
      testing::RunCli("train --train " + testing::SourcePath("data/fixtures/cd_bias.svm") +
                      " --validation-metric accuracy --tol 1e-3");
  EXPECT_EQ(metric.status, 2);
  EXPECT_TRUE(testing::Contains(metric.output, "holds none out")) << metric.output;
}

// --refit: the run again on all the rows for the best epoch's count, its model the one saved; refused
// where nothing is held out or a checkpoint would cover the first run only.
TEST(EarlyStopping, ARefitTrainsAgainOnAllTheRows) {
  testing::TempDir dir;
  const std::string data = testing::SourcePath("data/fixtures/cd_bias.svm");
  const std::string run = "train --train " + data + " --threads 1 --validation-fraction 0.2 ";
  const testing::CliResult refit = testing::RunCli(run + "--refit --save " + dir.File("r.model"));
  ASSERT_EQ(refit.status, 0) << refit.output;
  // 300 rows: 240 trained on first, all 300 in the refit, for the best epoch's count.
  EXPECT_TRUE(testing::Contains(refit.output, "parsgd train: 300 rows")) << refit.output;
  const std::size_t best = refit.output.find("best epoch ");
  ASSERT_NE(best, std::string::npos) << refit.output;
  const int epoch = std::stoi(refit.output.substr(best + 11));
  EXPECT_TRUE(testing::Contains(refit.output, "its epochs are the refit's")) << refit.output;
  EXPECT_TRUE(testing::Contains(
      refit.output, "refit: all 300 training rows, " + std::to_string(epoch) + " epochs"))
      << refit.output;
  const std::string last = std::to_string(epoch) + "/" + std::to_string(epoch) + " ";
  EXPECT_TRUE(testing::Contains(refit.output, " " + last)) << refit.output;
  // The model saved is the refit's: it differs from the early-stopped run's.
  const testing::CliResult kept = testing::RunCli(run + "--save " + dir.File("k.model"));
  ASSERT_EQ(kept.status, 0) << kept.output;
  EXPECT_NE(testing::ReadFile(dir.File("r.model")), testing::ReadFile(dir.File("k.model")));

  const testing::CliResult alone =
      testing::RunCli("train --train " + data + " --threads 1 --refit");
  EXPECT_EQ(alone.status, 2);
  EXPECT_TRUE(testing::Contains(alone.output, "--refit would be ignored")) << alone.output;
  const testing::CliResult checkpointed =
      testing::RunCli(run + "--refit --checkpoint " + dir.File("c.ckpt"));
  EXPECT_EQ(checkpointed.status, 2);
  EXPECT_TRUE(testing::Contains(checkpointed.output, "--refit with --checkpoint or --resume"))
      << checkpointed.output;
}

// The command line: --validation FILE, the columns, the last lines, the metrics.
TEST(EarlyStopping, TheCommandLineMeasuresAFileAndKeepsTheBestModel) {
  testing::TempDir dir;
  const std::string train = dir.File("t.bin"), held = dir.File("v.bin");
  ASSERT_EQ(
      testing::RunCli("gen " + train + " --rows 3000 --features 300 --nnz 10 --seed 5").status, 0);
  ASSERT_EQ(testing::RunCli("gen " + held + " --rows 600 --features 300 --nnz 10 --seed 6").status,
            0);
  const testing::CliResult run =
      testing::RunCli("train --train " + train + " --validation " + held +
                      " --epochs 12 --patience 2 --threads 1 "
                      "--metrics " +
                      dir.File("m.jsonl") + " --save " + dir.File("m.model"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "val-loss")) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "best epoch ")) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "--patience 2")) << run.output;
  const std::vector<std::string> lines = testing::Lines(testing::ReadFile(dir.File("m.jsonl")));
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(testing::Contains(lines.back(), "\"validation_loss\":")) << lines.back();
  EXPECT_TRUE(testing::Contains(lines.back(), "\"best_epoch\":")) << lines.back();
  const testing::CliResult both = testing::RunCli("train --train " + train + " --validation " +
                                                  held + " --validation-fraction 0.1");
  EXPECT_EQ(both.status, 2) << both.output;
}

}  // namespace
}  // namespace parsgd
