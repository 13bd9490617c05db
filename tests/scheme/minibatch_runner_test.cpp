// The sync scheme (and sequential minibatch SGD): exact equalities and a double-precision
// reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig SyncConfig(int threads) {
  TrainConfig c;
  c.scheme = SchemeKind::kSync;
  c.threads = threads;
  c.batch = 32;
  c.epochs = 3;
  c.l2 = 1e-3;
  return c;
}

TEST(Sync, WithOneWorkerIsSequentialMinibatchSgdBitForBit) {
  const Dataset data = testing::MakeProblem(700, 40, 6, 3, 0.1, 21);
  auto executor = MakeTbbExecutor(1);
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    TrainConfig sync = SyncConfig(1);
    sync.model = ModelKind::kSoftmax;
    sync.optimizer.kind = optimizer;
    TrainConfig sequential = sync;
    sequential.scheme = SchemeKind::kSequential;
    EXPECT_TRUE(testing::SameBits(testing::TrainModel(sync, data, *executor),
                                  testing::TrainModel(sequential, data, *executor)));
  }
}

TEST(Sync, RepeatsBitForBitAtAGivenThreadCount) {
  const Dataset data = testing::MakeProblem(900, 50, 6, 2, 0.1, 22);
  auto a = MakeTbbExecutor(2), b = MakeThreadExecutor(2);
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kMomentum}) {
    TrainConfig config = SyncConfig(2);
    config.optimizer.kind = optimizer;
    EXPECT_TRUE(testing::SameBits(testing::TrainModel(config, data, *a),
                                  testing::TrainModel(config, data, *b)));
  }
}

// Sequential minibatch SGD written out in double precision, straight from the definitions: batches
// of B consecutive rows (sequential order), mean gradient, L2 r_j = l2 n / d_j weighted by the
// fraction of the batch that has feature j, taken implicitly; constant step size.
std::vector<double> ReferenceMinibatch(const Dataset& data, const std::vector<float>& y, double l2,
                                       double eta, int batch, int epochs) {
  const uint64_t f = data.features(), n = data.rows();
  std::vector<double> w(f + 1, 0.0), rows_with(f, 0.0);
  for (uint64_t e = 0; e < data.nnz(); ++e) rows_with[data.indices()[e]] += 1;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (uint64_t begin = 0; begin < n; begin += batch) {
      const uint64_t end = std::min<uint64_t>(n, begin + batch);
      const double size = static_cast<double>(end - begin);
      std::vector<double> grad(f + 1, 0.0), count(f, 0.0);
      for (uint64_t i = begin; i < end; ++i) {
        const SparseRow x = data.row(i);
        double z = w[f];
        for (uint32_t k = 0; k < x.nnz; ++k) z += x.value[k] * w[x.index[k]];
        const double g = -y[i] / (1 + std::exp(y[i] * z));  // logistic
        for (uint32_t k = 0; k < x.nnz; ++k) {
          grad[x.index[k]] += g * x.value[k];
          count[x.index[k]] += 1;
        }
        grad[f] += g;
      }
      for (uint64_t j = 0; j < f; ++j) {
        if (count[j] == 0) continue;
        const double q = l2 * n / rows_with[j] * count[j] / size;
        w[j] = (w[j] - eta * grad[j] / size) / (1 + eta * q);
      }
      w[f] -= eta * grad[f] / size;
    }
  }
  return w;
}

TEST(Sync, MatchesTheDoublePrecisionReference) {
  const Dataset data = testing::MakeProblem(500, 30, 5, 2, 0.1, 23);
  TrainConfig config = SyncConfig(2);
  config.order = OrderKind::kSequential;
  config.threads = 1;  // one shard: batches of consecutive rows, as the reference takes them
  config.normalize = Normalization::kNone;
  config.schedule = ScheduleKind::kConstant;
  config.learning_rate = 0.5;
  config.batch = 20;
  auto executor = MakeTbbExecutor(1);
  const LinearModel model = testing::TrainModel(config, data, *executor);
  const Targets t = MakeTargets(ModelKind::kLogistic, data);
  const auto reference = ReferenceMinibatch(data, {t.values.begin(), t.values.end()}, config.l2,
                                            0.5, 20, config.epochs);
  for (std::size_t i = 0; i < reference.size(); ++i) {
    // float vs double over 75 steps: agreement to ~1e-5 of the weights' scale.
    EXPECT_NEAR(model.weights()[i], reference[i], 2e-4 * (1 + std::abs(reference[i]))) << i;
  }
}

