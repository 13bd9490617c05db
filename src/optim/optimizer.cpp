#include "parsgd/optim/optimizer.hpp"

namespace parsgd {

RuleContext MakeRuleContext(const OptimizerConfig& config, float eta, double t) {
  RuleContext c;
  c.eta = eta;
  c.momentum = static_cast<float>(config.momentum);
  c.rho = static_cast<float>(config.rho);
  c.beta1 = static_cast<float>(config.beta1);
  c.beta2 = static_cast<float>(config.beta2);
  c.epsilon = static_cast<float>(config.epsilon);
  const double steps = t < 1 ? 1 : t;
  c.correction1 = static_cast<float>(1.0 / (1.0 - std::pow(config.beta1, steps)));
  c.correction2 = static_cast<float>(1.0 / (1.0 - std::pow(config.beta2, steps)));
  c.momentum_eta = static_cast<float>(eta / (1.0 - config.momentum));
  return c;
}

}  // namespace parsgd
