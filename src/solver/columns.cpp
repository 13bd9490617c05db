#include "columns.hpp"

#include <algorithm>

namespace parsgd {

Columns ColumnsOf(const Dataset& data, Executor& executor) {
  const uint64_t d = data.features(), n = data.rows();
  Columns c{AlignedArray<uint64_t>::Zeroed(d + 1), AlignedArray<uint32_t>(data.nnz()),
            AlignedArray<float>(data.nnz())};
  const uint32_t* const index = data.indices().data();
  for (uint64_t e = 0; e < data.nnz(); ++e) ++c.offsets[index[e] + 1];
  for (uint64_t j = 0; j < d; ++j) c.offsets[j + 1] += c.offsets[j];
  const int parts = std::max(1, executor.threads());
  const std::vector<uint64_t> cuts = BalancedCuts(c, parts);
  executor.RunWorkers(parts, [&](int p) {
    const uint64_t lo = cuts[p], hi = cuts[p + 1];
    if (lo == hi) return;
    std::vector<uint64_t> next(c.offsets.begin() + lo, c.offsets.begin() + hi);
    for (uint64_t i = 0; i < n; ++i) {
      const SparseRow x = data.row(i);
      // The row's entries in [lo, hi): indices ascend within a row.
      const uint32_t* first = std::lower_bound(x.index, x.index + x.nnz, lo);
      for (const uint32_t* k = first; k < x.index + x.nnz && *k < hi; ++k) {
        const uint64_t at = next[*k - lo]++;
        c.rows[at] = static_cast<uint32_t>(i);
        c.values[at] = x.value[k - x.index];
      }
    }
  });
  return c;
}

std::vector<uint64_t> BalancedCuts(const Columns& columns, int parts) {
  const uint64_t d = columns.features(), total = columns.offsets[d];
  std::vector<uint64_t> cuts(parts + 1, d);
  cuts[0] = 0;
  uint64_t j = 0;
  for (int b = 1; b < parts; ++b) {
    const uint64_t target = total * b / parts;
    while (j < d && columns.offsets[j] < target) ++j;
    cuts[b] = j;
  }
  return cuts;
}

}  // namespace parsgd
