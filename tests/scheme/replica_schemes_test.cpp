// The replica schemes' combining steps: gossip's ring mix against a hand computation, and the
// average scheme's outer optimiser against what its rule says the model must be.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "scheme/replica_settings.hpp"
#include "scheme/replicas.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// Plain per-sample SGD without L2 or step scaling, constant step: each step is exactly
// w -= eta g x, b -= eta g, which the reference below writes out.
TrainConfig PlainConfig(SchemeKind scheme, int threads) {
  TrainConfig c;
  c.scheme = scheme;
  c.threads = threads;
  c.batch = 1;
  c.order = OrderKind::kSequential;
  c.schedule = ScheduleKind::kConstant;
  c.learning_rate = 0.2;
  c.l2 = 0;
  c.normalize = Normalization::kNone;
  c.optimizer.kind = OptimizerKind::kSgd;
  return c;
}

// Two replicas of per-sample logistic SGD in double precision from the definitions: at step m
// each replica takes one step on the m-th row of its shard (if it has one), then combine(w) runs
// (period 1).
template <class Combine>
std::vector<std::vector<double>> ReferenceReplicas(const Dataset& data, int epochs, double eta,
                                                   Combine&& combine) {
  const uint64_t f = data.features();
  const SampleOrder order(OrderKind::kSequential, data.rows(), 2, 1);
  std::vector<std::vector<double>> w(2, std::vector<double>(f + 1, 0.0));
  for (int e = 0; e < epochs; ++e) {
    std::vector<uint32_t> scratch[2];
    const std::span<const uint32_t> shard[2] = {order.Indices(e, 0, scratch[0]),
                                                order.Indices(e, 1, scratch[1])};
    for (uint64_t m = 0; m < std::max(shard[0].size(), shard[1].size()); ++m) {
      for (int r = 0; r < 2; ++r) {
        if (m >= shard[r].size()) continue;
        const SparseRow x = data.row(shard[r][m]);
        const double y = data.labels()[shard[r][m]] > 0 ? 1 : -1;
        double z = w[r][f];
        for (uint32_t k = 0; k < x.nnz; ++k) z += w[r][x.index[k]] * x.value[k];
        const double g = -y / (1 + std::exp(y * z));
        for (uint32_t k = 0; k < x.nnz; ++k) w[r][x.index[k]] -= eta * g * x.value[k];
        w[r][f] -= eta * g;
      }
      combine(w);
    }
  }
  return w;
}

// Gossip on two replicas with period 1: after each step both are mixed,
// x_r <- (x_r + 2 x_other) / 3; the model is the replicas' mean.
std::vector<double> ReferenceGossip(const Dataset& data, int epochs, double eta) {
  const auto w = ReferenceReplicas(data, epochs, eta, [](std::vector<std::vector<double>>& r) {
    for (std::size_t j = 0; j < r[0].size(); ++j) {
      const double a = r[0][j], b = r[1][j];
      r[0][j] = (a + 2 * b) / 3;
      r[1][j] = (b + 2 * a) / 3;
    }
  });
  std::vector<double> mean(w[0].size());
  for (std::size_t j = 0; j < mean.size(); ++j) mean[j] = (w[0][j] + w[1][j]) / 2;
  return mean;
}

// Elastic averaging (EASGD) on two replicas with period 1: after each step d_r = x_r - c,
// x_r -= alpha d_r, c += alpha (d_0 + d_1); the model is c.
std::vector<double> ReferenceElastic(const Dataset& data, int epochs, double eta, double alpha) {
  std::vector<double> c(data.features() + 1, 0.0);
  ReferenceReplicas(data, epochs, eta, [&](std::vector<std::vector<double>>& w) {
    for (std::size_t j = 0; j < c.size(); ++j) {
      const double d0 = w[0][j] - c[j], d1 = w[1][j] - c[j];
      w[0][j] -= alpha * d0;
      w[1][j] -= alpha * d1;
      c[j] += alpha * (d0 + d1);
    }
  });
  return c;
}

