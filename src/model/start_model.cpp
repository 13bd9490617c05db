#include "start_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

namespace parsgd {
namespace {

// What a model is, in the words of the messages: "mlp 300-16-3", "softmax (linear, 3 classes)",
// "logistic (linear, binary)".
std::string Kind(ModelKind kind, uint64_t features, const std::vector<int>& hidden, int outputs) {
  const char* name = NameOf<ModelKind>(kModelKinds, kind);
  if (!IsLinear(kind)) {
    return fmt::format("{} {}-{}-{}", name, features, fmt::join(hidden, "-"), outputs);
  }
  if (IsRegressor(kind)) return fmt::format("{} (linear, regression)", name);
  if (IsBinary(kind) && outputs == 1) return fmt::format("{} (linear, binary)", name);
  if (IsBinary(kind)) return fmt::format("{} (linear, one-vs-rest, {} classes)", name, outputs);
  return fmt::format("{} (linear, {} classes)", name, outputs);
}

struct Shape {
  ModelKind kind;
  uint64_t features;
  std::vector<int> hidden;
  int outputs;
};

Shape ShapeOf(const LinearModel& m) { return {m.kind(), m.features(), {}, m.outputs()}; }

Shape ShapeOf(const MlpModel& m) {
  const std::vector<int>& sizes = m.sizes();
  return {ModelKind::kMlp,
          static_cast<uint64_t>(m.inputs()),
          {sizes.begin() + 1, sizes.end() - 1},
          m.classes()};
}

}  // namespace

std::string StartModelMismatch(const Model& model, const TrainConfig& config,
                               const ResolvedSettings& settings, const Targets& targets) {
  const Shape from = std::visit([](const auto& m) { return ShapeOf(m); }, model);
  const Shape run{config.model, settings.features,
                  IsLinear(config.model) ? std::vector<int>{} : config.hidden, settings.outputs};
  std::string out;
  auto line = [&out](const char* what, const std::string& a, const std::string& b) {
    out += fmt::format("  {}: start model {}, this run {}\n", what, a, b);
  };
  const bool same_family = IsLinear(from.kind) == IsLinear(run.kind) &&
                           (!IsLinear(run.kind) || IsBinary(from.kind) == IsBinary(run.kind));
  if (!same_family) {
    line("model", Kind(from.kind, from.features, from.hidden, from.outputs),
         Kind(run.kind, run.features, run.hidden, run.outputs));
    return out;
  }
  if (from.features != run.features) {
    line(IsLinear(run.kind) ? "features" : "inputs", std::to_string(from.features),
         fmt::format("{} (the training data)", run.features));
  }
  if (from.outputs != run.outputs) {
    line("classes", std::to_string(from.outputs),
         fmt::format("{} (the training data)", run.outputs));
  }
  if (from.hidden != run.hidden) {
    line("hidden", fmt::format("{}", fmt::join(from.hidden, ",")),
         fmt::format("{}", fmt::join(run.hidden, ",")));
  }
  // Class k is the k-th smallest label: a model of other label values would mean other classes.
  const ClassLabels& labels =
      std::visit([](const auto& m) -> const ClassLabels& { return m.labels(); }, model);
  if (from.outputs == run.outputs && (labels.values != targets.labels.values ||
                                      labels.names != targets.labels.names)) {
    auto text = [](const ClassLabels& l) {
      std::vector<std::string> texts;
      for (int k = 0; k < l.classes(); ++k) texts.push_back(l.Text(k));
      return fmt::format("{}", fmt::join(texts, ", "));
    };
    line("labels", text(labels), text(targets.labels) + " (the training data)");
  }
  // --bias off holds the bias at 0: a start model with another bias would be another problem.
  if (const auto* linear = std::get_if<LinearModel>(&model); linear && config.bias == Bias::kOff) {
    const float* b = linear->bias();
    if (std::any_of(b, b + linear->outputs(), [](float v) { return v != 0.f; })) {
      line("bias", "trained (not 0)", "off (held at 0)");
    }
  }
  return out;
}

}  // namespace parsgd
