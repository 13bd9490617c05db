#include "alias_table.hpp"

namespace parsgd::generator_internal {

AliasTable::AliasTable(std::span<const double> weights)
    : probability_(weights.size()), alias_(weights.size()) {
  const std::size_t n = weights.size();
  double total = 0;
  for (double w : weights) total += w;
  std::vector<uint32_t> small;
  std::vector<uint32_t> large;
  for (std::size_t i = 0; i < n; ++i) {
    probability_[i] = weights[i] * static_cast<double>(n) / total;  // mean 1
    alias_[i] = static_cast<uint32_t>(i);
    (probability_[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  // Pair each light column with a heavy index that tops it up to 1 (Vose's loop).
  while (!small.empty() && !large.empty()) {
    const uint32_t light = small.back();
    small.pop_back();
    const uint32_t heavy = large.back();
    alias_[light] = heavy;
    probability_[heavy] -= 1.0 - probability_[light];
    if (probability_[heavy] < 1.0) {
      large.pop_back();
      small.push_back(heavy);
    }
  }
  // What is left is 1 up to rounding error.
  for (uint32_t i : large) probability_[i] = 1.0;
  for (uint32_t i : small) probability_[i] = 1.0;
}

}  // namespace parsgd::generator_internal