TEST(Gossip, PeriodOneOnTwoWorkersIsTheRingMixComputedByHand) {
  const Dataset data = testing::MakeProblem(301, 20, 4, 2, 0.05, 61);
  TrainConfig config = PlainConfig(SchemeKind::kGossip, 2);
  config.period = 1;
  config.epochs = 2;
  auto executor = MakeTbbExecutor(2);
  const LinearModel model = testing::TrainModel(config, data, *executor);
  const std::vector<double> expected = ReferenceGossip(data, 2, config.learning_rate);
  ASSERT_EQ(model.weights().size(), expected.size());
  double largest = 0;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    largest = std::max(largest, std::abs(expected[j]));
    EXPECT_NEAR(model.weights()[j], expected[j], 1e-4 * (1 + std::abs(expected[j]))) << j;
  }
  EXPECT_GT(largest, 0.1);  // the model moved
  // The mix is not the average: the same run under average differs.
  config.scheme = SchemeKind::kAverage;
  const LinearModel average = testing::TrainModel(config, data, *executor);
  double difference = 0;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    difference =
        std::max(difference, std::abs(static_cast<double>(average.weights()[j]) - expected[j]));
  }
  EXPECT_GT(difference, 1e-3);
}

TEST(Elastic, PeriodOneOnTwoWorkersIsTheElasticStepComputedByHand) {
  const Dataset data = testing::MakeProblem(301, 20, 4, 2, 0.05, 63);
  TrainConfig config = PlainConfig(SchemeKind::kElastic, 2);
  config.period = 1;
  config.epochs = 2;
  config.elastic_alpha = 0.3;
  auto executor = MakeTbbExecutor(2);
  const LinearModel model = testing::TrainModel(config, data, *executor);
  const std::vector<double> expected = ReferenceElastic(data, 2, config.learning_rate, 0.3);
  ASSERT_EQ(model.weights().size(), expected.size());
  double largest = 0;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    largest = std::max(largest, std::abs(expected[j]));
    EXPECT_NEAR(model.weights()[j], expected[j], 1e-4 * (1 + std::abs(expected[j]))) << j;
  }
  EXPECT_GT(largest, 0.1);  // the centre moved
  // The centre is neither the average nor gossip's mean: the same run under average differs.
  config.scheme = SchemeKind::kAverage;
  const LinearModel average = testing::TrainModel(config, data, *executor);
  double difference = 0;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    difference =
        std::max(difference, std::abs(static_cast<double>(average.weights()[j]) - expected[j]));
  }
  EXPECT_GT(difference, 1e-3);
}

// The force is 0.9 / workers by default, and alpha x workers past 1 (where the step overshoots) is
// refused by name.
TEST(Elastic, TheForceDefaultsToABetaOfNineTenthsAndIsBounded) {
  const Dataset data = testing::MakeProblem(200, 10, 3, 2, 0, 64);
  auto executor = MakeTbbExecutor(3);
  TrainConfig config = PlainConfig(SchemeKind::kElastic, 3);
  Trainer trainer(config, data, nullptr, *executor);
  EXPECT_DOUBLE_EQ(trainer.settings().elastic_alpha, 0.3);
  EXPECT_TRUE(testing::Contains(trainer.RunIdentity(), "\nelastic_alpha=0.29999999999999999\n"));
  config.elastic_alpha = 0.5;
  try {
    Trainer refused(config, data, nullptr, *executor);
    ADD_FAILURE() << "alpha 0.5 over 3 workers accepted";
  } catch (const SettingError& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "elastic-alpha 0.5 over 3 workers")) << e.what();
  }
  TrainConfig other = PlainConfig(SchemeKind::kAverage, 3);
  other.elastic_alpha = 0.2;
  EXPECT_TRUE(testing::Contains(testing::Refusal(other), "elastic-alpha 0.2 would be ignored"));
}