// Squared loss, whose gradients grow with the error, sizes minibatch steps by the largest
// eigenvalue of the rows' second moment. Rows (1, 0) and (0, 1) with the bias input 1: the mean of
// [x; 1][x; 1]^T is [[1, 0, 1], [0, 1, 1], [1, 1, 2]] / 2, whose largest eigenvalue is 3 / 2.
TEST(Sync, SquaredLossStepsFollowTheTopEigenvalue) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 100; ++i) {
    rows.push_back({{static_cast<uint32_t>(i % 2), 1.f}});
    labels.push_back(i % 2 ? 1.f : -1.f);
  }
  const Dataset data = testing::MakeDataset(rows, labels, 2);
  TrainConfig config = SyncConfig(1);
  config.model = ModelKind::kSquared;
  config.normalize = Normalization::kNone;
  config.batch = 10;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(config, data, nullptr, *executor);
  EXPECT_NEAR(trainer.settings().top_eigenvalue, 1.5, 1e-6);
  // R2 = 2 (one feature and the bias): eta0 = 0.5 * 10 / (2 + 9 * 1.5).
  EXPECT_NEAR(trainer.settings().eta0, 5.0 / 15.5, 1e-9);
  EpochReport last;
  for (int e = 0; e < 20; ++e) last = trainer.RunEpoch();
  EXPECT_LT(last.objective, 0.01);  // the separable targets are fitted (up to the small L2)
}

TEST(Sync, RefusesABatchSmallerThanTheWorkers) {
  const Dataset data = testing::MakeProblem(100, 10, 3, 2, 0, 1);
  TrainConfig config = SyncConfig(2);
  config.batch = 1;
  auto executor = MakeTbbExecutor(2);
  EXPECT_THROW(Trainer(config, data, nullptr, *executor), Error);
}

// One replica trains as the sequential scheme does (per sample, or in minibatches), and averaging
// one replica is the identity.
TEST(Average, WithOneWorkerIsSequentialSgdBitForBit) {
  const Dataset data = testing::MakeProblem(700, 40, 6, 2, 0.1, 24);
  auto executor = MakeTbbExecutor(1);
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kRmsProp}) {
    for (int batch : {1, 16}) {
      for (int period : {0, 7}) {
        TrainConfig average;
        average.scheme = SchemeKind::kAverage;
        average.threads = 1;
        average.epochs = 3;
        average.batch = batch;
        average.period = period;
        average.optimizer.kind = optimizer;
        TrainConfig sequential = average;
        sequential.scheme = SchemeKind::kSequential;
        EXPECT_TRUE(testing::SameBits(testing::TrainModel(average, data, *executor),
                                      testing::TrainModel(sequential, data, *executor)))
            << "batch " << batch << " period " << period;
      }
    }
  }
}

// Averaging after every minibatch of B per worker is one step on the mean of W * B gradients:
// plain SGD without L2 (the implicit L2 shrink is not linear) equals sync with a global batch of
// W * B, up to float rounding of the two ways of averaging.
TEST(Average, PeriodOneEqualsSyncWithTheWorkersBatches) {
  const Dataset data = testing::MakeProblem(600, 40, 6, 2, 0.05, 25);
  TrainConfig average;
  average.scheme = SchemeKind::kAverage;
  average.threads = 2;
  average.batch = 8;
  average.period = 1;
  average.epochs = 2;
  average.l2 = 0;
  average.learning_rate = 0.5;
  TrainConfig sync = average;
  sync.scheme = SchemeKind::kSync;
  sync.batch = 16;
  auto executor = MakeTbbExecutor(2);
  const LinearModel a = testing::TrainModel(average, data, *executor);
  const LinearModel s = testing::TrainModel(sync, data, *executor);
  double largest = 0;
  for (std::size_t i = 0; i < a.weights().size(); ++i) {
    largest = std::max(largest, static_cast<double>(std::abs(s.weights()[i])));
    EXPECT_NEAR(a.weights()[i], s.weights()[i], 1e-5 * (1 + std::abs(s.weights()[i]))) << i;
  }
  EXPECT_GT(largest, 0.1);  // the models did move
  // A longer period is a different algorithm: the replicas drift apart between averages.
  average.period = 20;
  EXPECT_GT(std::abs(testing::TrainModel(average, data, *executor).weights()[0] - s.weights()[0]),
            1e-4);
}

TEST(Average, StateAveragingChangesTheResultButBothConverge) {
  const Dataset data = testing::MakeProblem(1000, 40, 6, 2, 0.05, 26);
  TrainConfig config;
  config.scheme = SchemeKind::kAverage;
  config.optimizer.kind = OptimizerKind::kMomentum;
  config.threads = 2;
  config.period = 5;
  config.epochs = 20;
  auto executor = MakeTbbExecutor(2);
  Trainer own(config, data, nullptr, *executor);
  config.average_state = true;
  Trainer shared(config, data, nullptr, *executor);
  EpochReport a, b;
  for (int e = 0; e < config.epochs; ++e) {
    a = own.RunEpoch();
    b = shared.RunEpoch();
  }
  EXPECT_NE(a.objective, b.objective);
  EXPECT_NEAR(a.objective, b.objective, 0.02 * a.objective);
  EXPECT_GT(a.train_accuracy, 0.85);
  EXPECT_GT(b.train_accuracy, 0.85);
}

}  // namespace
}  // namespace parsgd
