#include "parsgd/model/class_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace parsgd {

uint64_t ClassReport::Support(int c) const {
  uint64_t n = 0;
  for (int p = 0; p < classes; ++p) n += Count(c, p);
  return n;
}

uint64_t ClassReport::Predicted(int c) const {
  uint64_t n = 0;
  for (int t = 0; t < classes; ++t) n += Count(t, c);
  return n;
}

double ClassReport::Precision(int c) const {
  const uint64_t predicted = Predicted(c);
  return predicted == 0 ? std::numeric_limits<double>::quiet_NaN()
                        : static_cast<double>(Count(c, c)) / static_cast<double>(predicted);
}

double ClassReport::Recall(int c) const {
  const uint64_t support = Support(c);
  return support == 0 ? std::numeric_limits<double>::quiet_NaN()
                      : static_cast<double>(Count(c, c)) / static_cast<double>(support);
}

double ClassReport::F1(int c) const {
  const double p = Precision(c), r = Recall(c);
  if (std::isnan(p) || std::isnan(r)) return std::numeric_limits<double>::quiet_NaN();
  return p + r == 0 ? 0 : 2 * p * r / (p + r);
}

ClassReport CountClasses(std::span<const int> truth, std::span<const int> predicted, int classes) {
  ClassReport report;
  report.classes = classes;
  report.confusion.assign(static_cast<std::size_t>(classes) * classes, 0);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    ++report.confusion[static_cast<std::size_t>(truth[i]) * classes + predicted[i]];
  }
  return report;
}

double RocAuc(std::span<const float> scores, std::span<const uint8_t> positive) {
  std::vector<uint32_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return scores[a] < scores[b]; });
  // Walking up the scores: each positive row beats the negatives below it, and ties half of those
  // of its score.
  double pairs_won = 0;
  uint64_t negatives_below = 0, positives = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    uint64_t pos = 0, neg = 0;
    for (; j < order.size() && scores[order[j]] == scores[order[i]]; ++j) {
      if (positive[order[j]] != 0) {
        ++pos;
      } else {
        ++neg;
      }
    }
    pairs_won += static_cast<double>(pos) *
                 (static_cast<double>(negatives_below) + 0.5 * static_cast<double>(neg));
    negatives_below += neg;
    positives += pos;
    i = j;
  }
  const uint64_t negatives = negatives_below;
  if (positives == 0 || negatives == 0) return std::numeric_limits<double>::quiet_NaN();
  return pairs_won / (static_cast<double>(positives) * static_cast<double>(negatives));
}

}  // namespace parsgd
