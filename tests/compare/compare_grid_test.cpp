// The grid of `parsgd compare`: Cartesian products, unions of blocks, labels.
#include <gtest/gtest.h>

#include "grid.hpp"

namespace parsgd::compare {
namespace {

std::vector<std::string> Labels(const std::vector<Point>& points) {
  const auto varying = VaryingFlags(points);
  std::vector<std::string> out;
  for (const Point& p : points) out.push_back(Label(p, varying));
  return out;
}

TEST(CompareGrid, ProductVariesTheFirstDeclaredFlagSlowest) {
  const Block common = {{"threads", {"1", "2"}}, {"scheme", {"hogwild", "sync"}}};
  const auto points = ExpandGrid(common, {}, {"scheme", "order", "threads"});
  EXPECT_EQ(Labels(points),
            (std::vector<std::string>{"scheme=hogwild threads=1", "scheme=hogwild threads=2",
                                      "scheme=sync threads=1", "scheme=sync threads=2"}));
}

TEST(CompareGrid, BlocksAreUnitedAndShareTheCommonAxes) {
  const Block common = {{"threads", {"1", "2"}}, {"epochs", {"5"}}};
  const std::vector<Block> blocks = {
      {{"scheme", {"hogwild"}}},
      {{"scheme", {"average"}}, {"period", {"1", "10"}}},
  };
  const auto points = ExpandGrid(common, blocks, {"scheme", "threads", "epochs", "period"});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(VaryingFlags(points), (std::vector<std::string>{"scheme", "threads", "period"}));
  EXPECT_EQ(Labels(points),
            (std::vector<std::string>{
                "scheme=hogwild threads=1", "scheme=hogwild threads=2",
                "scheme=average threads=1 period=1", "scheme=average threads=1 period=10",
                "scheme=average threads=2 period=1", "scheme=average threads=2 period=10"}));
  EXPECT_EQ(*ValueOf(points[0], "epochs"), "5");
  EXPECT_EQ(ValueOf(points[0], "period"), nullptr);
}

TEST(CompareGrid, APointFromTwoBlocksIsKeptOnce) {
  const std::vector<Block> blocks = {{{"order", {"random", "global"}}},
                                     {{"order", {"global", "local"}}}};
  const auto points = ExpandGrid({}, blocks, {"order"});
  EXPECT_EQ(Labels(points),
            (std::vector<std::string>{"order=random", "order=global", "order=local"}));
}

TEST(CompareGrid, OneConfigurationHasNoVaryingFlag) {
  const auto points = ExpandGrid({{"scheme", {"sync"}}}, {}, {"scheme"});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_TRUE(VaryingFlags(points).empty());
  EXPECT_EQ(Label(points[0], {}), "all runs");
  EXPECT_EQ(Key(Without(points[0], "scheme")), Key({}));
}

}  // namespace
}  // namespace parsgd::compare
