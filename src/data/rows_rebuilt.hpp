// Internal to the data layer: rows rebuilt entry by entry (a CSV table's missing cells filled in,
// its number columns centred), the rest of the data set kept.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "parsgd/data/dataset.hpp"

namespace parsgd::data_internal {

// `parts` given the rows `offsets` (rows + 1) over `indices` and `values`, copied into aligned
// arrays; its rows are no longer a view of a file.
inline void SetRows(Dataset::Parts& parts, AlignedArray<uint64_t> offsets,
                    const std::vector<uint32_t>& indices, const std::vector<float>& values) {
  AlignedArray<uint32_t> out_indices(indices.size());
  AlignedArray<float> out_values(values.size());
  std::copy(indices.begin(), indices.end(), out_indices.begin());
  std::copy(values.begin(), values.end(), out_values.begin());
  parts.offsets = SharedArray<uint64_t>(std::move(offsets));
  parts.indices = SharedArray<uint32_t>(std::move(out_indices));
  parts.values = SharedArray<float>(std::move(out_values));
  parts.mapping = nullptr;
}

}  // namespace parsgd::data_internal
