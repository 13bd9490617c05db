// Internal: the random partition of the subnet scheme (model/mlp/partition/partitions.hpp): which
// hidden units each worker trains for one period. Every hidden layer keeps a skeleton, its first
// SkeletonUnits units (the units are interchangeable at initialisation, so the first ones are as
// good as any), in every worker's subnetwork; the other units are shuffled afresh every period and
// dealt to the workers in contiguous pieces of the shuffle, sizes as even as possible, so that each
// belongs to exactly one worker. The input and output layers belong to every subnetwork whole.
#pragma once

#include <cstdint>
#include <vector>

namespace parsgd {

// The skeleton of a hidden layer of `units` units at `ratio`: round(ratio * units) units.
int SkeletonUnits(int units, double ratio);

// units[w][h]: the units of hidden layer h in worker w's subnetwork, ascending (the skeleton first,
// then its dealt units). The counts depend only on the sizes, ratio and workers (the first
// (units - skeleton) % workers workers get one more), so each worker's subnetwork keeps its shape
// from period to period; which units depends on `seed` too.
struct SubnetDeal {
  std::vector<std::vector<std::vector<int>>> units;
};
SubnetDeal DealUnits(const std::vector<int>& hidden, double ratio, int workers, uint64_t seed);

// The layer sizes of worker w's subnetwork of the MLP `sizes` (input, hidden..., classes).
std::vector<int> SubnetSizes(const std::vector<int>& sizes, double ratio, int workers, int w);

}  // namespace parsgd