// A mix keeps the replicas' mean: with one mix at the end of a single epoch, the mean gossip
// reports is the average scheme's model (up to the rounding of the two ways of taking it).
TEST(Gossip, OneMixPerEpochKeepsTheAverage) {
  const Dataset data = testing::MakeProblem(500, 30, 5, 3, 0.05, 62);
  TrainConfig config = PlainConfig(SchemeKind::kGossip, 2);
  config.model = ModelKind::kSoftmax;
  config.period = 0;
  config.epochs = 1;
  auto executor = MakeTbbExecutor(2);
  const LinearModel gossip = testing::TrainModel(config, data, *executor);
  config.scheme = SchemeKind::kAverage;
  const LinearModel average = testing::TrainModel(config, data, *executor);
  for (std::size_t j = 0; j < gossip.weights().size(); ++j) {
    EXPECT_NEAR(gossip.weights()[j], average.weights()[j],
                1e-6 * (1 + std::abs(average.weights()[j])));
  }
}

TEST(Gossip, RepeatsBitForBitOnEveryExecutor) {
  const Dataset data = testing::MakeProblem(700, 40, 6, 2, 0.05, 63);
  auto tbb = MakeTbbExecutor(2), threads = MakeThreadExecutor(2);
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (int batch : {1, 8}) {
      TrainConfig config;
      config.scheme = SchemeKind::kGossip;
      config.threads = 2;
      config.epochs = 3;
      config.period = 3;
      config.batch = batch;
      config.optimizer.kind = optimizer;
      config.average_state = optimizer == OptimizerKind::kAdam;
      EXPECT_TRUE(testing::SameBits(testing::TrainModel(config, data, *tbb),
                                    testing::TrainModel(config, data, *threads)))
          << "batch " << batch;
    }
  }
}

// With one replica there is nothing to mix: gossip is the sequential scheme.
TEST(Gossip, WithOneWorkerIsSequentialBitForBit) {
  const Dataset data = testing::MakeProblem(400, 30, 5, 2, 0.05, 64);
  auto executor = MakeTbbExecutor(1);
  for (int batch : {1, 16}) {
    TrainConfig gossip;
    gossip.scheme = SchemeKind::kGossip;
    gossip.threads = 1;
    gossip.epochs = 2;
    gossip.batch = batch;
    gossip.optimizer.kind = OptimizerKind::kMomentum;
    TrainConfig sequential = gossip;
    sequential.scheme = SchemeKind::kSequential;
    EXPECT_TRUE(testing::SameBits(testing::TrainModel(gossip, data, *executor),
                                  testing::TrainModel(sequential, data, *executor)))
        << "batch " << batch;
  }
}

// Rows [begin, end) of `data` as a data set of their own (all the features).
Dataset Rows(const Dataset& data, uint64_t begin, uint64_t end) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (uint64_t i = begin; i < end; ++i) {
    const SparseRow x = data.row(i);
    testing::Entries entries;
    for (uint32_t k = 0; k < x.nnz; ++k) entries.emplace_back(x.index[k], x.value[k]);
    rows.push_back(std::move(entries));
    labels.push_back(data.labels()[i]);
  }
  return testing::MakeDataset(rows, labels, data.features());
}

// One epoch of per-sample SGD under the average scheme with `rule`, 2 workers and one combination
// at the epoch's end (`model`), beside each worker's shard trained alone by sequential SGD for an
// epoch (`first`, `second`: contiguous halves in the sequential order).
struct OneAverage {
  LinearModel model, first, second;
};
OneAverage OneAveragePerEpoch(const Dataset& data, AverageRule rule) {
  TrainConfig average = PlainConfig(SchemeKind::kAverage, 2);
  average.period = 0;
  average.epochs = 1;
  average.average_rule = rule;
  auto two = MakeTbbExecutor(2), one = MakeTbbExecutor(1);
  const SampleOrder order(OrderKind::kSequential, data.rows(), 2, 1);
  TrainConfig sequential = PlainConfig(SchemeKind::kSequential, 1);
  sequential.epochs = 1;
  OneAverage out{
      testing::TrainModel(average, data, *two),
      testing::TrainModel(sequential, Rows(data, 0, order.ShardBegin(1)), *one),
      testing::TrainModel(sequential, Rows(data, order.ShardBegin(1), data.rows()), *one)};
  EXPECT_EQ(out.model.weights().size(), out.first.weights().size());
  return out;
}

