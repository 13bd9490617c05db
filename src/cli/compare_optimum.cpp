#include "compare_optimum.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>

#include "parsgd/exec/executor.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::cli {
namespace {

// The relative duality gap dual-cd is run to, and the relative decrease per epoch primal cd stops
// at; both capped at the coordinate solvers' 1000 epochs.
constexpr double kDualTolerance = 1e-10;
constexpr double kPrimalTolerance = 1e-12;

// What defines the objective of `run`, on a fresh config (every other setting at its default, so
// that nothing the solver would ignore is set): the model and loss, the penalties, the bias and
// the weights. (--normalize is SGD's step scaling, not the objective's.)
TrainConfig ObjectiveOf(const TrainConfig& run, Solver solver) {
  TrainConfig c;
  c.model = run.model;
  c.l2 = run.l2;
  c.l1 = run.l1;
  c.loss_epsilon = run.loss_epsilon;
  c.multiclass = run.multiclass;
  c.class_weight = run.class_weight;
  c.bias = run.bias;
  c.seed = run.seed;
  c.solver = solver;
  c.scheme = SchemeKind::kSequential;  // one worker: the same bits on any machine
  c.threads = 1;
  c.tol = solver == Solver::kDualCd ? kDualTolerance : kPrimalTolerance;
  return c;
}

// Why `solver` cannot certify or reach the objective of `run`; empty when it may try.
std::string WhyNot(const TrainConfig& run, Solver solver) {
  const ModelKind m = run.model;
  if (solver == Solver::kDualCd) {
    if (m == ModelKind::kSquared) return "dual-cd solves logistic, hinge and squared-hinge";
    if (run.bias != Bias::kOff) return "dual-cd solves the problem without a bias (--bias off)";
    if (run.l1 > 0) return "dual-cd has no L1 term";
    if (run.l2 == 0) return "dual-cd needs an L2 term";
    return "";
  }
  if (m == ModelKind::kHinge) return "cd solves logistic, squared-hinge and squared";
  return "";
}

}  // namespace

std::string WhyNoOptimum(const TrainConfig& run) {
  if (run.validation_fraction > 0) {
    return "rows are held out (--validation-fraction), other rows in each repeat: no one "
           "objective";
  }
  const ModelKind m = run.model;
  if (m != ModelKind::kLogistic && m != ModelKind::kHinge && m != ModelKind::kSquaredHinge &&
      m != ModelKind::kSquared) {
    return fmt::format(
        "no solver certifies `model` {}: dual-cd solves logistic, hinge and squared-hinge, cd "
        "logistic, squared-hinge and squared",
        NameOf<ModelKind>(kModelKinds, m));
  }
  return "";
}

compare::Reference SolveOptimum(const std::string& problem, const TrainConfig& run,
                                const Dataset& train, InterruptGuard& guard) {
  compare::Reference out;
  out.problem = problem;
  out.why_none = WhyNoOptimum(run);
  if (!out.why_none.empty()) return out;
  std::string why;
  for (Solver solver : {Solver::kDualCd, Solver::kCd}) {
    const std::string not_here = WhyNot(run, solver);
    if (!not_here.empty()) {
      why += (why.empty() ? "" : "; ") + not_here;
      continue;
    }
    auto executor = MakeTbbExecutor(1);  // outlives the watch on its stop flag
    try {
      const TrainConfig config = ObjectiveOf(run, solver);
      Trainer trainer(config, train, nullptr, *executor);
      RunLoopOptions loop;
      loop.snapshots = RunLoopOptions::Snapshots::kNone;
      std::optional<EpochReport> last;
      const auto start = std::chrono::steady_clock::now();
      guard.Watch(executor->stop_flag());
      const RunLoopResult result =
          RunEpochs(trainer, loop, [&](const EpochReport& r, double) { last = r; });
      guard.WatchOwn();
      if (result.interrupted) {
        out.why_none = "interrupted";
        return out;
      }
      if (!last) throw Error("no epoch ran");
      out.solver = NameOf<Solver>(kSolvers, solver);
      out.objective = last->objective;
      if (last->dual_objective) out.gap = last->objective - *last->dual_objective;
      out.epochs = last->epoch;
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return out;
    } catch (const std::exception& e) {
      guard.WatchOwn();
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", NameOf<Solver>(kSolvers, solver),
                         e.what());
    }
  }
  out.why_none = why;
  return out;
}

}  // namespace parsgd::cli
