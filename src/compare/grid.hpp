// The grid of a comparison: axes (a flag and its values), blocks (the Cartesian product of their
// axes) and points (one value per flag: one configuration). Flags are `train`'s option names
// without the dashes; values are their command-line text, so a point is a `train` command line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parsgd::compare {

struct Axis {
  std::string flag;
  std::vector<std::string> values;
};

// A Cartesian product of axes. The grid is the union of its blocks' products, which lets an
// experiment vary a flag for one scheme only (the averaging period under --scheme average).
using Block = std::vector<Axis>;

struct Setting {
  std::string flag;
  std::string value;
  bool operator==(const Setting&) const = default;
};

// One configuration: a value for every flag it sets, in the order of `flag_order` below.
using Point = std::vector<Setting>;

// The points of the union over `blocks` (one empty block if there are none) of the Cartesian
// product of `common` and the block's axes. The first flag in `flag_order` varies slowest. A point
// produced by two blocks is kept once, where it first appears. Flags missing from `flag_order`
// come after the others, in the order given. Cost: O(points x flags).
std::vector<Point> ExpandGrid(const Block& common, const std::vector<Block>& blocks,
                              const std::vector<std::string>& flag_order);

// The flags whose value is not the same in every point (a flag absent from some points varies).
std::vector<std::string> VaryingFlags(const std::vector<Point>& points);

// The value of `flag` in the point, or nullptr.
const std::string* ValueOf(const Point& point, std::string_view flag);

// The point without `flag`.
Point Without(const Point& point, std::string_view flag);

// "scheme=hogwild threads=2": the point's values of the `varying` flags (in the point's order);
// "all runs" if it has none.
std::string Label(const Point& point, const std::vector<std::string>& varying);

// A text that identifies the point (equal points, equal keys).
std::string Key(const Point& point);

}  // namespace parsgd::compare
