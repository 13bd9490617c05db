// --workers: the deterministic schemes' logical workers, decoupled from the threads that run them.
// The same workers give the same model bits on any thread count, for every deterministic scheme
// that has workers (the linear models', cd's average, the MLP's, the MLP's partitions).
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

std::vector<float> Trained(TrainConfig config, const Dataset& data, int threads) {
  config.threads = threads;
  auto executor = MakeTbbExecutor(threads);
  Trainer trainer(config, data, nullptr, *executor);
  // The pipeline has at most a worker a layer, vertical at most a unit of the narrowest.
  if (config.scheme != SchemeKind::kPipeline && config.scheme != SchemeKind::kVertical) {
    EXPECT_EQ(trainer.settings().workers, config.workers);
  }
  testing::TrainFor(trainer, config.epochs);
  const std::span<const float> p =
      config.model == ModelKind::kMlp ? trainer.mlp_model().params() : trainer.model().weights();
  return {p.begin(), p.end()};
}

void ExpectSameOnOneTwoAndFourThreads(const TrainConfig& config, const Dataset& data) {
  const std::vector<float> one = Trained(config, data, 1);
  for (int threads : {2, 4}) {
    const std::vector<float> other = Trained(config, data, threads);
    ASSERT_EQ(other.size(), one.size());
    EXPECT_EQ(std::memcmp(other.data(), one.data(), one.size() * sizeof(float)), 0)
        << threads << " threads";
  }
}

TEST(Workers, TheSameBitsOnAnyThreadCount) {
  const Dataset sparse = testing::MakeProblem(600, 80, 6, 2, 0.05, 21);
  for (SchemeKind scheme :
       {SchemeKind::kSync, SchemeKind::kAverage, SchemeKind::kGossip, SchemeKind::kElastic}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.scheme = scheme;
    c.workers = 4;
    c.epochs = 3;
    c.batch = scheme == SchemeKind::kSync ? 32 : 0;
    c.asgd = scheme == SchemeKind::kElastic ? kAsgdOff : 1;
    ExpectSameOnOneTwoAndFourThreads(c, sparse);
  }
  TrainConfig cd;
  cd.solver = Solver::kCd;
  cd.scheme = SchemeKind::kAverage;
  cd.workers = 4;
  cd.epochs = 3;
  ExpectSameOnOneTwoAndFourThreads(cd, sparse);
  const Dataset dense = testing::Blobs(300, 5);
  for (SchemeKind scheme : {SchemeKind::kSync, SchemeKind::kAverage, SchemeKind::kPipeline,
                            SchemeKind::kVertical, SchemeKind::kSubnet}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.model = ModelKind::kMlp;
    c.hidden = {8, 8};
    c.scheme = scheme;
    c.workers = 4;
    c.epochs = 2;
    c.batch = 16;
    c.mlp_backend = MlpBackend::kReference;
    ExpectSameOnOneTwoAndFourThreads(c, dense);
  }
}

// Workers change the result (the test above can fail), and the asynchronous schemes, whose result
// depends on timing, refuse them as ignored.
TEST(Workers, ChangeTheResultAndTheTimedSchemesRefuseThem) {
  const Dataset sparse = testing::MakeProblem(600, 80, 6, 2, 0.05, 22);
  TrainConfig c;
  c.scheme = SchemeKind::kAverage;
  c.workers = 4;
  c.epochs = 2;
  TrainConfig two = c;
  two.workers = 2;
  EXPECT_NE(Trained(c, sparse, 2), Trained(two, sparse, 2));
  TrainConfig hogwild;
  hogwild.scheme = SchemeKind::kHogwild;
  hogwild.workers = 4;
  EXPECT_TRUE(testing::Contains(testing::Refusal(hogwild), "workers")) << testing::Refusal(hogwild);
  hogwild.scheme = SchemeKind::kSequential;
  EXPECT_TRUE(testing::Contains(testing::Refusal(hogwild), "workers")) << testing::Refusal(hogwild);
}

}  // namespace
}  // namespace parsgd
