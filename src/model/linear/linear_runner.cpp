#include "linear_runner.hpp"

namespace parsgd {

std::unique_ptr<LinearRunner> MakeLinearRunner(const TrainConfig& config,
                                               const RunnerShape& shape) {
  if (config.solver == Solver::kDualCd) return MakeDualCdRunner(config, shape);
  if (config.solver == Solver::kCd) return MakePrimalCdRunner(config, shape);
  if (IsReplicaScheme(config.scheme)) return MakeLinearReplicaRunner(config, shape);
  switch (config.scheme) {
    case SchemeKind::kSync:
      return MakeMinibatchRunner(config, shape);
    case SchemeKind::kSequential:
      if (config.batch > 1) return MakeMinibatchRunner(config, shape);
      return MakeAsyncRunner(config, shape);
    default:
      return MakeAsyncRunner(config, shape);
  }
}

}  // namespace parsgd
