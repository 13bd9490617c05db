#include "subnet_deal.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

// Worker w's share of the `dealt` units, and where it starts in the shuffle.
int DealtCount(int dealt, int workers, int w) {
  return dealt / workers + (w < dealt % workers ? 1 : 0);
}
int DealtStart(int dealt, int workers, int w) {
  int start = 0;
  for (int v = 0; v < w; ++v) start += DealtCount(dealt, workers, v);
  return start;
}

}  // namespace

int SkeletonUnits(int units, double ratio) { return static_cast<int>(std::lround(ratio * units)); }

SubnetDeal DealUnits(const std::vector<int>& hidden, double ratio, int workers, uint64_t seed) {
  SubnetDeal deal;
  deal.units.assign(workers, std::vector<std::vector<int>>(hidden.size()));
  Rng rng(seed);
  for (std::size_t h = 0; h < hidden.size(); ++h) {
    const int skeleton = SkeletonUnits(hidden[h], ratio);
    std::vector<int> rest(hidden[h] - skeleton);
    std::iota(rest.begin(), rest.end(), skeleton);
    for (std::size_t i = rest.size(); i > 1; --i) {  // Fisher-Yates
      std::swap(rest[i - 1], rest[rng.Uniform(i)]);
    }
    const int dealt = static_cast<int>(rest.size());
    for (int w = 0; w < workers; ++w) {
      std::vector<int>& mine = deal.units[w][h];
      mine.resize(skeleton);
      std::iota(mine.begin(), mine.end(), 0);
      const int start = DealtStart(dealt, workers, w);
      mine.insert(mine.end(), rest.begin() + start,
                  rest.begin() + start + DealtCount(dealt, workers, w));
      std::sort(mine.begin() + skeleton, mine.end());
    }
  }
  return deal;
}

std::vector<int> SubnetSizes(const std::vector<int>& sizes, double ratio, int workers, int w) {
  std::vector<int> out = sizes;
  for (std::size_t l = 1; l + 1 < sizes.size(); ++l) {
    const int skeleton = SkeletonUnits(sizes[l], ratio);
    out[l] = skeleton + DealtCount(sizes[l] - skeleton, workers, w);
  }
  return out;
}

}  // namespace parsgd
