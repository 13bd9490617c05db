// The offload backend against the CPU backend. In CI (no GPU) the target regions run on the host
// fallback; on a GPU machine the same tests compare the device with the CPU.
//
// Agreement, as the two backends run the same step functions on the same sample order:
//  - sequential and atomic with one worker, and the asynchronous schemes' objective: the device's
//    libm (exp, and log in the softmax loss) may round differently from the host's, so weights
//    agree to 1e-4 relative, not bit for bit (on the host fallback they are in fact identical);
//  - sync: the minibatch gradient is summed with float atomics in no fixed order, so the sums
//    differ by reassociation only: weights within 1e-4 relative after 3 epochs;
//  - hogwild and atomic with several workers interleave differently run to run on either backend:
//    only the reached objective is compared (within 5%).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <tuple>

#include "parsgd/io/checkpoint.hpp"
#include "parsgd/offload/device.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

struct Outcome {
  LinearModel model;
  EpochReport last;
};

Outcome Train(const TrainConfig& config, const Dataset& train, const Dataset* test, Executor& executor) {
  Trainer trainer(config, train, test, executor);
  Outcome run;
  for (int e = 0; e < trainer.settings().epochs; ++e) run.last = trainer.RunEpoch();
  run.model = trainer.model();
  return run;
}

// max |a - b| / (1 + max |a|) over the weights.
double RelativeGap(const LinearModel& a, const LinearModel& b) {
  EXPECT_EQ(a.weights().size(), b.weights().size());
  double gap = 0, scale = 0;
  for (std::size_t i = 0; i < a.weights().size(); ++i) {
    gap = std::max(gap, static_cast<double>(std::abs(a.weights()[i] - b.weights()[i])));
    scale = std::max(scale, static_cast<double>(std::abs(a.weights()[i])));
  }
  return gap / (1 + scale);
}

TrainConfig Config(ModelKind model, SchemeKind scheme, OrderKind order, OptimizerKind optimizer,
                   int threads) {
  TrainConfig c;
  c.model = model;
  c.scheme = scheme;
  c.order = order;
  c.optimizer.kind = optimizer;
  c.threads = threads;
  c.epochs = 3;
  c.seed = 5;
  return c;
}

using Case = std::tuple<ModelKind, SchemeKind, OrderKind, OptimizerKind>;

class OffloadMatchesCpu : public ::testing::TestWithParam<Case> {};

TEST_P(OffloadMatchesCpu, WeightsAndMetrics) {
  const auto [model, scheme, order, optimizer] = GetParam();
  const int classes = model == ModelKind::kSoftmax ? 4 : 2;
  const Dataset train = testing::MakeProblem(1500, 60, 7, classes, 0.05, 31);
  const Dataset test = testing::MakeProblem(400, 60, 7, classes, 0.05, 31);  // the same problem
  // sync shares each minibatch among 2 workers' shards on both backends.
  const int threads = scheme == SchemeKind::kSync ? 2 : 1;
  TrainConfig cpu = Config(model, scheme, order, optimizer, threads);
  TrainConfig offload = cpu;
  offload.backend = Backend::kOffload;
  auto executor = MakeTbbExecutor(threads);  // the CPU backend's workers
  const Outcome a = Train(cpu, train, &test, *executor);
  const Outcome b = Train(offload, train, &test, *executor);
  EXPECT_LT(RelativeGap(a.model, b.model), 1e-4);
  EXPECT_NEAR(a.last.objective, b.last.objective, 1e-5 * (1 + a.last.objective));
  EXPECT_NEAR(a.last.progressive_loss, b.last.progressive_loss, 1e-5 * (1 + a.last.progressive_loss));
  EXPECT_EQ(a.last.updates, b.last.updates);
  EXPECT_NEAR(*a.last.test_loss, *b.last.test_loss, 1e-5 * (1 + *a.last.test_loss));
  EXPECT_NEAR(*a.last.test_accuracy, *b.last.test_accuracy, 1.0 / 400);
  EXPECT_GT(*b.last.test_accuracy, classes == 2 ? 0.75 : 0.5);  // it learned
}

