// The model axis (--model): which model a run trains. Five linear models, one per loss head
// (parsgd/model/linear/loss.hpp: a LinearModel scores z = W^T x + b), and the multi-layer
// perceptron (parsgd/model/mlp/mlp_model.hpp).
#pragma once

#include "parsgd/util/named.hpp"

namespace parsgd {

// The values are stored in model files: a new kind goes at the end.
enum class ModelKind { kLogistic, kHinge, kSquared, kSoftmax, kMlp, kSquaredHinge };
inline constexpr ModelKind kLastModelKind = ModelKind::kSquaredHinge;

inline constexpr Named<ModelKind> kModelKinds[] = {
    {ModelKind::kLogistic, "logistic", "binary logistic regression, log(1 + exp(-y z))"},
    {ModelKind::kHinge, "hinge", "binary linear SVM, max(0, 1 - y z)"},
    {ModelKind::kSquaredHinge, "squared-hinge", "binary L2-loss linear SVM, max(0, 1 - y z)^2"},
    {ModelKind::kSquared, "squared", "binary least squares on +-1 targets, (z - y)^2 / 2"},
    {ModelKind::kSoftmax, "softmax", "K-class multinomial logistic regression"},
    {ModelKind::kMlp, "mlp", "multi-layer perceptron: --hidden ReLU layers, softmax output"},
};

// The linear models (every kind but the MLP).
constexpr bool IsLinear(ModelKind kind) { return kind != ModelKind::kMlp; }

constexpr bool IsBinary(ModelKind kind) {
  return kind != ModelKind::kSoftmax && kind != ModelKind::kMlp;
}

}  // namespace parsgd
