#include "parsgd/model/linear/linear_model.hpp"

#include <algorithm>
#include <cmath>

#include "parsgd/kernel/sparse_kernels.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {

LinearModel::LinearModel(ModelKind kind, uint64_t features, int classes, ClassLabels labels)
    : kind_(kind),
      features_(features),
      outputs_(IsBinary(kind) && (classes <= 2 || IsRegressor(kind)) ? 1 : classes),
      labels_(std::move(labels)),
      regression_(IsRegressor(kind)) {
  if (!IsBinary(kind) && classes < 2) {
    throw Error("a softmax model needs at least 2 classes, got " + std::to_string(classes));
  }
  const int expected = outputs_ == 1 ? 2 : classes;
  if (labels_.values.empty()) labels_ = ClassLabels::Default(outputs_ == 1, classes);
  if (labels_.classes() != expected || !labels_.Ascending()) {
    throw Error("a model with " + std::to_string(expected) + " classes needs " +
                std::to_string(expected) + " class labels in ascending order, got " +
                std::to_string(labels_.classes()));
  }
  weights_ = AlignedArray<float>::Zeroed((features + 1) * static_cast<uint64_t>(outputs_));
}

void LinearModel::Scores(const uint32_t* index, const float* value, uint32_t nnz, float* z) const {
  const int k_out = outputs_;
  const float* w = weights_.data();
  // Indices ascend: the entries of features this model lacks (a wider test set) are a suffix.
  while (nnz > 0 && index[nnz - 1] >= features_) --nnz;
  const Isa isa = KernelIsa(ActiveIsa(), weights_.size());
  if (k_out == 1) {
    z[0] = w[features_] + SparseDot(isa, w, index, value, nnz);
    return;
  }
  for (int k = 0; k < k_out; ++k) z[k] = w[features_ * k_out + k];
  RowScores(isa, w, index, value, nnz, k_out, z);
}

double LinearModel::SquaredNorm() const {
  double sum = 0;
  const uint64_t n = features_ * outputs_;
  for (uint64_t i = 0; i < n; ++i) sum += static_cast<double>(weights_[i]) * weights_[i];
  return sum;
}

double LinearModel::AbsoluteSum() const {
  double sum = 0;
  const uint64_t n = features_ * outputs_;
  for (uint64_t i = 0; i < n; ++i) sum += std::abs(static_cast<double>(weights_[i]));
  return sum;
}

uint64_t LinearModel::Nonzeros() const {
  const uint64_t n = features_ * outputs_;
  return static_cast<uint64_t>(std::count_if(weights_.data(), weights_.data() + n,
                                             [](float w) { return w != 0.f; }));
}

}  // namespace parsgd