// Weighted rows (training and test) on both backends: the same weighted steps, objective, losses
// and weighted accuracy.
TEST(Offload, WeighsRowsAsTheCpuDoes) {
  const Dataset plain_train = testing::MakeProblem(1200, 50, 7, 2, 0.05, 41);
  const Dataset plain_test = testing::MakeProblem(300, 50, 7, 2, 0.05, 41);
  auto weights = [](const Dataset& data, uint64_t seed) {
    Rng rng(seed);
    std::vector<float> w(data.rows());
    for (float& v : w) v = static_cast<float>(rng.Uniform(4));  // 0 to 3
    return testing::WithWeights(data, w);
  };
  const Dataset train = weights(plain_train, 1), test = weights(plain_test, 2);
  for (SchemeKind scheme : {SchemeKind::kSequential, SchemeKind::kSync}) {
    SCOPED_TRACE(testing::Name(scheme));
    const int threads = scheme == SchemeKind::kSync ? 2 : 1;
    TrainConfig cpu =
        Config(ModelKind::kLogistic, scheme, OrderKind::kRandom, OptimizerKind::kSgd, threads);
    TrainConfig offload = cpu;
    offload.backend = Backend::kOffload;
    auto executor = MakeTbbExecutor(threads);
    const Outcome a = Train(cpu, train, &test, *executor);
    const Outcome b = Train(offload, train, &test, *executor);
    const Outcome unweighted = Train(offload, plain_train, &plain_test, *executor);
    EXPECT_LT(RelativeGap(a.model, b.model), 1e-4);
    EXPECT_GT(RelativeGap(b.model, unweighted.model), 1e-3);  // the weights moved the model
    EXPECT_NEAR(a.last.objective, b.last.objective, 1e-5 * (1 + a.last.objective));
    EXPECT_NEAR(a.last.progressive_loss, b.last.progressive_loss,
                1e-5 * (1 + a.last.progressive_loss));
    EXPECT_NEAR(*a.last.test_loss, *b.last.test_loss, 1e-5 * (1 + *a.last.test_loss));
    ASSERT_TRUE(b.last.test_weighted_accuracy.has_value());
    EXPECT_NEAR(*a.last.test_weighted_accuracy, *b.last.test_weighted_accuracy, 1e-3);
    EXPECT_NEAR(*a.last.train_weighted_accuracy, *b.last.train_weighted_accuracy, 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, OffloadMatchesCpu,
    ::testing::Combine(::testing::Values(ModelKind::kLogistic, ModelKind::kSoftmax),
                       ::testing::Values(SchemeKind::kSequential, SchemeKind::kAtomic, SchemeKind::kSync),
                       ::testing::Values(OrderKind::kRandom, OrderKind::kGlobal, OrderKind::kLocal),
                       ::testing::Values(OptimizerKind::kSgd)),
    testing::ParamName());

INSTANTIATE_TEST_SUITE_P(
    Optimizers, OffloadMatchesCpu,
    ::testing::Combine(::testing::Values(ModelKind::kHinge, ModelKind::kSquared),
                       ::testing::Values(SchemeKind::kSequential, SchemeKind::kSync),
                       ::testing::Values(OrderKind::kSequential),
                       ::testing::Values(OptimizerKind::kMomentum, OptimizerKind::kNesterov,
                                         OptimizerKind::kAdaGrad, OptimizerKind::kRmsProp,
                                         OptimizerKind::kAdam)),
    testing::ParamName());

TEST(Offload, ConcurrentWorkersReachTheCpuObjective) {
  const Dataset train = testing::MakeProblem(3000, 80, 8, 2, 0.05, 33);
  auto executor = MakeTbbExecutor(2);
  for (SchemeKind scheme : {SchemeKind::kHogwild, SchemeKind::kAtomic}) {
    for (OrderKind order : {OrderKind::kRandom, OrderKind::kGlobal, OrderKind::kLocal}) {
      TrainConfig cpu = Config(ModelKind::kLogistic, scheme, order, OptimizerKind::kSgd, 2);
      cpu.epochs = 5;
      TrainConfig offload = cpu;
      offload.backend = Backend::kOffload;
      const Outcome a = Train(cpu, train, nullptr, *executor);
      const Outcome b = Train(offload, train, nullptr, *executor);
      EXPECT_NEAR(b.last.objective, a.last.objective, 0.05 * a.last.objective)
          << testing::Name(scheme) << " " << testing::Name(order);
      EXPECT_EQ(b.last.updates, train.rows());
    }
  }
}

TEST(Offload, TestSetWiderThanTheModelIsScoredOnTheModelsColumns) {
  // Column 5 is beyond the training data's 3 features: it contributes nothing on either backend.
  const Dataset train = testing::MakeDataset({{{0, 1.f}}, {{1, 1.f}}, {{0, 1.f}, {2, 1.f}}, {{1, 2.f}}},
                                             {1.f, -1.f, 1.f, -1.f}, 3);
  const Dataset test = testing::MakeDataset({{{0, 1.f}, {5, 9.f}}, {{1, 1.f}, {5, -9.f}}}, {1.f, -1.f}, 6);
  auto executor = MakeTbbExecutor(1);
  TrainConfig cpu = Config(ModelKind::kLogistic, SchemeKind::kSequential, OrderKind::kSequential,
                           OptimizerKind::kSgd, 1);
  cpu.epochs = 20;
  TrainConfig offload = cpu;
  offload.backend = Backend::kOffload;
  const Outcome a = Train(cpu, train, &test, *executor);
  const Outcome b = Train(offload, train, &test, *executor);
  EXPECT_NEAR(*a.last.test_loss, *b.last.test_loss, 1e-6);
  EXPECT_EQ(*b.last.test_accuracy, 1.0);
}

TEST(Offload, ReportsWhereItRan) {
  const DeviceInfo info = ProbeDevice();
  EXPECT_EQ(info.devices, omp_get_num_devices());
  EXPECT_NE(DescribeDevice(info).find(fmt::format("({} device", info.devices)), std::string::npos)
      << DescribeDevice(info);
  if (info.ran_on_host) {
    EXPECT_EQ(info.name, "host-fallback");
    EXPECT_NE(DescribeDevice(info).find("host-fallback"), std::string::npos);
  } else {
    EXPECT_GT(info.devices, 0);
    EXPECT_TRUE(info.built_for_device);
    EXPECT_FALSE(info.name.empty());
  }
  const Dataset train = testing::MakeProblem(200, 20, 4, 2, 0.0, 34);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Config(ModelKind::kLogistic, SchemeKind::kHogwild, OrderKind::kGlobal,
                         OptimizerKind::kSgd, 2);
  c.backend = Backend::kOffload;
  Trainer trainer(c, train, nullptr, *executor);
  EXPECT_EQ(trainer.settings().device, info.name);
  EXPECT_EQ(trainer.settings().workers, 2);  // --threads counts the offload workers
}

TEST(Offload, RequireGpuFailsOnTheHostFallback) {
  if (!ProbeDevice().ran_on_host) GTEST_SKIP() << "a device ran the target region";
  const Dataset train = testing::MakeProblem(50, 10, 3, 2, 0.0, 35);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  c.backend = Backend::kOffload;
  c.require_gpu = true;
  try {
    Trainer trainer(c, train, nullptr, *executor);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ran on the host"), std::string::npos) << e.what();
  }
}

TEST(Offload, RefusesWhatItDoesNotRun) {
  auto refused = [](TrainConfig c, const std::string& fragment) {
    try {
      ValidateConfig(c);
      ADD_FAILURE() << "accepted; expected: " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  TrainConfig c;
  c.backend = Backend::kOffload;
  for (SchemeKind s : {SchemeKind::kLocked, SchemeKind::kStriped, SchemeKind::kAverage}) {
    c.scheme = s;
    refused(c, "not " + testing::Name(s));
  }
  c.scheme = SchemeKind::kHogwild;
  c.model = ModelKind::kMlp;
  refused(c, "the mlp runs on the cpu backend");
  TrainConfig cpu;
  cpu.require_gpu = true;
  refused(cpu, "require-gpu would be ignored: it applies to backend offload");  // keys bare in what() (settings_test.cpp)
}

TEST(Offload, CliWritesTheDeviceIntoTheMetrics) {
  testing::TempDir dir;
  const std::string train = dir.Write("t.svm", "1 1:1 3:0.5\n-1 2:1\n1 1:0.5 2:0.1\n-1 2:2 3:0.2\n");
  const std::string metrics = dir.File("m.jsonl");
  const testing::CliResult r = testing::RunCli("train --train " + train + " --backend offload --scheme sync --batch 2 --threads 1 --epochs 2 --metrics " + metrics);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string name = ProbeDevice().name;
  EXPECT_NE(r.output.find("offloaded to " + name), std::string::npos) << r.output;
  const std::string json = testing::ReadFile(metrics);
  EXPECT_NE(json.find("\"backend\":\"offload\","), std::string::npos) << json;
  EXPECT_NE(json.find("\"device\":\"" + name + "\","), std::string::npos) << json;

  const testing::CliResult bad = testing::RunCli("train --train " + train + " --backend offload --scheme locked");
  EXPECT_EQ(bad.status, 2);  // a command-line error
  EXPECT_NE(bad.output.find("not locked"), std::string::npos) << bad.output;
}

// The weights and optimiser state live on the device: a snapshot copies them back, a restore
// (through a checkpoint file) sends them there. Sequential and one-worker hogwild resume to the
// same bits; so does sync on the host fallback (on a GPU its float atomics sum in no fixed order).
TEST(Offload, ResumesFromACheckpointExactly) {
  const bool on_host = ProbeDevice().ran_on_host;
  const Dataset data = testing::MakeProblem(600, 30, 5, 3, 0.05, 46);
  for (SchemeKind scheme : {SchemeKind::kSequential, SchemeKind::kSync, SchemeKind::kHogwild}) {
    TrainConfig c;
    c.model = ModelKind::kSoftmax;
    c.backend = Backend::kOffload;
    c.scheme = scheme;
    c.optimizer.kind = OptimizerKind::kAdam;
    c.threads = 1;  // one device worker: hogwild without interleaving
    c.batch = scheme == SchemeKind::kSync ? 16 : 0;
    c.epochs = 5;
    auto executor = MakeTbbExecutor(1);
    const Outcome straight = Train(c, data, nullptr, *executor);
    testing::TempDir dir;
    {
      Trainer first(c, data, nullptr, *executor);
      for (int e = 0; e < 2; ++e) first.RunEpoch();
      SaveCheckpoint({first.RunIdentity(), first.DataIdentity(), first.Snapshot()}, dir.File("c"));
    }
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(LoadCheckpoint(dir.File("c")).state);
    while (resumed.epochs_done() < c.epochs) resumed.RunEpoch();
    if (scheme == SchemeKind::kSync && !on_host) {
      EXPECT_LT(RelativeGap(straight.model, resumed.model()), 1e-4);
    } else {
      EXPECT_TRUE(testing::SameBits(straight.model, resumed.model())) << testing::Name(scheme);
    }
  }
}

// The stop flag reaches the offload workers: raised before an epoch, the asynchronous epoch stops
// at each worker's first check (its first sample) on the host fallback, and the sync epoch before
// its first minibatch. Restoring the snapshot from before makes the trainer whole.
TEST(Offload, TheStopFlagEndsAnEpochEarly) {
  if (!ProbeDevice().ran_on_host) GTEST_SKIP() << "a device runs the region: no stop inside it";
  const Dataset data = testing::MakeProblem(3000, 30, 5, 2, 0.05, 47);
  for (SchemeKind scheme : {SchemeKind::kHogwild, SchemeKind::kAtomic, SchemeKind::kSync}) {
    TrainConfig c;
    c.backend = Backend::kOffload;
    c.scheme = scheme;
    c.threads = 2;
    c.batch = scheme == SchemeKind::kSync ? 16 : 0;
    c.epochs = 3;
    auto executor = MakeTbbExecutor(2);
    Trainer t(c, data, nullptr, *executor);
    t.RunEpoch();
    const TrainingState before = t.Snapshot();
    executor->stop_flag().store(true);
    const EpochReport cut = t.RunEpoch();
    executor->stop_flag().store(false);
    EXPECT_TRUE(cut.interrupted) << testing::Name(scheme);
    EXPECT_EQ(cut.updates, 0u) << testing::Name(scheme);
    t.Restore(before);
    const EpochReport next = t.RunEpoch();
    EXPECT_FALSE(next.interrupted);
    EXPECT_EQ(next.updates, data.rows()) << testing::Name(scheme);
  }
}

TEST(Offload, DeviceCommandSaysWhereRegionsRun) {
  const DeviceInfo info = ProbeDevice();
  const testing::CliResult r = testing::RunCli("device");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::string("ran on ") + (info.ran_on_host ? "the host" : "the device")),
            std::string::npos)
      << r.output;
  const testing::CliResult strict = testing::RunCli("device --require-gpu");
  EXPECT_EQ(strict.status == 0, !info.ran_on_host) << strict.output;
}

}  // namespace
}  // namespace parsgd
