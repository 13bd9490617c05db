#include "grid.hpp"

#include <algorithm>
#include <set>

namespace parsgd::compare {
namespace {

std::size_t Rank(const std::vector<std::string>& order, const std::string& flag) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), flag) - order.begin());
}

// The Cartesian product of `axes`, the first axis varying slowest.
void Product(const Block& axes, std::vector<Point>& out) {
  std::vector<std::size_t> at(axes.size(), 0);
  for (const Axis& a : axes) {
    if (a.values.empty()) return;
  }
  while (true) {
    Point p;
    for (std::size_t i = 0; i < axes.size(); ++i)
      p.push_back({axes[i].flag, axes[i].values[at[i]]});
    out.push_back(std::move(p));
    std::size_t i = axes.size();
    while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return;
  }
}

}  // namespace

std::vector<Point> ExpandGrid(const Block& common, const std::vector<Block>& blocks,
                              const std::vector<std::string>& flag_order) {
  const std::vector<Block> each = blocks.empty() ? std::vector<Block>{{}} : blocks;
  std::vector<Point> points;
  std::set<std::string> seen;
  for (const Block& block : each) {
    Block axes = common;
    axes.insert(axes.end(), block.begin(), block.end());
    std::stable_sort(axes.begin(), axes.end(), [&](const Axis& a, const Axis& b) {
      return Rank(flag_order, a.flag) < Rank(flag_order, b.flag);
    });
    std::vector<Point> product;
    Product(axes, product);
    for (Point& p : product) {
      if (seen.insert(Key(p)).second) points.push_back(std::move(p));
    }
  }
  return points;
}

std::vector<std::string> VaryingFlags(const std::vector<Point>& points) {
  std::vector<std::string> flags;  // in order of first appearance
  for (const Point& p : points) {
    for (const Setting& s : p) {
      if (std::find(flags.begin(), flags.end(), s.flag) == flags.end()) flags.push_back(s.flag);
    }
  }
  std::vector<std::string> varying;
  for (const std::string& flag : flags) {
    const std::string* first = points.empty() ? nullptr : ValueOf(points.front(), flag);
    for (const Point& p : points) {
      const std::string* v = ValueOf(p, flag);
      if ((v == nullptr) != (first == nullptr) || (v != nullptr && *v != *first)) {
        varying.push_back(flag);
        break;
      }
    }
  }
  return varying;
}

const std::string* ValueOf(const Point& point, std::string_view flag) {
  for (const Setting& s : point) {
    if (s.flag == flag) return &s.value;
  }
  return nullptr;
}

Point Without(const Point& point, std::string_view flag) {
  Point out;
  for (const Setting& s : point) {
    if (s.flag != flag) out.push_back(s);
  }
  return out;
}

std::string Label(const Point& point, const std::vector<std::string>& varying) {
  std::string out;
  for (const Setting& s : point) {
    if (std::find(varying.begin(), varying.end(), s.flag) == varying.end()) continue;
    if (!out.empty()) out += ' ';
    out += s.flag + "=" + s.value;
  }
  return out.empty() ? "all runs" : out;
}

std::string Key(const Point& point) {
  std::string key;
  for (const Setting& s : point) {
    key += s.flag;
    key += '\x1f';
    key += s.value;
    key += '\x1e';
  }
  return key;
}

}  // namespace parsgd::compare