// With per-sample steps, one epoch and one average at its end, each replica is plain SGD on its
// own shard (contiguous halves in the sequential order) and the model is the mean of the two,
// (a + b) * 0.5 exactly. Two data sets: a dense one, whose combining step covers the whole model
// (the period's nonzeros exceed the model, so nothing is marked), and a wide, very sparse one,
// where only the touched features are averaged; both must give those bits.
TEST(Average, OneAveragePerEpochIsTheMeanOfTheShardsSgdRuns) {
  const Dataset sets[] = {testing::MakeProblem(600, 30, 6, 2, 0.05, 67),
                          testing::MakeProblem(200, 20000, 3, 2, 0.05, 68)};
  for (const Dataset& data : sets) {
    const auto [model, a, b] = OneAveragePerEpoch(data, AverageRule::kMean);
    ASSERT_EQ(model.weights().size(), a.weights().size());
    int moved = 0;
    for (std::size_t j = 0; j < a.weights().size(); ++j) {
      EXPECT_EQ(model.weights()[j], (a.weights()[j] + b.weights()[j]) * 0.5f) << j;
      moved += a.weights()[j] != 0;
    }
    EXPECT_GT(moved, 10);
  }
}

// The touched rule (--average-rule touched) in the same set-up: a feature only one shard moved
// keeps that shard's value whole (the plain mean halves it), one both moved takes their mean, the
// plain mean's bits. On the sparse set most features are one shard's.
TEST(TouchedRule, OneAveragePerEpochKeepsWhatOnlyOneShardMoved) {
  const Dataset sets[] = {testing::MakeProblem(600, 30, 6, 2, 0.05, 67),
                          testing::MakeProblem(200, 20000, 3, 2, 0.05, 68)};
  int alone = 0, both = 0;  // features only one shard moved, and both
  for (const Dataset& data : sets) {
    const auto [model, a, b] = OneAveragePerEpoch(data, AverageRule::kTouched);
    ASSERT_EQ(model.weights().size(), a.weights().size());
    for (std::size_t j = 0; j < a.weights().size(); ++j) {
      const float x = a.weights()[j], y = b.weights()[j];
      const float expected = x != 0 && y != 0 ? (x + y) * 0.5f : x != 0 ? x : y;
      EXPECT_EQ(model.weights()[j], expected) << j;
      alone += (x != 0) != (y != 0);
      both += x != 0 && y != 0;
    }
  }
  EXPECT_GT(alone, 200);  // the sparse set's
  EXPECT_GT(both, 30);    // every feature of the dense set, and the biases
}

// The sum rule (--average-rule sum) from the zero model with one combination per epoch: the sum of
// the shards' SGD runs; over two epochs, the outer sgd step at rate 2 (its definition) bit for bit.
TEST(SumRule, AddsTheReplicasChanges) {
  const Dataset data = testing::MakeProblem(600, 300, 6, 2, 0.05, 71);
  const auto [model, a, b] = OneAveragePerEpoch(data, AverageRule::kSum);
  ASSERT_EQ(model.weights().size(), a.weights().size());
  for (std::size_t j = 0; j < a.weights().size(); ++j) {
    EXPECT_EQ(model.weights()[j], a.weights()[j] + b.weights()[j]) << j;
  }
  TrainConfig sum = PlainConfig(SchemeKind::kAverage, 2);
  sum.average_rule = AverageRule::kSum;
  sum.epochs = 2;
  sum.period = 3;
  auto two = MakeTbbExecutor(2);
  TrainConfig outer = sum;
  outer.average_rule = AverageRule::kMean;
  outer.outer.learning_rate = 2;
  const LinearModel x = testing::TrainModel(sum, data, *two),
                    y = testing::TrainModel(outer, data, *two);
  EXPECT_TRUE(std::equal(x.weights().begin(), x.weights().end(), y.weights().begin()));
}

