#include "parsgd/data/holdout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kHoldoutStream = 0x686f6c646f7574;  // "holdout"

// The rows `take` marks (or does not), as a data set of the same shape.
Dataset Rows(const Dataset& data, const std::vector<uint8_t>& take, uint8_t which,
             const std::vector<float>& classes, const std::string& source) {
  uint64_t rows = 0, nnz = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    if (take[i] != which) continue;
    ++rows;
    nnz += data.row(i).nnz;
  }
  AlignedArray<uint64_t> offsets(rows + 1);
  AlignedArray<uint32_t> indices(nnz);
  AlignedArray<float> values(nnz), labels(rows);
  AlignedArray<float> weights(data.weights().empty() ? 0 : rows);
  offsets[0] = 0;
  uint64_t r = 0, at = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    if (take[i] != which) continue;
    const SparseRow x = data.row(i);
    std::copy(x.index, x.index + x.nnz, indices.data() + at);
    std::copy(x.value, x.value + x.nnz, values.data() + at);
    at += x.nnz;
    labels[r] = data.label(i);
    if (!weights.empty()) weights[r] = data.weights()[i];
    offsets[++r] = at;
  }
  Dataset::Parts parts = data.parts();
  parts.offsets = SharedArray<uint64_t>(std::move(offsets));
  parts.indices = SharedArray<uint32_t>(std::move(indices));
  parts.values = SharedArray<float>(std::move(values));
  parts.labels = SharedArray<float>(std::move(labels));
  parts.weights = weights.empty() ? SharedArray<float>() : SharedArray<float>(std::move(weights));
  parts.mapping = nullptr;
  parts.source = source;
  if (data.label_kind() == LabelKind::kClasses) parts.declared_classes = classes;
  return Dataset(std::move(parts));
}

}  // namespace

Holdout HoldOut(const Dataset& data, double fraction, uint64_t seed) {
  const uint64_t n = data.rows();
  // The rows of each class (one group of every row for real-valued labels), in order.
  std::map<float, std::vector<uint64_t>> groups;
  const bool classes = data.label_kind() == LabelKind::kClasses;
  for (uint64_t i = 0; i < n; ++i) groups[classes ? data.label(i) : 0.f].push_back(i);
  std::vector<float> labels = data.declared_classes();
  if (classes && labels.empty()) {
    for (const auto& [label, rows] : groups) labels.push_back(label);
  }
  std::vector<uint8_t> held(n, 0);
  Rng rng(DeriveSeed(seed, {kHoldoutStream}));
  for (auto& [label, rows] : groups) {
    const uint64_t size = rows.size();
    uint64_t take = static_cast<uint64_t>(std::llround(fraction * double(size)));
    if (size >= 2) take = std::clamp<uint64_t>(take, 1, size - 1);
    if (size < 2) take = 0;
    for (uint64_t k = 0; k < take; ++k) {  // the first `take` of a partial shuffle
      std::swap(rows[k], rows[k + rng.Uniform(size - k)]);
      held[rows[k]] = 1;
    }
  }
  const uint64_t count = static_cast<uint64_t>(std::count(held.begin(), held.end(), 1));
  if (count == 0 || count == n) {
    throw Error(fmt::format(
        "{}: holding out {:g} of its {} rows leaves {} for training and {} held out: give more "
        "rows or another fraction",
        data.source(), fraction, n, n - count, count));
  }
  return {Rows(data, held, 0, labels, data.source()),
          Rows(data, held, 1, labels, data.source() + " (held out)")};
}

}  // namespace parsgd
