// Training targets: the labels of a Dataset checked against a model kind and turned into what the
// losses take (y in {-1, +1} for binary models, a class index 0..K-1 for softmax and the MLP).
//
// Labels are taken as LIBLINEAR and scikit-learn take them: any two values for a binary model
// (the larger is the positive class), any set of values for softmax and the MLP (class k is the
// k-th smallest). The mapping travels with the model (ClassLabels) and predictions are written
// back in the file's own labels.
#pragma once

#include <cstdint>
#include <string>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/class_labels.hpp"
#include "parsgd/model/linear/linear_model.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

class Communicator;

struct Targets {
  AlignedArray<float> values;  // one per row: -1/+1, or a class index 0..classes-1
  // One per row: its weight in the loss (the data's row weight, Dataset::weights, times its
  // class's, WeighClasses); empty: every row weighs 1.
  AlignedArray<float> weights;
  // `weights` as the runners take them: null where every row weighs 1.
  const float* row_weights() const { return weights.empty() ? nullptr : weights.data(); }
  int classes = 2;     // 2 for binary models, K for softmax and the MLP
  ClassLabels labels;  // the label of each class as the data wrote it, ascending
  // Real values to regress (the labels as they are; `classes` and `labels` are the binary
  // default, unused).
  bool regression = false;
  // A binary model's more than two classes, one binary classifier each: `values` are class
  // indices, as softmax's.
  bool one_vs_rest = false;

  // Row i's class: 0 (negative) or 1 (positive) for a binary model, the class index otherwise.
  int ClassOf(uint64_t i) const { return values[i] < 0 ? 0 : static_cast<int>(values[i]); }
};

// Targets of training data: the distinct labels of `data`, sorted, become the classes (or the
// classes the data declares, Dataset::declared_classes: every label must be one of them). A binary
// model takes exactly two values, or one of -1, 0, +1 alone (the usual pairs -1/+1 and 0/1, one
// class of which is absent); softmax and the MLP take 2 to 65536 values. Throws parsgd::Error
// naming the source (and the values found) otherwise. Cost: one pass over the labels with a hash
// set, one with a binary search per row.
// Real-valued labels (Dataset::label_kind() kValues, here and in the two functions below), and
// every label of the regressors (huber, epsilon-insensitive), are the targets as they are
// (Targets::regression), for those models and squared (any other kind is refused, as are labels
// written as text); the targets then carry the binary models' default labels -1, +1.
// With one_vs_rest (--multiclass ovr), a binary model on more than two classes takes them all
// (Targets::one_vs_rest) rather than refuse them.
Targets MakeTargets(ModelKind kind, const Dataset& data, bool one_vs_rest = false);

// Targets of rank comm.rank()'s share of the training data (LoadShard), for a run over several
// ranks: the classes are those MakeTargets(kind, whole data) would give (the distinct labels of
// every share, agreed by all ranks), so that every rank maps a label to the same class even where
// its share lacks some. Collective; the same refusals as MakeTargets, on every rank.
Targets MakeShareTargets(ModelKind kind, const Dataset& share, Communicator& comm,
                         bool one_vs_rest = false);

// Targets of other data for a model trained with `labels` (test data, eval): every label must be
// one of them; throws parsgd::Error naming the source, the 1-based row and the label otherwise.
// A binary model with more than two labels is one-vs-rest.
Targets MakeTargets(ModelKind kind, const Dataset& data, const ClassLabels& labels);

// Every function above carries the data's row weights (Dataset::weights) into Targets::weights.

// Whether a run of `kind` on `train` (this rank's share) regresses its labels: the regressors
// always, model squared where the labels of every rank together have more than two values (and the
// data neither writes them as text nor declares classes); real-valued data (kValues) always.
// Collective.
bool RegressesLabels(ModelKind kind, const Dataset& train, Communicator& comm);

// The targets' mean, each weighed by its row's weight, over every rank's rows (0 where they
// weigh nothing). Collective.
double MeanTarget(const Targets& targets, Communicator& comm);

// `data` with its labels read as real values (LabelKind::kValues; the arrays shared). Throws
// parsgd::Error where the labels are text (Dataset::class_names).
Dataset AsRealValues(const Dataset& data);

// Scales the weights of `targets` to a mean of 1 over the rows of every rank, so that the mean
// loss is the weighted mean, sum w_i loss_i / sum w_i (a row of weight 0 is a row left out, a
// row of weight 2 two rows), and a step's size means what it means unweighted; weights all 1
// after it (on every rank) are none. Returns whether any rank's rows have weights after it.
// Throws parsgd::Error naming `source` where every row weighs 0. Collective.
bool ScaleWeightsToMeanOne(Targets& targets, const std::string& source, Communicator& ranks);

}  // namespace parsgd
