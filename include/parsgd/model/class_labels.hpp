// The labels of a classifier's classes, as the training data wrote them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "parsgd/util/float_text.hpp"

namespace parsgd {

// values[k] is the label of class k, in ascending order. Binary models have two: class 0 is the
// negative class (loss target -1), class 1 the positive (target +1), so the larger label is the
// positive class, as scikit-learn's classes_[1]. Softmax and the MLP have one per output.
// Where the data wrote its labels as text (Dataset::class_names), `names` holds each class's name
// (strictly ascending, as the values are) and the values are the names' indices in the training
// data; empty otherwise.
struct ClassLabels {
  std::vector<float> values;
  std::vector<std::string> names = {};

  // Class k's label as the data wrote it: its name, or its number.
  std::string Text(int k) const {
    return names.empty() ? ShortestText(values[static_cast<std::size_t>(k)])
                         : names[static_cast<std::size_t>(k)];
  }
  // The class named `name`, or -1. O(log classes).
  int FindName(std::string_view name) const {
    const auto at = std::lower_bound(names.begin(), names.end(), name);
    return at != names.end() && *at == name ? static_cast<int>(at - names.begin()) : -1;
  }

  int classes() const { return static_cast<int>(values.size()); }
  // The class of `label`, or -1 if it is none of them. O(log classes).
  int Find(float label) const {
    const auto at = std::lower_bound(values.begin(), values.end(), label);
    return at != values.end() && *at == label ? static_cast<int>(at - values.begin()) : -1;
  }
  // Strictly ascending (so Find works and no two classes share a label).
  bool Ascending() const {
    return std::adjacent_find(values.begin(), values.end(), std::greater_equal<float>()) ==
               values.end() &&
           (names.empty() || (names.size() == values.size() &&
                              std::adjacent_find(names.begin(), names.end(),
                                                 std::greater_equal<std::string>()) == names.end()));
  }
  // The labels a model gets when none are known: -1, +1 for a binary model, 0 .. classes - 1
  // for softmax and the MLP.
  static ClassLabels Default(bool binary, int classes) {
    ClassLabels labels;
    if (binary) {
      labels.values = {-1.f, 1.f};
    } else {
      for (int k = 0; k < classes; ++k) labels.values.push_back(static_cast<float>(k));
    }
    return labels;
  }
};

}  // namespace parsgd
