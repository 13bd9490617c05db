#include "parsgd/train/config.hpp"

#include <cmath>
#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd {

void ValidateConfig(const TrainConfig& c) {
  auto fail = [](const std::string& what) { throw Error(what); };
  if (c.threads < 0) fail(fmt::format("--threads must be at least 1 (or 0 for all cores), got {}", c.threads));
  if (c.epochs < 0) fail(fmt::format("--epochs must be at least 1 (or 0 for automatic), got {}", c.epochs));
  if (!std::isfinite(c.learning_rate) || c.learning_rate < 0) {
    fail(fmt::format("--learning-rate must be positive (or 0 for automatic), got {}", c.learning_rate));
  }
  if (!std::isfinite(c.l2)) fail(fmt::format("--l2 must be finite, got {}", c.l2));
  if (!std::isfinite(c.decay) || c.decay < 0) {
    fail(fmt::format("--decay must be positive (or 0 for the schedule's default), got {}", c.decay));
  }
  if (c.batch < 0) fail(fmt::format("--batch must be at least 1, got {}", c.batch));
  if (c.period < -1) fail(fmt::format("--period must be at least 1 (or 'epoch' or 'auto'), got {}", c.period));
  const bool minibatch_scheme = c.scheme == SchemeKind::kSequential || c.scheme == SchemeKind::kSync ||
                                IsReplicaScheme(c.scheme) || c.scheme == SchemeKind::kAuto;
  if (c.batch > 1 && !minibatch_scheme && IsLinear(c.model)) {
    fail(fmt::format("--batch {} with --scheme {}: for linear models minibatches apply to the "
                     "sequential, sync, average and gossip schemes; the asynchronous schemes "
                     "update per sample",
                     c.batch, NameOf<SchemeKind>(kSchemeKinds, c.scheme)));
  }
  if (c.model == ModelKind::kMlp && c.scheme == SchemeKind::kStriped) {
    fail("--scheme striped locks the coordinates a sample touches; an MLP minibatch touches all "
         "of them: use --scheme locked");
  }
  if (c.deterministic && !IsDeterministic(c.scheme)) {
    fail(fmt::format("--deterministic with --scheme {}: its update order depends on thread timing; "
                     "use sequential, sync, average or gossip",
                     NameOf<SchemeKind>(kSchemeKinds, c.scheme)));
  }
  if (c.backend == Backend::kOffload) {
    if (!IsLinear(c.model)) {
      fail("--backend offload trains the linear models (logistic, hinge, squared, softmax); the "
           "mlp runs on the cpu backend");
    }
    if (c.scheme != SchemeKind::kAuto && c.scheme != SchemeKind::kSequential &&
        c.scheme != SchemeKind::kHogwild && c.scheme != SchemeKind::kAtomic &&
        c.scheme != SchemeKind::kSync) {
      fail(fmt::format("--backend offload runs the schemes sequential, hogwild, atomic and sync; "
                       "not {}",
                       NameOf<SchemeKind>(kSchemeKinds, c.scheme)));
    }
  } else if (c.require_gpu) {
    fail("--require-gpu needs --backend offload");
  }
  const OptimizerConfig& o = c.optimizer;
  auto in_unit = [](double v) { return std::isfinite(v) && v >= 0 && v < 1; };
  if (!in_unit(o.momentum)) fail(fmt::format("--momentum must be in [0, 1), got {}", o.momentum));
  if (!in_unit(o.rho)) fail(fmt::format("--rho must be in [0, 1), got {}", o.rho));
  if (!in_unit(o.beta1)) fail(fmt::format("--beta1 must be in [0, 1), got {}", o.beta1));
  if (!in_unit(o.beta2)) fail(fmt::format("--beta2 must be in [0, 1), got {}", o.beta2));
  if (!(std::isfinite(o.epsilon) && o.epsilon > 0)) {
    fail(fmt::format("--epsilon must be positive, got {}", o.epsilon));
  }
  const OuterConfig& outer = c.outer;
  if (!(std::isfinite(outer.learning_rate) && outer.learning_rate > 0)) {
    fail(fmt::format("--outer-learning-rate must be positive, got {}", outer.learning_rate));
  }
  if (!in_unit(outer.momentum)) {
    fail(fmt::format("--outer-momentum must be in [0, 1), got {}", outer.momentum));
  }
  if (!outer.plain() && c.scheme != SchemeKind::kAverage) {
    fail(fmt::format("--outer-optimizer {} --outer-learning-rate {}: the outer step acts on the "
                     "replicas' average, so it needs --scheme average (gossip takes no average)",
                     NameOf<OuterKind>(kOuterKinds, outer.kind), outer.learning_rate));
  }
  if (c.schedule == ScheduleKind::kGeometric && c.decay > 1) {
    fail(fmt::format("--decay for the geometric schedule is a factor per epoch in (0, 1], got {}",
                     c.decay));
  }
}

std::string OuterSettings(const TrainConfig& c) {
  if (c.outer.plain()) return "";
  return fmt::format("outer_optimizer={}\nouter_learning_rate={:.17g}\nouter_momentum={:.17g}\n",
                     NameOf<OuterKind>(kOuterKinds, c.outer.kind), c.outer.learning_rate,
                     c.outer.momentum);
}

}  // namespace parsgd
