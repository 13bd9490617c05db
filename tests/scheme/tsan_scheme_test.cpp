// Every scheme with workers on plain std::threads, so that a ThreadSanitizer build sees every
// access (TBB is not instrumented). Run under TSan by the `tsan` preset; in the normal build these
// are ordinary tests of the schemes under real concurrency.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/scheme/write_policy.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

class Scheme : public ::testing::TestWithParam<std::tuple<SchemeKind, ModelKind>> {};

TEST_P(Scheme, TrainsWithConcurrentThreads) {
  auto [scheme, model] = GetParam();
  const int classes = model == ModelKind::kSoftmax ? 3 : 2;
  // Few features and hot low columns: the workers collide on the same coordinates all the time.
  const Dataset data = testing::MakeProblem(1500, 20, 6, classes, 0.05, 8);
  TrainConfig config;
  config.model = model;
  config.scheme = scheme;
  config.threads = 4;
  config.epochs = 8;
  config.batch = scheme == SchemeKind::kSync ? 32 : 0;  // enough steps on 1500 rows
  auto executor = MakeThreadExecutor(4);
  Trainer trainer(config, data, nullptr, *executor);
  const EpochReport first = trainer.RunEpoch();
  EpochReport last = first;
  for (int e = 1; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(last.updates, data.rows());
  EXPECT_LT(last.objective, first.objective * 1.05);
  EXPECT_GT(last.train_accuracy, 0.75);
}

INSTANTIATE_TEST_SUITE_P(
    Tsan, Scheme,
    ::testing::Combine(::testing::Values(SchemeKind::kHogwild, SchemeKind::kLocked,
                                         SchemeKind::kStriped, SchemeKind::kAtomic,
                                         SchemeKind::kSync, SchemeKind::kAverage,
                                         SchemeKind::kGossip, SchemeKind::kElastic),
                       ::testing::Values(ModelKind::kLogistic, ModelKind::kSoftmax)),
    testing::ParamName());

// The dual solver's shared weights and dual variables, and --bias off, under real concurrency (the
// random order lets two workers draw the same sample, so they meet on its dual variable too).
class DualCdScheme : public ::testing::TestWithParam<std::tuple<ModelKind, SchemeKind, OrderKind>> {
};

TEST_P(DualCdScheme, TrainsWithConcurrentThreads) {
  auto [model, scheme, order] = GetParam();
  // 400 features: on 20, where four Hogwild! workers write the same few weights all the time and
  // lose many of those writes (hogwild's relaxed stores), the dual steps taken from such weights
  // made the squared hinge's primal rise over six epochs in 2 to 3 runs of 300 (the weights are
  // w(a) again at each epoch's end, but a was already off); atomic and locked, which lose no
  // write, never did. The test is of the races, not of so contended a problem.
  const Dataset data = testing::MakeProblem(1500, 400, 6, 2, 0.05, 8);
  TrainConfig config;
  config.model = model;
  config.solver = Solver::kDualCd;
  config.bias = Bias::kOff;
  config.scheme = scheme;
  config.order = order;
  config.threads = 4;
  config.epochs = 6;
  config.l2 = 0.01;
  auto executor = MakeThreadExecutor(4);
  Trainer trainer(config, data, nullptr, *executor);
  const EpochReport first = trainer.RunEpoch();
  EpochReport last = first;
  for (int e = 1; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(first.updates, data.rows());  // the SVMs' shrinking sets rows aside from then on
  EXPECT_LE(last.updates, data.rows());
  EXPECT_LT(last.objective, first.objective);
  EXPECT_GT(last.train_accuracy, 0.75);
  EXPECT_EQ(trainer.model().bias()[0], 0.f);
  // Weak duality holds for what the race left: the weights are w(a) after every epoch.
  EXPECT_GE(*last.relative_gap(), -1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Tsan, DualCdScheme,
    ::testing::Combine(::testing::Values(ModelKind::kHinge, ModelKind::kSquaredHinge,
                                         ModelKind::kLogistic),
                       ::testing::Values(SchemeKind::kHogwild, SchemeKind::kLocked,
                                         SchemeKind::kStriped, SchemeKind::kAtomic),
                       ::testing::Values(OrderKind::kGlobal, OrderKind::kRandom)),
    testing::ParamName());

// Newton's passes under real concurrency: the rows' blocks and the features' blocks written by
// one thread each, the row blocks' sums apart; both ways of summing X^T u (by column on 400
// sparse features, by rows on 10).
TEST(NewtonPasses, TrainWithConcurrentThreads) {
  for (const uint64_t features : {400, 10}) {
    const Dataset data = testing::MakeProblem(1500, features, 6, 2, 0.05, 8);
    for (Bias bias : {Bias::kOff, Bias::kOn}) {
      TrainConfig config;
      config.model = ModelKind::kLogistic;
      config.solver = Solver::kNewton;
      config.bias = bias;
      config.threads = 4;
      config.epochs = 4;
      config.l2 = 0.01;
      config.tol = 0;
      auto executor = MakeThreadExecutor(4);
      Trainer trainer(config, data, nullptr, *executor);
      const EpochReport first = trainer.RunEpoch();
      EpochReport last = first;
      for (int e = 1; e < config.epochs; ++e) last = trainer.RunEpoch();
      EXPECT_EQ(last.updates, data.rows());
      EXPECT_LT(last.objective, first.objective);
      EXPECT_GT(last.train_accuracy, 0.75);
    }
  }
}

// Primal cd's shared scores (hogwild: relaxed stores, atomic: compare-and-swap; average: a copy
// per worker) under real concurrency, the weights each written by their block's worker only.
class PrimalCdScheme : public ::testing::TestWithParam<std::tuple<ModelKind, SchemeKind>> {};

TEST_P(PrimalCdScheme, TrainsWithConcurrentThreads) {
  auto [model, scheme] = GetParam();
  // 400 features: on 20 (correlated, of one sign), four workers stepping coordinates at once
  // overshoot together (Shotgun converges while the workers are few against the features over
  // the data's spectral radius, Bradley et al. 2011) and the squared hinge's objective rose over
  // six epochs under hogwild or atomic in about 3 runs of 400 (each time without the bias).
  const Dataset data = testing::MakeProblem(1500, 400, 6, 2, 0.05, 8);
  for (Bias bias : {Bias::kOff, Bias::kOn}) {  // on: the workers' moves of b shared too
    TrainConfig config;
    config.model = model;
    config.solver = Solver::kCd;
    config.bias = bias;
    config.scheme = scheme;
    config.threads = 4;
    config.epochs = 6;
    config.l2 = 0.01;
    config.tol = 0;
    auto executor = MakeThreadExecutor(4);
    Trainer trainer(config, data, nullptr, *executor);
    const EpochReport first = trainer.RunEpoch();
    EpochReport last = first;
    for (int e = 1; e < config.epochs; ++e) last = trainer.RunEpoch();
    EXPECT_EQ(last.updates, data.rows());
    EXPECT_LT(last.objective, first.objective);
    EXPECT_GT(last.train_accuracy, 0.75);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Tsan, PrimalCdScheme,
    ::testing::Combine(
        ::testing::Values(ModelKind::kSquared, ModelKind::kSquaredHinge, ModelKind::kLogistic),
        ::testing::Values(SchemeKind::kHogwild, SchemeKind::kAtomic, SchemeKind::kAverage)),
    testing::ParamName());

// Optimiser state is shared like the weights (hogwild, atomic) or kept per replica (average).
class SchemeAndOptimizer : public ::testing::TestWithParam<std::tuple<SchemeKind, OptimizerKind>> {
};

TEST_P(SchemeAndOptimizer, TrainsWithConcurrentThreads) {
  auto [scheme, optimizer] = GetParam();
  const Dataset data = testing::MakeProblem(1200, 20, 6, 2, 0.05, 9);
  TrainConfig config;
  config.scheme = scheme;
  config.optimizer.kind = optimizer;
  config.threads = 3;
  config.epochs = 8;
  config.batch = scheme == SchemeKind::kSync ? 24 : 0;
  config.average_state = true;
  config = testing::OnlyApplied(config);
  auto executor = MakeThreadExecutor(3);
  Trainer trainer(config, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(last.updates, data.rows());
  EXPECT_GT(last.train_accuracy, 0.75);
}

INSTANTIATE_TEST_SUITE_P(
    Tsan, SchemeAndOptimizer,
    ::testing::Combine(::testing::Values(SchemeKind::kHogwild, SchemeKind::kAtomic,
                                         SchemeKind::kSync, SchemeKind::kAverage),
                       ::testing::Values(OptimizerKind::kMomentum, OptimizerKind::kAdam)),
    testing::ParamName());

// --l1: sgd's cumulative penalty keeps what each weight was given beside it (shared like the
// weights, or per replica), adagrad truncates at its step; cd sets columns aside per worker.
class L1Scheme : public ::testing::TestWithParam<std::tuple<SchemeKind, OptimizerKind>> {};

TEST_P(L1Scheme, TrainsWithConcurrentThreads) {
  auto [scheme, optimizer] = GetParam();
  const Dataset data = testing::MakeProblem(1200, 40, 6, 2, 0.05, 9);
  TrainConfig config;
  config.scheme = scheme;
  config.optimizer.kind = optimizer;
  config.threads = 3;
  config.epochs = 8;
  config.batch = scheme == SchemeKind::kSync ? 24 : 0;
  config.l1 = 0.005;
  config = testing::OnlyApplied(config);
  auto executor = MakeThreadExecutor(3);
  Trainer trainer(config, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(last.updates, data.rows());
  EXPECT_GT(last.train_accuracy, 0.75);
  ASSERT_TRUE(last.nonzero_weights.has_value());
  if (optimizer == OptimizerKind::kSgd) EXPECT_LT(*last.nonzero_weights, 40u);  // exact zeros
  if (scheme == SchemeKind::kHogwild && optimizer == OptimizerKind::kSgd) {
    config.solver = Solver::kCd;
    config.tol = 0;
    Trainer cd(testing::OnlyApplied(config), data, nullptr, *executor);
    for (int e = 0; e < config.epochs; ++e) last = cd.RunEpoch();
    EXPECT_GT(last.train_accuracy, 0.75);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Tsan, L1Scheme,
    ::testing::Combine(::testing::Values(SchemeKind::kHogwild, SchemeKind::kAtomic,
                                         SchemeKind::kSync, SchemeKind::kAverage),
                       ::testing::Values(OptimizerKind::kSgd, OptimizerKind::kAdaGrad)),
    testing::ParamName());

// --asgd: the means and their clocks beside the shared weights, caught up by every worker through
// the scheme's write policy (sync: by the owners of the features).
class AsgdScheme : public ::testing::TestWithParam<SchemeKind> {};

TEST_P(AsgdScheme, TrainsWithConcurrentThreads) {
  const Dataset data = testing::MakeProblem(1200, 40, 6, 2, 0.05, 13);
  TrainConfig config;
  config.scheme = GetParam();
  config.threads = 3;
  config.epochs = 4;
  config.batch = GetParam() == SchemeKind::kSync ? 24 : 0;
  if (GetParam() == SchemeKind::kAverage || GetParam() == SchemeKind::kGossip) {
    config.period = 5;  // many combining steps, each after a catch-up
  }
  config.asgd = 1;
  auto executor = MakeThreadExecutor(3);
  Trainer trainer(config, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(last.updates, data.rows());
  EXPECT_GT(last.train_accuracy, 0.75);
}

INSTANTIATE_TEST_SUITE_P(Tsan, AsgdScheme,
                         ::testing::Values(SchemeKind::kHogwild, SchemeKind::kAtomic,
                                           SchemeKind::kStriped, SchemeKind::kSync,
                                           SchemeKind::kAverage, SchemeKind::kGossip),
                         testing::ParamName());

// The MLP's dense schemes: shared parameters (hogwild: snapshots by relaxed loads, block updates by
// relaxed stores; atomic: compare-and-swap), owner-partitioned sync updates, replicas, the model
// partitions (pipeline stages, vertical slices, subnetworks). The
// reference engine keeps oneDNN's OpenMP runtime (not instrumented) out of the TSan build.
class MlpScheme : public ::testing::TestWithParam<SchemeKind> {};

TEST_P(MlpScheme, TrainsWithConcurrentThreads) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 240; ++i) {
    const uint32_t c = static_cast<uint32_t>(i % 3);
    rows.push_back({{c, 1.f}, {3 + c, 0.5f}});
    labels.push_back(static_cast<float>(c));
  }
  const Dataset data = testing::MakeDataset(rows, labels, 6);
  TrainConfig config;
  config.model = ModelKind::kMlp;
  config.hidden = {8};
  config.mlp_backend = MlpBackend::kReference;
  config.scheme = GetParam();
  config.threads = 2;
  config.epochs = 6;
  config.batch = 8;
  // The replica schemes that combine the optimiser state too (the others have one state each).
  config.average_state =
      config.scheme == SchemeKind::kAverage || config.scheme == SchemeKind::kGossip;
  auto executor = MakeThreadExecutor(2);
  Trainer trainer(config, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(last.updates, data.rows());
  EXPECT_GT(last.train_accuracy, 0.9);
}

INSTANTIATE_TEST_SUITE_P(Tsan, MlpScheme,
                         ::testing::Values(SchemeKind::kHogwild, SchemeKind::kLocked,
                                           SchemeKind::kAtomic, SchemeKind::kSync,
                                           SchemeKind::kAverage, SchemeKind::kGossip, SchemeKind::kElastic,
                                           SchemeKind::kPipeline, SchemeKind::kVertical,
                                           SchemeKind::kSubnet),
                         testing::ParamName());

// All threads add to the same coordinates: compare-and-swap loses nothing; the racy store may lose
// updates but never produces a value no thread wrote: every value a thread reads is 0 or a value
// some Modify returned as stored, and so is the final one. (It asserted the final value was at
// least one thread's adds, which a store that sets the value back breaks: 19928 of 20000 once.)
TEST(Tsan, AtomicWritesLoseNothingAndRacyWritesStayInRange) {
  constexpr int kThreads = 4, kAdds = 20000;
  float exact = 0, racy = 0;
  std::vector<std::vector<float>> read(kThreads), stored(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < kAdds; ++i) {
        CasWrite::Modify(exact, [](float x) { return x + 1.f; });
        stored[t].push_back(StoreWrite::Modify(racy, [&](float x) {
          read[t].push_back(x);
          return x + 1.f;
        }));
      }
    });
  }
  for (auto& t : pool) t.join();
  EXPECT_EQ(exact, kThreads * kAdds);
  // A racing store can set the value back (a thread that read 5 stores 6 after the others added
  // more), so the final value is only some thread's store: at least 1, at most every add.
  EXPECT_GE(racy, 1.f);
  EXPECT_LE(racy, float{kThreads * kAdds});
  std::set<float> written = {0.f};
  for (const auto& s : stored) written.insert(s.begin(), s.end());
  EXPECT_TRUE(written.contains(racy)) << racy;
  for (int t = 0; t < kThreads; ++t) {
    for (float x : read[t]) ASSERT_TRUE(written.contains(x)) << "thread " << t << " read " << x;
  }
}

// Striped locks: samples that share features update them under the same stripe lock, so a
// read-modify-write of a shared coordinate is never interleaved: with StoreWrite inside the guard
// no update is lost, on every vector path of the kernels (parsgd/kernel/isa.hpp) this CPU has. The
// bias is compare-and-swap. Every sample adds exactly 1 to each coordinate.
TEST(Tsan, StripedLocksMakeRacyStoresExact) {
  constexpr int kThreads = 4, kSteps = 5000;
  const uint32_t index[] = {0, 3, 17, 40};
  const float value[] = {1.f, 1.f, 1.f, 1.f};
  const SparseRow row{index, value, 4};
  for (Isa isa : kIsas) {
    if (!CpuSupports(isa)) continue;
    StripedScheme scheme(64, 1);
    std::vector<float> w(65, 0.f);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t) {
      pool.emplace_back([&] {
        const float d = -1.f;  // with eta = 1: every coordinate gains exactly 1
        const RuleContext c = MakeRuleContext(OptimizerConfig{}, 1.f, 1);
        LinearParams p{{w.data(), nullptr, nullptr}, 64, 1, nullptr};
        p.isa = isa;
        for (int i = 0; i < kSteps; ++i) {
          StripedScheme::Guard guard(scheme, row);
          LinearUpdate<1, SgdRule, StripedScheme::Write, StripedScheme::BiasWrite>(p, row, &d, c);
        }
      });
    }
    for (auto& t : pool) t.join();
    for (uint32_t j : index) EXPECT_EQ(w[j], kThreads * kSteps) << j << " " << IsaName(isa);
    EXPECT_EQ(w[64], kThreads * kSteps) << IsaName(isa);  // bias
    EXPECT_EQ(w[1], 0.f) << IsaName(isa);
  }
}

}  // namespace
}  // namespace parsgd
