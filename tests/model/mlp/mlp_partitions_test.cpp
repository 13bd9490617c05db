// The MLP's model partitions (model/mlp/partition/partitions.hpp): the subnet deal holds every unit
// outside the skeleton in exactly one worker's subnetwork; the pipeline's stages balance the
// layers' costs; one worker's subnet scheme is the sequential scheme bit for bit; the pipeline and
// the vertical split take the sequential scheme's steps, equal where they compute the same sums and
// to rounding where they sum in another order; every partition repeats, resumes exactly, counts
// what its workers exchange, and refuses what does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "model/mlp/partition/partitions.hpp"
#include "model/mlp/partition/subnet_deal.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig Config(SchemeKind scheme, int threads) {
  TrainConfig c;
  c.model = ModelKind::kMlp;
  c.hidden = {24, 16};
  c.scheme = scheme;
  c.threads = threads;
  c.epochs = 3;
  c.batch = 16;
  c.seed = 4;
  return c;
}

struct Trained {
  std::vector<float> params;
  std::vector<EpochReport> reports;
};

Trained Train(const TrainConfig& c, const Dataset& data, int epochs = -1) {
  auto executor = MakeTbbExecutor(c.threads);
  Trainer trainer(c, data, nullptr, *executor);
  Trained run;
  while (trainer.epochs_done() < (epochs < 0 ? c.epochs : epochs))
    run.reports.push_back(trainer.RunEpoch());
  const auto p = trainer.mlp_model().params();
  run.params.assign(p.begin(), p.end());
  return run;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The largest |a - b| / (1 + |b|) over the parameters.
double Farthest(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / (1 + std::abs(double(b[i]))));
  }
  return worst;
}

TEST(SubnetDeal, EveryUnitOutsideTheSkeletonBelongsToExactlyOneWorker) {
  const std::vector<int> hidden = {33, 16, 5};
  for (double ratio : {0.0, 0.25, 0.5}) {
    for (int workers : {1, 2, 3, 5}) {
      const SubnetDeal deal = DealUnits(hidden, ratio, workers, 11);
      const std::vector<int> sizes = {7, 33, 16, 5, 4};
      for (std::size_t h = 0; h < hidden.size(); ++h) {
        const int skeleton = SkeletonUnits(hidden[h], ratio);
        std::vector<int> owners(hidden[h], 0);
        for (int w = 0; w < workers; ++w) {
          const std::vector<int>& units = deal.units[w][h];
          EXPECT_TRUE(std::is_sorted(units.begin(), units.end()));
          EXPECT_EQ(static_cast<int>(units.size()), SubnetSizes(sizes, ratio, workers, w)[h + 1]);
          for (int u : units) ++owners[u];
        }
        for (int u = 0; u < hidden[h]; ++u) EXPECT_EQ(owners[u], u < skeleton ? workers : 1) << u;
      }
    }
  }
  // The deal is the seed's: the same seed deals alike, another differently.
  EXPECT_EQ(DealUnits(hidden, 0.25, 3, 11).units, DealUnits(hidden, 0.25, 3, 11).units);
  EXPECT_NE(DealUnits(hidden, 0.25, 3, 11).units, DealUnits(hidden, 0.25, 3, 12).units);
}

