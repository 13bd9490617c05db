// Line charts as inline SVG for report.html: lines with a band per series (objective and
// suboptimality against epochs or seconds), on a linear or log y axis, or steps on a log2 x axis
// (performance profiles). Self-contained markup: no script, no font or image from elsewhere; it
// scales to the page's width (viewBox), its legend below the plot so that it reads on a phone.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace parsgd::compare {

struct ChartSeries {
  std::string label;
  std::vector<double> x, y;
  std::vector<double> low, high;  // the band; empty for none (else as long as y)
};

struct Chart {
  std::string title, x_label, y_label;
  bool log_x = false;  // base 2 (performance profiles' tau)
  bool log_y = false;  // base 10; points <= 0 or NaN are left out
  bool steps = false;  // a step function: each y holds until the next x
  bool share_y = false;  // y is a share: the axis spans [0, 1] whatever the data
  std::vector<ChartSeries> series;
  std::vector<std::pair<double, std::string>> y_lines;  // dashed horizontal lines, labelled
};

// Series k's colour (the legend's, beside the chart).
const char* ChartColour(std::size_t k);

// The chart as one <svg> element (role img, its title as the accessible name). A chart with no
// drawable point says so in its place.
std::string SvgChart(const Chart& chart);

// Tick positions for [lo, hi]: linear, at 1, 2 or 5 times a power of ten (at most about 7);
// on a log axis, powers of ten, with 2 and 5 times them over at most three decades.
std::vector<double> LinearTicks(double lo, double hi);
std::vector<double> LogTicks(double lo, double hi);

}  // namespace parsgd::compare
