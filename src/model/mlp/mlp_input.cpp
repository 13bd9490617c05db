#include "parsgd/model/mlp/mlp_input.hpp"

#include <algorithm>

#include "parsgd/util/prefetch.hpp"

namespace parsgd {
namespace {

// Rows are visited in random order and each misses every cache (a Fashion-MNIST row is ~400
// nonzeros, 3.2 KB of indices and values): the row kRowsAhead places on is fetched meanwhile.
constexpr std::size_t kRowsAhead = 2;

void PrefetchRowEntries(const Dataset& data, uint32_t r) {
  const uint64_t begin = data.offsets()[r];
  const uint64_t bytes = (data.offsets()[r + 1] - begin) * 4;
  PrefetchBytes(data.indices().data() + begin, bytes);
  PrefetchBytes(data.values().data() + begin, bytes);
}

}  // namespace

void GatherDense(const Dataset& data, std::span<const uint32_t> rows, const float* input_scale,
                 int inputs, float* x) {
  for (std::size_t i = 0; i < std::min(kRowsAhead, rows.size()); ++i) {
    PrefetchRowEntries(data, rows[i]);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i + kRowsAhead < rows.size()) PrefetchRowEntries(data, rows[i + kRowsAhead]);
    const SparseRow row = data.row(rows[i]);
    float* dense = x + i * inputs;
    std::fill_n(dense, inputs, 0.f);  // while the row is in the nearest cache
    for (uint32_t e = 0; e < row.nnz; ++e) {
      const uint32_t j = row.index[e];
      if (j < static_cast<uint32_t>(inputs)) dense[j] = row.value[e] * input_scale[j];
    }
  }
}

void GatherLabels(std::span<const uint32_t> rows, const float* targets, const float* row_weights,
                  int* labels, float* weights) {
  for (std::size_t i = 0; i < rows.size(); ++i) labels[i] = static_cast<int>(targets[rows[i]]);
  if (row_weights == nullptr) return;
  for (std::size_t i = 0; i < rows.size(); ++i) weights[i] = row_weights[rows[i]];
}

}  // namespace parsgd
