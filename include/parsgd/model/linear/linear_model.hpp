// A linear model's parameters: K score functions z_k = w_k . x + b_k over `features` columns.
//
// Layout (feature-major): weight (j, k) at weights[j * K + k], bias k at weights[features * K + k].
// A sparse update of row x touches K contiguous floats per nonzero, and the bias block last.
// Binary models have K = 1.
#pragma once

#include <cstdint>
#include <span>

#include "parsgd/model/class_labels.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

class LinearModel {
 public:
  LinearModel() = default;
  // All weights start at zero (the optimum of the regulariser; SGD on a convex loss needs no random
  // start). `classes` is K for softmax; for the binary models 1 or 2 (one score), or K > 2: one
  // score a class, one-vs-rest (one_vs_rest()); the regressors have one score. `labels`: how the
  // training data wrote each class, so that predictions come back the same way (empty:
  // ClassLabels::Default). Throws parsgd::Error unless there is one label per class (2 for the
  // binary models), in ascending order.
  LinearModel(ModelKind kind, uint64_t features, int classes, ClassLabels labels = {});

  ModelKind kind() const { return kind_; }
  uint64_t features() const { return features_; }
  int outputs() const { return outputs_; }
  const ClassLabels& labels() const { return labels_; }

  // A regression model (real-valued targets): its score is the prediction, and it has no classes
  // (its labels are the binary default, unused). Models huber and epsilon-insensitive always are;
  // model squared is where it was trained on real values (model/targets.hpp).
  bool regression() const { return regression_; }
  // A binary loss's model of more than two classes: one binary classifier (score) a class.
  bool one_vs_rest() const { return IsBinary(kind_) && outputs_ > 1; }
  void set_regression(bool regression) { regression_ = regression || IsRegressor(kind_); }
  // The width of the loss (huber, epsilon-insensitive: TrainConfig::loss_epsilon); unused by the
  // other losses.
  float loss_epsilon() const { return loss_epsilon_; }
  void set_loss_epsilon(float epsilon) { loss_epsilon_ = epsilon; }

  // All parameters, (features + 1) * outputs floats, 64-byte aligned. The training schemes share
  // this array between workers; see scheme/ for how they touch it.
  std::span<float> weights() { return weights_.span(); }
  std::span<const float> weights() const { return weights_.span(); }
  const float* bias() const { return weights_.data() + features_ * outputs_; }

  // Scores of row x; columns >= features() contribute nothing (data wider than the model).
  // z must hold outputs() floats. Not synchronised: call it when no worker is writing.
  void Scores(const uint32_t* index, const float* value, uint32_t nnz, float* z) const;

  // Sum of squared weights, bias excluded (the L2 regulariser is (l2 / 2) * this).
  double SquaredNorm() const;
  // Sum of the weights' magnitudes, bias excluded (the L1 regulariser is l1 * this).
  double AbsoluteSum() const;
  // How many weights are not 0, bias excluded.
  uint64_t Nonzeros() const;

 private:
  ModelKind kind_ = ModelKind::kLogistic;
  uint64_t features_ = 0;
  int outputs_ = 1;
  ClassLabels labels_;
  bool regression_ = false;
  float loss_epsilon_ = 0.1f;
  AlignedArray<float> weights_;
};

}  // namespace parsgd