// With a combination after every sample, over two epochs, the touched rule compares each replica
// with the last combination's model (not with the start): the rule written out in double.
TEST(TouchedRule, PeriodOneOnTwoWorkersIsTheMeanOverTheMovedReplicasComputedByHand) {
  const Dataset data = testing::MakeProblem(301, 400, 4, 2, 0.05, 62);
  TrainConfig config = PlainConfig(SchemeKind::kAverage, 2);
  config.period = 1;
  config.epochs = 2;
  config.average_rule = AverageRule::kTouched;
  auto executor = MakeTbbExecutor(2);
  const LinearModel model = testing::TrainModel(config, data, *executor);
  std::vector<double> anchor(data.features() + 1, 0.0);
  const auto w = ReferenceReplicas(data, 2, config.learning_rate, [&](auto& r) {
    for (std::size_t j = 0; j < anchor.size(); ++j) {
      double sum = 0;
      int moved = 0;
      for (const auto& replica : r) {
        if (replica[j] != anchor[j]) {
          sum += replica[j];
          ++moved;
        }
      }
      if (moved > 0) anchor[j] = sum / moved;
      for (auto& replica : r) replica[j] = anchor[j];
    }
  });
  ASSERT_EQ(model.weights().size(), anchor.size());
  double largest = 0;
  for (std::size_t j = 0; j < anchor.size(); ++j) {
    largest = std::max(largest, std::abs(anchor[j]));
    EXPECT_NEAR(model.weights()[j], anchor[j], 1e-4 * (1 + std::abs(anchor[j]))) << j;
  }
  EXPECT_GT(largest, 0.1);
  // The plain mean gives another model on these rows.
  config.average_rule = AverageRule::kMean;
  const LinearModel mean = testing::TrainModel(config, data, *executor);
  double difference = 0;
  for (std::size_t j = 0; j < anchor.size(); ++j) {
    difference = std::max(difference, std::abs(mean.weights()[j] - anchor[j]));
  }
  EXPECT_GT(difference, 1e-2);
}

TEST(Replicas, TheTouchedMeanIsOverTheReplicasThatMoved) {
  Replicas replicas(3, 4);
  const float anchor[4] = {1.f, 2.f, 3.f, 4.f};
  float start[4] = {1.f, 2.f, 3.f, 4.f};
  for (int r = 0; r < 3; ++r) replicas.MakeFrom(r, {start, nullptr, nullptr});
  replicas.data(1, Replicas::kWeights)[0] = 7.f;  // one replica moved coordinate 0
  replicas.data(0, Replicas::kWeights)[1] = 5.f;  // two moved coordinate 1
  replicas.data(2, Replicas::kWeights)[1] = 6.f;
  for (int r = 0; r < 3; ++r) replicas.data(r, Replicas::kWeights)[2] = 9.f;  // all moved 2
  float out[4];
  replicas.TouchedMeanInto(Replicas::kWeights, 0, 4, anchor, out);
  EXPECT_EQ(out[0], 7.f);
  EXPECT_EQ(out[1], 5.5f);
  EXPECT_EQ(out[2], 9.f);
  EXPECT_EQ(out[3], 4.f);  // none moved
}

// The mean of equal floats can differ from them by rounding ((3 v) / 3 != v for some v); the
// combining steps leave a coordinate that is equal in every replica as it is, so that covering
// more coordinates than changed (the whole model) changes nothing.
TEST(Replicas, AveragingEqualValuesKeepsThem) {
  float v = 0.1f;
  while ((v + v + v) * (1.f / 3.f) == v) v = std::nextafter(v, 1.f);
  Replicas replicas(3, 4);
  float weights[4] = {v, 1.f, v, 2.f};
  for (int r = 0; r < 3; ++r) replicas.MakeFrom(r, {weights, nullptr, nullptr});
  replicas.data(1, Replicas::kWeights)[1] = 4.f;  // coordinate 1 differs, the others are equal
  replicas.Average(Replicas::kWeights, 0, 4);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(replicas.data(r, Replicas::kWeights)[0], v);
    EXPECT_EQ(replicas.data(r, Replicas::kWeights)[1], (1.f + 4.f + 1.f) * (1.f / 3.f));
    EXPECT_EQ(replicas.data(r, Replicas::kWeights)[2], v);
  }
  float mean[4];
  replicas.MeanInto(Replicas::kWeights, 0, 4, mean);
  EXPECT_EQ(mean[0], v);
}

