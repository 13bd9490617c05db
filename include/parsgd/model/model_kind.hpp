// The model axis (--model): which model a run trains. Seven linear models, one per loss
// (parsgd/model/linear/loss.hpp: a LinearModel scores z = W^T x + b), and the multi-layer
// perceptron (parsgd/model/mlp/mlp_model.hpp).
#pragma once

#include "parsgd/util/named.hpp"

namespace parsgd {

// The values are stored in model files: a new kind goes at the end.
enum class ModelKind {
  kLogistic,
  kHinge,
  kSquared,
  kSoftmax,
  kMlp,
  kSquaredHinge,
  kHuber,
  kEpsilonInsensitive
};
inline constexpr ModelKind kLastModelKind = ModelKind::kEpsilonInsensitive;

inline constexpr Named<ModelKind> kModelKinds[] = {
    {ModelKind::kLogistic, "logistic", "binary logistic regression, log(1 + exp(-y z))"},
    {ModelKind::kHinge, "hinge", "binary linear SVM, max(0, 1 - y z)"},
    {ModelKind::kSquaredHinge, "squared-hinge", "binary L2-loss linear SVM, max(0, 1 - y z)^2"},
    {ModelKind::kSquared, "squared",
     "least squares, (z - y)^2 / 2: regression on real-valued labels (more than two values), "
     "else a binary classifier on +-1 targets"},
    {ModelKind::kHuber, "huber",
     "Huber regression: (z - y)^2 / 2 within --loss-epsilon of y, linear beyond"},
    {ModelKind::kEpsilonInsensitive, "epsilon-insensitive",
     "linear support vector regression, max(0, |z - y| - --loss-epsilon)"},
    {ModelKind::kSoftmax, "softmax", "K-class multinomial logistic regression"},
    {ModelKind::kMlp, "mlp", "multi-layer perceptron: --hidden ReLU layers, softmax output"},
};

// What a --model choice is made of: the model's type (a linear model scoring z = W^T x + b, or the
// MLP) and the loss its output is scored by (each linear kind is one loss; the MLP's output layer
// is scored by the softmax loss). The code that runs a model asks for the part it depends on.
enum class ModelType { kLinear, kMlp };
enum class Loss {
  kLogistic,
  kHinge,
  kSquared,
  kSquaredHinge,
  kSoftmax,
  kHuber,
  kEpsilonInsensitive
};

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
    case ModelKind::kHuber:
      return Loss::kHuber;
    case ModelKind::kEpsilonInsensitive:
      return Loss::kEpsilonInsensitive;
    case ModelKind::kSoftmax:
    case ModelKind::kMlp:
      break;
  }
  return Loss::kSoftmax;
}

// The linear models (every kind but the MLP).
constexpr bool IsLinear(ModelKind kind) { return TypeOf(kind) == ModelType::kLinear; }

// The binary models: one score, a margin loss (every loss but softmax), or a regression loss.
constexpr bool IsBinary(ModelKind kind) { return LossOf(kind) != Loss::kSoftmax; }

// The models that only regress: their labels are real values whatever they look like (model
// squared regresses where its training labels have more than two values: model/targets.hpp).
constexpr bool IsRegressor(ModelKind kind) {
  return kind == ModelKind::kHuber || kind == ModelKind::kEpsilonInsensitive;
}

// The losses with a width (--loss-epsilon): Huber's quadratic zone, the insensitive tube.
constexpr bool HasLossEpsilon(ModelKind kind) { return IsRegressor(kind); }

}  // namespace parsgd
