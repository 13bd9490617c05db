// Training targets: the labels of a Dataset checked against a model kind and turned into what the
// losses take (y in {-1, +1} for binary models, a class id for softmax).
#pragma once

#include <cstdint>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear_model.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

struct Targets {
  AlignedArray<float> values;  // one per row: -1/+1, or a class id 0..classes-1
  int classes = 2;             // 2 for binary models, K for softmax
  BinaryLabels labels;         // binary models: how the file wrote its two classes
};

// Binary models take labels -1/+1 or 0/1 (not -1 and 0 together); softmax takes integer class ids
// >= 0 and finds K = largest + 1 (at least 2). `classes` > 0 fixes K (for test data against a
// trained model): a class id >= classes is then an error. Throws parsgd::Error naming the source,
// the 1-based row and the label. Cost: one pass over the labels.
Targets MakeTargets(ModelKind kind, const Dataset& data, int classes = 0);

}  // namespace parsgd