// The automatic period: 10 minibatches, but ten combinations per epoch for per-sample replicas.
TEST(Average, TheAutomaticPeriodCombinesPerSampleReplicasTenTimesAnEpoch) {
  const Dataset data = testing::MakeProblem(1001, 20, 4, 2, 0.05, 69);
  auto executor = MakeTbbExecutor(2);
  TrainConfig config;
  config.scheme = SchemeKind::kAverage;
  config.threads = 2;
  EXPECT_EQ(Trainer(config, data, nullptr, *executor).settings().period, 10);  // batch 32
  config.batch = 1;
  EXPECT_EQ(Trainer(config, data, nullptr, *executor).settings().period, 51);  // 501 / 10, up
  config.scheme = SchemeKind::kGossip;
  EXPECT_EQ(Trainer(config, data, nullptr, *executor).settings().period, 51);
  config.period = 7;
  EXPECT_EQ(Trainer(config, data, nullptr, *executor).settings().period, 7);
}

// The outer step with one combination per epoch, from the zero model: after epoch 1 the replicas'
// mean is m1 (the plain average's model), so d = 0 - m1 and
//   sgd lr:             a1 = lr m1
//   momentum (lr 1):    a1 = m1;            epoch 2 from a1, mean m2 (the average's epoch 2):
//                       v2 = mu (-m1) + (m1 - m2), a2 = a1 - v2 = m2 + mu m1
//   nesterov (lr 1):    a1 = -(d + mu d) = (1 + mu) m1.
class OuterStep : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = PlainConfig(SchemeKind::kAverage, 2);
    config_.period = 0;
  }
  std::vector<float> Train(int epochs) {
    config_.epochs = epochs;
    const LinearModel m = testing::TrainModel(config_, data_, *executor_);
    return {m.weights().begin(), m.weights().end()};
  }
  Dataset data_ = testing::MakeProblem(600, 30, 5, 2, 0.05, 65);
  std::unique_ptr<Executor> executor_ = MakeTbbExecutor(2);
  TrainConfig config_;
};

TEST_F(OuterStep, SgdAtRateOneIsThePlainAverageBitForBit) {
  const std::vector<float> plain = Train(2);
  config_.outer.kind = OuterKind::kSgd;
  config_.outer.learning_rate = 1;
  EXPECT_EQ(Train(2), plain);
}

TEST_F(OuterStep, SgdScalesTheFirstStepByItsRate) {
  const std::vector<float> m1 = Train(1);
  config_.outer.learning_rate = 0.5;
  const std::vector<float> a1 = Train(1);
  for (std::size_t j = 0; j < m1.size(); ++j) EXPECT_EQ(a1[j], 0.5f * m1[j]) << j;
}

TEST_F(OuterStep, MomentumCarriesThePreviousStep) {
  const std::vector<float> m1 = Train(1), m2 = Train(2);
  config_.outer.kind = OuterKind::kMomentum;
  config_.outer.momentum = 0.5;
  const std::vector<float> a1 = Train(1), a2 = Train(2);
  double moved = 0;
  for (std::size_t j = 0; j < m1.size(); ++j) {
    EXPECT_NEAR(a1[j], m1[j], 1e-6 * (1 + std::abs(m1[j]))) << j;
    // Epoch 2 starts from a1 (= m1 up to rounding), as the average's does from m1.
    EXPECT_NEAR(a2[j], m2[j] + 0.5 * m1[j], 1e-4 * (1 + std::abs(m2[j]))) << j;
    moved = std::max(moved, std::abs(0.5 * m1[j]));
  }
  EXPECT_GT(moved, 0.05);
}

TEST_F(OuterStep, NesterovLooksAhead) {
  const std::vector<float> m1 = Train(1);
  config_.outer.kind = OuterKind::kNesterov;
  config_.outer.momentum = 0.8;
  const std::vector<float> a1 = Train(1);
  for (std::size_t j = 0; j < m1.size(); ++j) {
    EXPECT_NEAR(a1[j], 1.8 * m1[j], 1e-6 * (1 + std::abs(m1[j]))) << j;
  }
}

