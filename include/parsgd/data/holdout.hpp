// Held-out rows: a data set cut in two by a seed, for early stopping on data the training never
// sees (--validation-fraction).
#pragma once

#include <cstdint>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

struct Holdout {
  Dataset kept;  // the rows that train
  Dataset held;  // the held-out rows
};

// `fraction` of the rows of `data` held out, chosen by `seed`: for class labels, that share of
// every class's rows (rounded; at least one row of a class of two or more rows, as scikit-learn's
// stratified split), for real-valued labels that share of all rows (at least one). Both parts keep
// the rows' order, the weights, the features and the class set of the whole (declared_classes),
// so that a class found only in the held-out rows is still one of the model's. Copies the rows.
// Throws parsgd::Error naming the data when either part would be empty. fraction in (0, 1).
Holdout HoldOut(const Dataset& data, double fraction, uint64_t seed);

}  // namespace parsgd
