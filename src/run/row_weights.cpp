#include "row_weights.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/class_weights.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {

Weighted WeighRows(const TrainConfig& given, const Dataset& train, Targets& train_targets,
                   std::optional<Targets>& test_targets, std::optional<Targets>& held_targets,
                   Communicator& ranks) {
  Weighted weighted;
  if (given.class_weight != "none") {
    ranks.AgreeOn([&] {
      if (train_targets.regression) {
        throw SettingError(fmt::format("`class-weight` {}: {}'s labels are real values, not classes",
                                       given.class_weight, train.source()));
      }
    });
    std::vector<uint64_t> counts = ClassCounts(train_targets);
    ranks.SumAll(std::span<uint64_t>(counts));
    std::vector<double> weights;
    ranks.AgreeOn([&] {
      try {
        weights = ClassWeightsOf(ParseClassWeights(given.class_weight), train_targets.labels, counts);
      } catch (const Error& e) {
        throw SettingError(fmt::format("`class-weight` {}: {}", given.class_weight, e.what()));
      }
    });
    WeighClasses(train_targets, weights);
    if (test_targets) WeighClasses(*test_targets, weights);
    if (held_targets) WeighClasses(*held_targets, weights);
    weighted.classes = std::move(weights);
  }
  weighted.train = ScaleWeightsToMeanOne(train_targets, train.source(), ranks);
  if (test_targets) weighted.test = ScaleWeightsToMeanOne(*test_targets, "the test data", ranks);
  // The held-out rows are measured by their weighted loss; their accuracy stays the share right.
  if (held_targets) ScaleWeightsToMeanOne(*held_targets, "the held-out rows", ranks);
  return weighted;
}

}  // namespace parsgd