// The outer step's settings are refused where there is no average to step from.
TEST(OuterStepSettings, NeedTheAverageScheme) {
  const Dataset data = testing::MakeProblem(100, 10, 3, 2, 0, 66);
  auto executor = MakeTbbExecutor(2);
  for (SchemeKind scheme : {SchemeKind::kGossip, SchemeKind::kSync, SchemeKind::kHogwild}) {
    TrainConfig config;
    config.scheme = scheme;
    config.threads = 2;
    config.outer.kind = OuterKind::kMomentum;
    EXPECT_THROW(Trainer(config, data, nullptr, *executor), Error) << testing::Name(scheme);
  }
  TrainConfig config;
  config.scheme = SchemeKind::kAverage;
  config.outer.momentum = 1;
  EXPECT_THROW(Trainer(config, data, nullptr, *executor), Error);
}

// The touched rule chooses the members of an average: refused where there is none; the plain mean,
// the default, is never refused.
TEST(TouchedRule, NeedsTheAverageScheme) {
  const Dataset data = testing::MakeProblem(100, 10, 3, 2, 0, 66);
  auto executor = MakeTbbExecutor(2);
  for (SchemeKind scheme :
       {SchemeKind::kGossip, SchemeKind::kElastic, SchemeKind::kSync, SchemeKind::kHogwild}) {
    TrainConfig config;
    config.scheme = scheme;
    config.threads = 2;
    config.average_rule = AverageRule::kTouched;
    try {
      Trainer trainer(config, data, nullptr, *executor);
      ADD_FAILURE() << testing::Name(scheme) << " took the touched rule";
    } catch (const Error& e) {
      EXPECT_TRUE(testing::Contains(e.what(), "average-rule")) << e.what();
    }
    config.average_rule = AverageRule::kMean;  // given, as on a command line
    EXPECT_NO_THROW(ValidateConfig(config, 1, [](const Setting& s) {
      return s.key == "average-rule";
    })) << testing::Name(scheme);
  }
}

// The share of whole steps by its formula on four rows: feature 0 in every row (no step of it is
// whole while another replica trains), feature 1 in one row, n_1 / rows = 1/4; the bias one step a
// row, never whole. Period 1: (3/4)^1 of feature 1's step over 5 nonzeros + 4 bias steps; a whole
// shard (period 0, 2 rows): (3/4)^2.
TEST(TouchedRule, WholeStepShareCountsTheStepsNoOtherReplicaTouches) {
  const Dataset data = testing::MakeDataset(
      {{{0, 1.f}, {1, 1.f}}, {{0, 1.f}}, {{0, 1.f}}, {{0, 1.f}}}, {1, -1, 1, -1}, 2);
  EXPECT_DOUBLE_EQ(WholeStepShare(data, 1, 2), 0.75 / 9);
  EXPECT_DOUBLE_EQ(WholeStepShare(data, 0, 2), 0.5625 / 9);
  EXPECT_DOUBLE_EQ(WholeStepShare(data, 100, 2), 0.5625 / 9);  // a period past the shard: the shard
  EXPECT_DOUBLE_EQ(WholeStepShare(data, 1, 3), 0.5625 / 9);    // two other replicas
  EXPECT_EQ(WholeStepShare(data, 1, 1), 1);                    // one replica: every step whole
}

