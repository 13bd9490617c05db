// A classifier's report on labelled data, beyond the mean loss and accuracy: the confusion matrix,
// each class's precision, recall and F1 (scikit-learn's classification_report), and for a binary
// model the area under the ROC curve of its scores.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace parsgd {

struct ClassReport {
  int classes = 0;
  std::vector<uint64_t> confusion;  // classes x classes: [truth * classes + predicted]

  uint64_t Count(int truth, int predicted) const {
    return confusion[static_cast<std::size_t>(truth) * classes + predicted];
  }
  uint64_t Support(int c) const;    // rows whose class is c
  uint64_t Predicted(int c) const;  // rows predicted c
  // NaN where undefined: precision where no row is predicted c, recall where no row is c, F1
  // where either is.
  double Precision(int c) const;
  double Recall(int c) const;
  double F1(int c) const;
};

// Counts each (true class, predicted class) pair; classes are 0..classes-1.
ClassReport CountClasses(std::span<const int> truth, std::span<const int> predicted, int classes);

// The area under the ROC curve of `scores` (larger: more likely positive) against `positive`
// (nonzero: a positive row): exact, by sorting, a tie between a positive and a negative row
// counting one half (the Mann-Whitney U statistic over the positive-negative pairs). NaN where
// the rows lack one of the two classes. Cost: one sort of the rows.
double RocAuc(std::span<const float> scores, std::span<const uint8_t> positive);

}  // namespace parsgd
