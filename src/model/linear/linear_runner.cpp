#include "linear_runner.hpp"

#include <fmt/format.h>

#include "parsgd/util/error.hpp"
#include "solver/solvers.hpp"

namespace parsgd {

std::unique_ptr<LinearRunner> MakeLinearRunner(const TrainConfig& config,
                                               const RunnerShape& shape) {
  if (config.solver == Solver::kDualCd) return MakeDualCdRunner(config, shape);
  if (config.solver == Solver::kCd) return MakePrimalCdRunner(config, shape);
  if (config.solver == Solver::kNewton) return MakeNewtonRunner(config, shape);
  switch (SchemeOf(config.scheme).family) {
    case SchemeFamily::kAsync:
      // Minibatch SGD on one worker is the sync runner's step.
      if (config.scheme == SchemeKind::kSequential && config.batch > 1)
        return MakeMinibatchRunner(config, shape);
      return MakeAsyncRunner(config, shape);
    case SchemeFamily::kSync:
      return MakeMinibatchRunner(config, shape);
    case SchemeFamily::kReplica:
      return MakeLinearReplicaRunner(config, shape);
    case SchemeFamily::kAuto:
    case SchemeFamily::kPartition:
      break;
  }
  throw Error(fmt::format("scheme {} for a linear model (resolved and validated before)",
                          SchemeName(config.scheme)));
}

Error NotAsync(SchemeKind scheme) {
  return Error(fmt::format("scheme {}: not an asynchronous scheme", SchemeName(scheme)));
}

}  // namespace parsgd
