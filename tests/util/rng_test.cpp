#include "parsgd/util/rng.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace parsgd {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= (x != c.Next());
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, UniformStaysInRangeAndCoversIt) {
  Rng rng(7);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 100000; ++i) {
    uint64_t x = rng.Uniform(10);
    ASSERT_LT(x, 10u);
    ++counts[x];
  }
  // Each bucket expects 10000 with standard deviation ~95; 6 sigma is far outside chance.
  for (int c : counts) EXPECT_NEAR(c, 10000, 600);
}

TEST(Rng, DerivedSeedsDependOnEveryIdentifier) {
  EXPECT_NE(DeriveSeed(1, {0, 0}), DeriveSeed(1, {0, 1}));
  EXPECT_NE(DeriveSeed(1, {0, 1}), DeriveSeed(1, {1, 0}));
  EXPECT_NE(DeriveSeed(1, {0}), DeriveSeed(2, {0}));
  EXPECT_EQ(DeriveSeed(5, {3, 4}), DeriveSeed(5, {3, 4}));
}

}  // namespace
}  // namespace parsgd
