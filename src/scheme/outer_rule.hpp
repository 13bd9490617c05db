// Internal: the outer optimiser's rule (--outer-optimizer), written once for the two levels that
// average models: the replicas of one process (scheme/average.hpp) and the ranks of a run
// (run/trainer.cpp). The averaging step keeps the model of the last combination, the anchor a, and
// treats d = a - mean as the gradient of an outer rule on it: sgd a -= lr d; momentum (SlowMo, Wang
// et al. 2020) v = mu v + d, a -= lr v; nesterov (DiLoCo's outer step) v = mu v + d, a -= lr (d +
// mu v).
#pragma once

#include <cstdint>

#include "parsgd/config/train_config.hpp"

namespace parsgd {

// The outer step on coordinates [begin, end): anchor[i] moves from mean[i]'s pull; velocity may be
// null for outer sgd.
inline void OuterStep(const OuterConfig& outer, float* anchor, const float* mean, float* velocity,
                      uint64_t begin, uint64_t end) {
  const float lr = static_cast<float>(outer.learning_rate);
  const float mu = static_cast<float>(outer.momentum);
  for (uint64_t i = begin; i < end; ++i) {
    const float d = anchor[i] - mean[i];
    switch (outer.kind) {
      case OuterKind::kSgd:
        anchor[i] -= lr * d;
        break;
      case OuterKind::kMomentum:
        velocity[i] = mu * velocity[i] + d;
        anchor[i] -= lr * velocity[i];
        break;
      case OuterKind::kNesterov:
        velocity[i] = mu * velocity[i] + d;
        anchor[i] -= lr * (d + mu * velocity[i]);
        break;
    }
  }
}

}  // namespace parsgd
