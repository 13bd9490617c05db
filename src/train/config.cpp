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
  if (c.schedule == ScheduleKind::kGeometric && c.decay > 1) {
    fail(fmt::format("--decay for the geometric schedule is a factor per epoch in (0, 1], got {}",
                     c.decay));
  }
}

}  // namespace parsgd
