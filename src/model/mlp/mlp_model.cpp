#include "parsgd/model/mlp/mlp_model.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {

std::vector<MlpLayer> LayoutMlp(const std::vector<int>& sizes) {
  if (sizes.size() < 2) throw Error("an MLP needs an input size and a class count");
  for (int s : sizes) {
    if (s < 1 || s > (1 << 24)) throw Error(fmt::format("MLP layer size {} out of range", s));
  }
  if (sizes.back() < 2)
    throw Error(fmt::format("an MLP needs at least 2 classes, got {}", sizes.back()));
  std::vector<MlpLayer> layers;
  uint64_t at = 0;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const uint64_t weights = static_cast<uint64_t>(sizes[l]) * sizes[l + 1];
    layers.push_back({sizes[l], sizes[l + 1], at, at + weights});
    at += weights + sizes[l + 1];
  }
  return layers;
}

MlpModel::MlpModel(std::vector<int> sizes, uint64_t seed)
    : sizes_(std::move(sizes)), layers_(LayoutMlp(sizes_)) {
  params_ = AlignedArray<float>::Zeroed(ParamCount(layers_));
  input_scale_ = AlignedArray<float>(inputs());
  for (float& s : input_scale_) s = 1.f;
  labels_ = ClassLabels::Default(false, classes());
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const MlpLayer& layer = layers_[l];
    const bool last = l + 1 == layers_.size();
    const double variance = last ? 2.0 / (layer.inputs + layer.outputs) : 2.0 / layer.inputs;
    const double scale = std::sqrt(variance);
    Rng rng(DeriveSeed(seed, {0x6d6c70 /* "mlp" */, l}));
    for (uint64_t i = layer.weights_at; i < layer.bias_at; ++i) {
      params_[i] = static_cast<float>(scale * rng.Normal());
    }
  }
}

void MlpModel::set_labels(ClassLabels labels) {
  if (labels.classes() != classes() || !labels.Ascending()) {
    throw Error("an MLP with " + std::to_string(classes()) + " classes needs " +
                std::to_string(classes()) + " class labels in ascending order, got " +
                std::to_string(labels.classes()));
  }
  labels_ = std::move(labels);
}

double MlpModel::SquaredNorm() const {
  double sum = 0;
  for (const MlpLayer& layer : layers_) {
    for (uint64_t i = layer.weights_at; i < layer.bias_at; ++i) {
      sum += static_cast<double>(params_[i]) * params_[i];
    }
  }
  return sum;
}

double MlpModel::ForwardFlops() const {
  double flops = 0;
  for (const MlpLayer& layer : layers_) flops += 2.0 * layer.inputs * layer.outputs;
  return flops;
}

std::vector<int> ParseHiddenSizes(const std::string& text) {
  std::vector<int> sizes;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    int value = 0;
    const char* begin = text.data() + at;
    const char* end = text.data() + comma;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || value < 1) {
      throw Error(fmt::format("expected layer sizes like 256,128, got '{}'", text));
    }
    sizes.push_back(value);
    at = comma + 1;
  }
  return sizes;
}

}  // namespace parsgd
