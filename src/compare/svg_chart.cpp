#include "svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "text_format.hpp"

namespace parsgd::compare {
namespace {

constexpr double kWidth = 760, kHeight = 420;
constexpr double kLeft = 78, kRight = 16, kTop = 34, kBottom = 52;
// Colours that stay apart for the colour-blind and on white (Okabe-Ito, then more).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                    "#56B4E9", "#000000", "#F0E442", "#8C564B", "#7F7F7F"};

std::string Tick(double v) { return fmt::format("{:g}", v); }

bool Drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// Maps data to the plot area.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double base = 10;
  double pixel_lo = 0, pixel_hi = 1;
  double At(double v) const {
    const double t =
        log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
    return pixel_lo + t * (pixel_hi - pixel_lo);
  }
};

// The range of the drawable values, widened where it is a single value.
bool Range(const std::vector<double>& values, bool log, double& lo, double& hi) {
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (double v : values) {
    if (!Drawable(v, log)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return false;
  if (lo == hi) {
    if (log) {
      lo /= 2;
      hi *= 2;
    } else {
      const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
      lo -= pad;
      hi += pad;
    }
  }
  return true;
}

std::string Polyline(const ChartSeries& s, const Axis& x, const Axis& y, bool steps) {
  std::string points;
  double last_y = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    if (!Drawable(s.x[i], x.log) || !Drawable(s.y[i], y.log)) continue;
    const double px = x.At(s.x[i]), py = y.At(s.y[i]);
    if (steps && !std::isnan(last_y)) points += fmt::format("{:.1f},{:.1f} ", px, last_y);
    points += fmt::format("{:.1f},{:.1f} ", px, py);
    last_y = py;
  }
  return points;
}

// Powers of two across [lo, hi] (the log2 axis).
std::vector<double> PowersOfTwo(double lo, double hi) {
  std::vector<double> out;
  for (double v = std::exp2(std::floor(std::log2(lo))); v <= hi * (1 + 1e-9); v *= 2) {
    if (v >= lo * (1 - 1e-9)) out.push_back(v);
  }
  return out;
}

}  // namespace

const char* ChartColour(std::size_t k) { return kColours[k % std::size(kColours)]; }

std::vector<double> LinearTicks(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 6;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw * (1 - 1e-9)) {
      step = m * p;
      break;
    }
  }
  for (double k = std::ceil(lo / step - 1e-9); k <= std::floor(hi / step + 1e-9); ++k) {
    const double v = k * step;
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

std::vector<double> LogTicks(double lo, double hi) {
  std::vector<double> out;
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const bool fine = std::log10(hi) - std::log10(lo) <= 3;
  for (int e = first; e <= last; ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1 && !fine) continue;
      // m / 10^-e for negative e: the nearest double to 0.005, as the literal is.
      const double v = e >= 0 ? m * std::pow(10.0, e) : m / std::pow(10.0, -e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  }
  // Within one decade and between two of its ticks: the linear ticks say more.
  if (out.size() < 2) return LinearTicks(lo, hi);
  return out;
}

std::string SvgChart(const Chart& chart) {
  std::vector<double> xs, ys;
  for (const ChartSeries& s : chart.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!Drawable(s.x[i], chart.log_x) || !Drawable(s.y[i], chart.log_y)) continue;
      xs.push_back(s.x[i]);
      ys.push_back(s.y[i]);
      if (!s.low.empty()) {
        ys.push_back(s.low[i]);
        ys.push_back(s.high[i]);
      }
    }
  }
  for (const auto& [v, label] : chart.y_lines) ys.push_back(v);
  Axis x, y;
  x.log = chart.log_x;
  y.log = chart.log_y;
  const bool any = Range(xs, x.log, x.lo, x.hi) && Range(ys, y.log, y.lo, y.hi);
  if (chart.share_y && !y.log) {
    y.lo = 0;
    y.hi = 1;
  }
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n<title>{}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
      kWidth, kHeight, MarkupEscape(chart.title), MarkupEscape(chart.title), kWidth / 2,
      MarkupEscape(chart.title));
  if (!any) {
    return out + fmt::format(
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\">no point "
                     "to draw</text>\n</svg>\n",
                     kWidth / 2, kHeight / 2);
  }
  x.pixel_lo = kLeft;
  x.pixel_hi = kWidth - kRight;
  y.pixel_lo = kHeight - kBottom;
  y.pixel_hi = kTop;
  // The frame, the grid and the tick labels.
  out += fmt::format(
      "<g font-size=\"12\" fill=\"#333\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
      "fill=\"none\" stroke=\"#999\"/>\n",
      kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom);
  for (double v : x.log ? PowersOfTwo(x.lo, x.hi) : LinearTicks(x.lo, x.hi)) {
    const double px = x.At(v);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px, kTop, kHeight - kBottom, kHeight - kBottom + 16, Tick(v));
  }
  for (double v : y.log ? LogTicks(y.lo, y.hi) : LinearTicks(y.lo, y.hi)) {
    const double py = y.At(v);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e5e5e5\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, py, kWidth - kRight, kLeft - 6, py + 4, Tick(v));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n"
      "<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n</g>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 12, MarkupEscape(chart.x_label),
      (kTop + kHeight - kBottom) / 2, MarkupEscape(chart.y_label));
  for (const auto& [v, label] : chart.y_lines) {
    if (!Drawable(v, y.log) || v < y.lo || v > y.hi) continue;
    const double py = y.At(v);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#666\" "
        "stroke-dasharray=\"6 4\"/><text x=\"{3}\" y=\"{4:.1f}\" font-size=\"12\" "
        "fill=\"#666\">{5}</text>\n",
        kLeft, py, kWidth - kRight, kLeft + 4, py - 4, MarkupEscape(label));
  }
  // Bands first, then the lines over them.
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const ChartSeries& s = chart.series[k];
    if (s.low.empty()) continue;
    std::string upper, lower;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!Drawable(s.x[i], x.log) || !Drawable(s.low[i], y.log) || !Drawable(s.high[i], y.log))
        continue;
      upper += fmt::format("{:.1f},{:.1f} ", x.At(s.x[i]), y.At(s.high[i]));
      lower = fmt::format("{:.1f},{:.1f} ", x.At(s.x[i]), y.At(s.low[i])) + lower;
    }
    if (!upper.empty()) {
      out += fmt::format("<polygon points=\"{}{}\" fill=\"{}\" fill-opacity=\"0.15\"/>\n", upper,
                         lower, ChartColour(k));
    }
  }
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const std::string points = Polyline(chart.series[k], x, y, chart.steps);
    if (points.empty()) continue;
    out += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"><title>{}</title>"
        "</polyline>\n",
        points, ChartColour(k), MarkupEscape(chart.series[k].label));
  }
  return out + "</svg>\n";
}

}  // namespace parsgd::compare
