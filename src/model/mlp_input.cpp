#include "parsgd/model/mlp_input.hpp"

#include <algorithm>

namespace parsgd {

void GatherDense(const Dataset& data, std::span<const uint32_t> rows, const float* input_scale,
                 int inputs, float* x, const float* targets, int* labels) {
  std::fill_n(x, rows.size() * inputs, 0.f);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SparseRow row = data.row(rows[i]);
    float* dense = x + i * inputs;
    for (uint32_t e = 0; e < row.nnz; ++e) {
      const uint32_t j = row.index[e];
      if (j < static_cast<uint32_t>(inputs)) dense[j] = row.value[e] * input_scale[j];
    }
    if (labels != nullptr) labels[i] = static_cast<int>(targets[rows[i]]);
  }
}

}  // namespace parsgd