// --average-rule auto and --period auto for per-sample replicas: on wide sparse rows the touched
// rule with a period of kTouchedPeriodNonzeros nonzeros; on narrow dense rows (every feature in
// every period of both replicas) the mean every tenth of a shard; the mean across ranks, for
// minibatches and for the MLP; a rule or period the user gave is kept.
TEST(TouchedRule, AutoTakesItWithAShortPeriodOnSparseRowsOnly) {
  const Dataset sparse = testing::MakeProblem(80000, 50000, 20, 2, 0.05, 69);
  const Dataset dense = testing::MakeProblem(20000, 30, 20, 2, 0.05, 70);
  TrainConfig c = PlainConfig(SchemeKind::kAverage, 2);
  c.batch = 1;
  ASSERT_EQ(c.average_rule, AverageRule::kAuto);
  ASSERT_LT(c.period, 0);
  const double a_row = static_cast<double>(sparse.nnz()) / sparse.rows();
  const ReplicaPlan wide = AutoReplicaPlan(c, sparse, 2, 1);
  EXPECT_EQ(wide.rule, AverageRule::kTouched);
  EXPECT_EQ(wide.period, static_cast<int>(std::ceil(kTouchedPeriodNonzeros / a_row)));
  EXPECT_LT(wide.period, static_cast<int>(PerSampleReplicaPeriod(sparse.rows(), 2)));
  EXPECT_DOUBLE_EQ(wide.whole_steps, WholeStepShare(sparse, wide.period, 2));
  EXPECT_GE(wide.whole_steps, kTouchedWholeShare);

  const ReplicaPlan narrow = AutoReplicaPlan(c, dense, 2, 1);
  EXPECT_EQ(narrow.rule, AverageRule::kMean);
  EXPECT_EQ(narrow.period, AutoReplicaPeriod(c, dense.rows(), 2));
  EXPECT_LT(narrow.whole_steps, 0);

  EXPECT_EQ(AutoReplicaPlan(c, sparse, 2, 2).rule, AverageRule::kMean);  // ranks
  TrainConfig minibatch = c;
  minibatch.batch = 32;
  EXPECT_EQ(AutoReplicaPlan(minibatch, sparse, 2, 1).rule, AverageRule::kMean);
  EXPECT_EQ(AutoReplicaPlan(minibatch, sparse, 2, 1).period, 10);
  TrainConfig mlp = c;
  mlp.model = ModelKind::kMlp;
  EXPECT_EQ(AutoReplicaPlan(mlp, sparse, 2, 1).rule, AverageRule::kMean);

  TrainConfig mean = c;
  mean.average_rule = AverageRule::kMean;
  EXPECT_EQ(AutoReplicaPlan(mean, sparse, 2, 1).rule, AverageRule::kMean);
  EXPECT_EQ(AutoReplicaPlan(mean, sparse, 2, 1).period, AutoReplicaPeriod(c, sparse.rows(), 2));
  TrainConfig touched = c;
  touched.average_rule = AverageRule::kTouched;
  EXPECT_EQ(AutoReplicaPlan(touched, sparse, 2, 1).period, wide.period);
  EXPECT_EQ(AutoReplicaPlan(touched, dense, 2, 1).rule, AverageRule::kTouched);
  TrainConfig given = c;
  given.period = 0;  // a whole shard between combinations: the rule weighed at it
  const ReplicaPlan shard = AutoReplicaPlan(given, sparse, 2, 1);
  EXPECT_EQ(shard.period, 0);
  EXPECT_DOUBLE_EQ(shard.whole_steps, WholeStepShare(sparse, 0, 2));
  EXPECT_LT(shard.whole_steps, wide.whole_steps);
  EXPECT_EQ(shard.rule, shard.whole_steps >= kTouchedWholeShare ? AverageRule::kTouched
                                                                 : AverageRule::kMean);
  given.period = 5;
  EXPECT_EQ(AutoReplicaPlan(given, dense, 2, 1).rule, AverageRule::kMean);
  EXPECT_EQ(AutoReplicaPlan(given, dense, 2, 1).period, 5);
}

// A run of per-sample replicas on wide sparse rows resolves the touched rule and its short period,
// and the setup's words say so.
TEST(TouchedRule, IsWhatPerSampleReplicasTakeOnSparseRows) {
  const Dataset sparse = testing::MakeProblem(80000, 50000, 20, 2, 0.05, 69);
  TrainConfig c = PlainConfig(SchemeKind::kAverage, 2);
  c.batch = 1;
  c.epochs = 1;
  auto executor = MakeTbbExecutor(2);
  Trainer trainer(c, sparse, nullptr, *executor);
  EXPECT_EQ(trainer.config().average_rule, AverageRule::kTouched);
  EXPECT_EQ(trainer.settings().period, AutoReplicaPlan(trainer.config(), sparse, 2, 1).period);
  EXPECT_GE(trainer.settings().whole_steps, kTouchedWholeShare);
  EXPECT_TRUE(testing::Contains(DescribeReplicas(trainer.config(), trainer.settings(), true),
                                "touched rule"));
}

}  // namespace
}  // namespace parsgd
