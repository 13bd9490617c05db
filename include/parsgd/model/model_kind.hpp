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

// What a --model choice is made of: the model's type (a linear model scoring z = W^T x + b, or the
// MLP) and the loss its output is scored by (each linear kind is one loss; the MLP's output layer
// is scored by the softmax loss). The code that runs a model asks for the part it depends on.
enum class ModelType { kLinear, kMlp };
enum class Loss { kLogistic, kHinge, kSquared, kSquaredHinge, kSoftmax };

constexpr ModelType TypeOf(ModelKind kind) {
  return kind == ModelKind::kMlp ? ModelType::kMlp : ModelType::kLinear;
}
constexpr Loss LossOf(ModelKind kind) {
  switch (kind) {
    case ModelKind::kLogistic:
      return Loss::kLogistic;
    case ModelKind::kHinge:
      return Loss::kHinge;
    case ModelKind::kSquared:
      return Loss::kSquared;
    case ModelKind::kSquaredHinge:
      return Loss::kSquaredHinge;
    case ModelKind::kSoftmax:
    case ModelKind::kMlp:
      break;
  }
  return Loss::kSoftmax;
}

// The linear models (every kind but the MLP).
constexpr bool IsLinear(ModelKind kind) { return TypeOf(kind) == ModelType::kLinear; }

// The binary models: one score, a margin loss (every loss but softmax).
constexpr bool IsBinary(ModelKind kind) { return LossOf(kind) != Loss::kSoftmax; }

}  // namespace parsgd
