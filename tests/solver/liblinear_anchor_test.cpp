// The coordinate-descent solvers and newton reach LIBLINEAR's optimum on a fixture (data/fixtures/anchor.svm:
// `parsgd gen --rows 400 --features 300 --nnz 12 --seed 7`, LIBSVM text). The reference values are
// LIBLINEAR 2.3.0's (Debian's liblinear-tools) at a tight tolerance, C = 1, no bias:
//     liblinear-train -s 3 -c 1 -e 1e-9 anchor.svm   (L1-loss SVM, dual)
//     liblinear-train -s 1 -c 1 -e 1e-9 anchor.svm   (L2-loss SVM, dual; -s 2 agrees to 1e-14)
//     liblinear-train -s 7 -c 1 -e 1e-9 anchor.svm   (logistic, dual; -s 0 agrees to 1e-13)
// their primal 1/2 ||w||^2 + C sum loss(y_i w.x_i) computed from the model files in double with
// numpy (data/README.md). parsgd's objective is that primal divided by C n, with --l2 auto (C = 1).
#include <gtest/gtest.h>

#include "parsgd/data/load.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr double kHingePrimal = 208.29522288003633;
constexpr double kLogisticPrimal = 226.84915703696876;
constexpr double kSquaredHingePrimal = 165.39520595056328;

double PrimalOf(Solver solver, ModelKind model, SchemeKind scheme, int threads) {
  auto executor = MakeTbbExecutor(threads);
  const Dataset data = LoadDataset(testing::SourcePath("data/fixtures/anchor.svm"));
  TrainConfig c;
  c.model = model;
  c.solver = solver;
  c.bias = Bias::kOff;
  c.scheme = scheme;
  c.threads = threads;
  c.epochs = 1000;
  c.tol = solver == Solver::kDualCd ? 1e-9 : solver == Solver::kNewton ? 1e-10 : 1e-12;
  Trainer trainer(c, data, nullptr, *executor);
  const RunLoopResult r = RunEpochs(trainer, {}, [](const EpochReport&, double) {});
  return r.last.objective * static_cast<double>(data.rows());  // C n, C = 1
}

TEST(LiblinearAnchor, DualCdReachesLiblinearsSvmAndLogisticOptima) {
  for (auto [scheme, threads] :
       {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kHogwild, 2}}) {
    EXPECT_NEAR(PrimalOf(Solver::kDualCd, ModelKind::kHinge, scheme, threads), kHingePrimal,
                1e-6 * kHingePrimal);
    EXPECT_NEAR(PrimalOf(Solver::kDualCd, ModelKind::kSquaredHinge, scheme, threads),
                kSquaredHingePrimal, 1e-6 * kSquaredHingePrimal);
    EXPECT_NEAR(PrimalOf(Solver::kDualCd, ModelKind::kLogistic, scheme, threads), kLogisticPrimal,
                1e-6 * kLogisticPrimal);
  }
}

TEST(LiblinearAnchor, PrimalCdReachesLiblinearsLogisticAndSvmOptima) {
  for (auto [scheme, threads] :
       {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kHogwild, 2},
        std::pair{SchemeKind::kAverage, 2}}) {
    EXPECT_NEAR(PrimalOf(Solver::kCd, ModelKind::kLogistic, scheme, threads), kLogisticPrimal,
                1e-6 * kLogisticPrimal);
    EXPECT_NEAR(PrimalOf(Solver::kCd, ModelKind::kSquaredHinge, scheme, threads),
                kSquaredHingePrimal, 1e-6 * kSquaredHingePrimal);
  }
}

TEST(LiblinearAnchor, NewtonReachesLiblinearsLogisticAndSvmOptima) {
  for (const int threads : {1, 2}) {
    EXPECT_NEAR(PrimalOf(Solver::kNewton, ModelKind::kLogistic, SchemeKind::kSync, threads),
                kLogisticPrimal, 1e-6 * kLogisticPrimal);
    EXPECT_NEAR(PrimalOf(Solver::kNewton, ModelKind::kSquaredHinge, SchemeKind::kSync, threads),
                kSquaredHingePrimal, 1e-6 * kSquaredHingePrimal);
  }
}

}  // namespace
}  // namespace parsgd
