// Internal to the generator: O(1) sampling from a fixed discrete distribution.
// Walker's alias method with Vose's stable construction (M. D. Vose, "A linear algorithm for
// generating random numbers with a given distribution", IEEE TSE 17(9), 1991).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parsgd/util/rng.hpp"

namespace parsgd::generator_internal {

class AliasTable {
 public:
  // `weights`: nonnegative, not all zero, fewer than 2^32. Cost O(n) time, 12 bytes per entry.
  // Construction is sequential and deterministic.
  explicit AliasTable(std::span<const double> weights);

  // An index drawn with probability weights[i] / sum(weights). Two draws from `rng`.
  uint32_t Sample(Rng& rng) const {
    const uint64_t column = rng.Uniform(probability_.size());
    return rng.UniformDouble() < probability_[column] ? static_cast<uint32_t>(column)
                                                      : alias_[column];
  }

 private:
  std::vector<double> probability_;  // chance of keeping the column's own index
  std::vector<uint32_t> alias_;      // the index taken otherwise
};

}  // namespace parsgd::generator_internal
