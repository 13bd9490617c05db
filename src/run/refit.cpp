#include "parsgd/run/refit.hpp"

namespace parsgd {

RefitPlan PlanRefit(const TrainConfig& given, const Trainer& first, int best) {
  RefitPlan plan;
  plan.config = given;
  plan.config.validation_fraction = 0;
  plan.config.schedule = first.config().schedule;
  plan.config.epochs = first.settings().epochs;
  plan.last = best;
  for (const uint64_t e : first.step_cuts()) {
    if (e < static_cast<uint64_t>(best)) plan.cuts.push_back(e);
  }
  return plan;
}

bool IsHeldOutSetting(std::string_view key) {
  return key == "patience" || key == "validation-metric" || key == "validation-fraction";
}

}  // namespace parsgd