TEST(PipelineStages, BalanceTheLayersCosts) {
  // 784x256 costs 200,704 multiply-adds, 256x128 32,768, 128x10 1,280: the first layer alone.
  EXPECT_EQ(BalancedStages({784, 256, 128, 10}, 2), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(BalancedStages({784, 256, 128, 10}, 3), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(BalancedStages({784, 256, 128, 10}, 8), (std::vector<int>{0, 1, 2, 3}));  // <= layers
  EXPECT_EQ(BalancedStages({10, 10, 10, 10, 10}, 2), (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(BalancedStages({10, 10, 10, 10, 10}, 1), (std::vector<int>{0, 4}));
}

// With one worker the subnetwork is the network: the sequential scheme's bits, epoch by epoch.
TEST(MlpPartitions, SubnetOfOneWorkerIsTheSequentialScheme) {
  const Dataset data = testing::Blobs(500, 3);
  for (OptimizerKind optimizer : {OptimizerKind::kMomentum, OptimizerKind::kAdam}) {
    TrainConfig sequential = Config(SchemeKind::kSequential, 1);
    sequential.optimizer.kind = optimizer;
    TrainConfig subnet = sequential;
    subnet.scheme = SchemeKind::kSubnet;
    subnet.period = 3;
    EXPECT_TRUE(SameBits(Train(subnet, data).params, Train(sequential, data).params))
        << testing::Name(optimizer);
  }
}

// A skeleton of every unit shares every parameter: the subnet scheme is then the average scheme
// with the optimiser state averaged, bit for bit (the reassembly's mean is the replicas' mean).
TEST(MlpPartitions, SubnetOfOnlySkeletonIsTheAverageScheme) {
  const Dataset data = testing::Blobs(500, 8);
  TrainConfig subnet = Config(SchemeKind::kSubnet, 2);
  subnet.skeleton_ratio = 0.999999;
  subnet.period = 5;
  TrainConfig average = Config(SchemeKind::kAverage, 2);
  average.average_state = true;
  average.period = 5;
  EXPECT_TRUE(SameBits(Train(subnet, data).params, Train(average, data).params));
  subnet.skeleton_ratio = 0.5;  // and a partial skeleton is something else
  EXPECT_FALSE(SameBits(Train(subnet, data).params, Train(average, data).params));
}

// The pipeline and the vertical split take the sequential scheme's minibatch steps. Where they
// compute the same sums in the same order they are one another bit for bit: any cut into stages
// with one micro-batch, and one vertical worker. Where they sum in another order (micro-batches
// added, the workers' parts of an input gradient added, and oneDNN's sgemm in place of its
// matmul primitives), they stay within rounding of the sequential run: after 3 epochs of 31
// steps, every parameter within 1e-4 (relative, 1 + |w|) and the objective within 1e-5.
TEST(MlpPartitions, PipelineAndVerticalTakeTheSequentialSteps) {
  const Dataset data = testing::Blobs(500, 5);
  const Trained sequential = Train(Config(SchemeKind::kSequential, 1), data);
  const Trained one_slice = Train(Config(SchemeKind::kVertical, 1), data);
  for (int stages : {1, 2, 3}) {
    TrainConfig c = Config(SchemeKind::kPipeline, stages);
    c.micro_batches = 1;
    EXPECT_TRUE(SameBits(Train(c, data).params, one_slice.params)) << stages;
  }
  std::vector<TrainConfig> others = {Config(SchemeKind::kVertical, 1),
                                     Config(SchemeKind::kVertical, 2),
                                     Config(SchemeKind::kVertical, 3)};
  for (int micro : {2, 4, 16}) {
    others.push_back(Config(SchemeKind::kPipeline, 3));
    others.back().micro_batches = micro;
  }
  for (const TrainConfig& c : others) {
    SCOPED_TRACE(testing::Name(c.scheme) + " " + std::to_string(c.threads) + " " +
                 std::to_string(c.micro_batches));
    const Trained run = Train(c, data);
    EXPECT_LT(Farthest(run.params, sequential.params), 1e-4);
    EXPECT_NEAR(run.reports.back().objective, sequential.reports.back().objective, 1e-5);
    EXPECT_EQ(run.reports.back().updates, data.rows());
  }
  // The tolerance is not loose: the runs do differ, and a different step would not pass.
  TrainConfig slower = Config(SchemeKind::kVertical, 2);
  slower.learning_rate = 0.049;  // the default for momentum is 0.05
  EXPECT_GT(Farthest(Train(slower, data).params, sequential.params), 1e-3);
}

// Deterministic: the same bits twice, and a run resumed from its snapshot after epoch 1 ends on
// the straight run's bits; 2 workers exchange bytes, the pipeline reports its bubble.
TEST(MlpPartitions, RepeatResumeAndCount) {
  const Dataset data = testing::Blobs(400, 6);
  for (SchemeKind scheme : {SchemeKind::kPipeline, SchemeKind::kVertical, SchemeKind::kSubnet}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c = Config(scheme, 2);
    c.optimizer.kind = OptimizerKind::kAdam;
    c.deterministic = true;
    const Trained straight = Train(c, data);
    EXPECT_TRUE(SameBits(Train(c, data).params, straight.params));
    auto executor = MakeTbbExecutor(2);
    TrainingState after_one;
    {
      Trainer first(c, data, nullptr, *executor);
      first.RunEpoch();
      after_one = first.Snapshot();
    }
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(after_one);
    while (resumed.epochs_done() < c.epochs) resumed.RunEpoch();
    const auto p = resumed.mlp_model().params();
    EXPECT_TRUE(SameBits(std::vector<float>(p.begin(), p.end()), straight.params));
    const EpochReport& last = straight.reports.back();
    EXPECT_GT(last.exchanged_bytes, 0u);
    EXPECT_EQ(last.bubble.has_value(), scheme == SchemeKind::kPipeline);
    if (last.bubble) {
      EXPECT_GE(*last.bubble, 0.0);
      EXPECT_LT(*last.bubble, 1.0);
    }
    EXPECT_EQ(Train(Config(scheme, 1), data, 1).reports.back().exchanged_bytes,
              scheme == SchemeKind::kSubnet
                  ? Train(Config(scheme, 1), data, 1).reports.back().exchanged_bytes
                  : 0u);
  }
}

TEST(MlpPartitions, RefuseWhatDoesNotApply) {
  auto refusal = [](TrainConfig c) { return testing::Refusal(c); };
  TrainConfig linear = Config(SchemeKind::kPipeline, 2);
  linear.model = ModelKind::kSoftmax;
  linear.batch = 0;
  EXPECT_TRUE(testing::Contains(refusal(linear),
                                "model softmax trains under the schemes sequential, hogwild, "
                                "locked, striped, atomic, sync, average, gossip and elastic; not "
                                "pipeline"));
  TrainConfig micro = Config(SchemeKind::kVertical, 2);
  micro.micro_batches = 4;
  EXPECT_TRUE(testing::Contains(refusal(micro),
                                "micro-batches 4 would be ignored: it applies to scheme pipeline; "
                                "this run's is vertical"));
  TrainConfig skeleton = Config(SchemeKind::kPipeline, 2);
  skeleton.skeleton_ratio = 0.5;
  EXPECT_TRUE(testing::Contains(refusal(skeleton),
                                "skeleton-ratio 0.5 would be ignored: it applies to scheme subnet"));
  TrainConfig period = Config(SchemeKind::kVertical, 2);
  period.period = 5;
  EXPECT_TRUE(testing::Contains(refusal(period),
                                "period 5 would be ignored: it applies to scheme average, gossip, "
                                "elastic and subnet; this run's is vertical"));
  TrainConfig state = Config(SchemeKind::kSubnet, 2);
  state.average_state = true;
  EXPECT_TRUE(testing::Contains(refusal(state), "average-state with scheme subnet"));
  EXPECT_EQ(refusal(Config(SchemeKind::kSubnet, 2)), "");
  // Settings the data decides: more micro-batches than a minibatch has samples; a skeleton too
  // small for every worker's subnetwork to have a unit of each hidden layer.
  const Dataset data = testing::Blobs(100, 7);
  auto executor = MakeTbbExecutor(2);
  TrainConfig many = Config(SchemeKind::kPipeline, 2);
  many.micro_batches = 17;
  EXPECT_THROW(Trainer t(many, data, nullptr, *executor), SettingError);
  TrainConfig thin = Config(SchemeKind::kSubnet, 2);
  thin.hidden = {1};
  thin.skeleton_ratio = 0;
  EXPECT_THROW(Trainer t(thin, data, nullptr, *executor), SettingError);
}

}  // namespace
}  // namespace parsgd
