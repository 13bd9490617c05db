// A trained model of either family: what a model file holds (io/model_file.hpp), what a run starts
// from (Trainer::StartFrom, --init), and what `parsgd predict` and `eval` score
// (train/evaluate.hpp).
#pragma once

#include <variant>

#include "parsgd/model/linear/linear_model.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/model/model_kind.hpp"

namespace parsgd {

using Model = std::variant<LinearModel, MlpModel>;

inline ModelKind KindOf(const Model& model) {
  if (const auto* linear = std::get_if<LinearModel>(&model)) return linear->kind();
  return ModelKind::kMlp;
}

}  // namespace parsgd
