// A multi-layer perceptron: dense layers with ReLU between them and a softmax cross-entropy output,
// all parameters in one flat float array so that every scheme and optimiser can treat them as a
// vector of coordinates.
//
// Layout: for each layer l (input size n_l, output size n_{l+1}), its weights W_l as an n_l x
// n_{l+1} row-major matrix (the "ab" layout oneDNN's matmul takes: out = in W), then its bias b_l
// (n_{l+1} floats). Layer l+1 starts where layer l's bias ends.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parsgd/model/class_labels.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

struct MlpLayer {
  int inputs;
  int outputs;
  uint64_t weights_at;  // offset of W in the flat parameters
  uint64_t bias_at;     // offset of b
};

// The layers of the MLP of `sizes` (input, hidden..., classes) in the flat layout above. Throws
// parsgd::Error for impossible sizes (fewer than 2 entries, a size < 1, fewer than 2 classes).
std::vector<MlpLayer> LayoutMlp(const std::vector<int>& sizes);
// The number of parameters of that layout.
inline uint64_t ParamCount(const std::vector<MlpLayer>& layers) {
  return layers.empty() ? 0 : layers.back().bias_at + layers.back().outputs;
}

class MlpModel {
 public:
  MlpModel() = default;
  // sizes: input, hidden..., classes (at least 2 entries, each >= 1; classes >= 2). Weights start
  // from He initialisation for layers followed by ReLU (normal, variance 2 / inputs) and Glorot for
  // the output layer (normal, variance 2 / (inputs + outputs)), drawn from `seed`; biases zero.
  // Throws parsgd::Error for impossible sizes.
  MlpModel(std::vector<int> sizes, uint64_t seed);

  const std::vector<int>& sizes() const { return sizes_; }
  int inputs() const { return sizes_.front(); }
  int classes() const { return sizes_.back(); }
  const std::vector<MlpLayer>& layers() const { return layers_; }
  // All parameters, 64-byte aligned.
  std::span<float> params() { return params_.span(); }
  std::span<const float> params() const { return params_.span(); }
  // Per input feature, the factor applied to its values before the first layer (1 unless training
  // chose --normalize maxabs: then 1 / max |x_j| over the training rows). Kept with the model so
  // that predictions see inputs scaled as in training.
  std::span<float> input_scale() { return input_scale_.span(); }
  std::span<const float> input_scale() const { return input_scale_.span(); }
  // How the training data wrote each class (ClassLabels::Default until set). set_labels throws
  // parsgd::Error unless there is one label per class, in ascending order.
  const ClassLabels& labels() const { return labels_; }
  void set_labels(ClassLabels labels);
  // Sum of squared weights, biases excluded (the L2 regulariser is (l2 / 2) * this).
  double SquaredNorm() const;
  // Floating-point operations of one sample's forward pass (2 per multiply-add).
  double ForwardFlops() const;

 private:
  std::vector<int> sizes_;
  std::vector<MlpLayer> layers_;
  AlignedArray<float> params_;
  AlignedArray<float> input_scale_;
  ClassLabels labels_;
};

// "256,128" -> {256, 128}. Throws parsgd::Error naming the text when it is not a comma-separated
// list of positive integers.
std::vector<int> ParseHiddenSizes(const std::string& text);

}  // namespace parsgd
