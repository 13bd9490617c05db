// Internal: the training data in column layout (CSC), for the primal coordinate-descent solver
// (solver/primal_cd.cpp): each feature's nonzero entries, the rows that hold them in ascending
// order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

// Column j's entries: rows[offsets[j] .. offsets[j + 1]) and their values.
struct Columns {
  AlignedArray<uint64_t> offsets;  // features + 1 entries
  AlignedArray<uint32_t> rows;     // nnz entries, ascending within a column
  AlignedArray<float> values;      // nnz entries

  uint64_t features() const { return offsets.size() - 1; }
  uint64_t nnz(uint64_t j) const { return offsets[j + 1] - offsets[j]; }
};

// Built once from the rows: a count per column, then each of the executor's threads fills the
// columns of its own range, reading every row (so no two threads write one column; the result does
// not depend on the thread count).
Columns ColumnsOf(const Dataset& data, Executor& executor);

// `parts` + 1 cuts of the columns [0, features) into contiguous blocks of about equal nonzeros (a
// block may be empty): block b is [cuts[b], cuts[b + 1]).
std::vector<uint64_t> BalancedCuts(const Columns& columns, int parts);

}  // namespace parsgd
