// Prefetching for rows visited in random order: each row's first bytes miss every cache (and, on a
// large set, the TLB), so the loops fetch rows ahead of use, in batches. Once every kPrefetchBatch
// samples they prefetch the entries and targets of the next batch's rows and the offsets of the
// batch after it. Issued together, the misses (and page walks) of a batch overlap one another;
// issued one row at a time, each prefetch held the loop up for most of a memory latency
// (bench/README.md, "The per-sample loop's optimisations": batches of 16 against one row 8 samples ahead).
// Batches start at positions that are multiples of kPrefetchBatch: a span's first batch of rows
// and the offsets of its first two are fetched on demand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "parsgd/data/dataset.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/prefetch.hpp"

namespace parsgd {

constexpr uint64_t kPrefetchBatch = 16;

inline void PrefetchRow(const Dataset& data, const float* targets, uint32_t r) {
  const uint64_t begin = data.offsets()[r];
  const uint64_t bytes = (data.offsets()[r + 1] - begin) * 4;
  PrefetchBytes(data.indices().data() + begin, bytes);
  PrefetchBytes(data.values().data() + begin, bytes);
  Prefetch(targets + r);
}

// A model of at most this many bytes stays in a core's L2 cache while it trains: prefetching its
// weights only costs instructions (on Fashion-MNIST's 31 KiB one-vs-rest model, 12% of the
// training process's samples under perf, Xeon model 207).
constexpr uint64_t kCacheResidentModelBytes = uint64_t{1} << 20;

// Prefetches the weights row r's features read in a model of `outputs` floats a feature (the
// linear models' layout; features at or past `features` read none), for use one row later. With
// several outputs (softmax) a feature's weights span cache lines that no hardware prefetcher
// foresees, and a model larger than the cache waits a memory latency for each; a model that stays
// in cache (kCacheResidentModelBytes) is not prefetched.
inline void PrefetchWeightRows(const Dataset& data, uint32_t r, const float* weights,
                               uint64_t features, int outputs) {
  const uint64_t bytes = static_cast<uint64_t>(outputs) * sizeof(float);
  if (features * bytes <= kCacheResidentModelBytes) return;
  const SparseRow x = data.row(r);
  for (uint32_t e = 0; e < x.nnz; ++e) {
    if (x.index[e] < features) PrefetchBytes(weights + uint64_t{x.index[e]} * outputs, bytes);
  }
}

// Nothing more to prefetch for a row than its entries and target.
struct NoRowState {
  void operator()(uint32_t) const {}
};

// Prefetches for visiting indices[i] now (call it for every i, in order). `also(r)` prefetches
// what else a visit to row r reads (the dual solver's variables), with the row's entries.
template <class Also = NoRowState>
void PrefetchAhead(const Dataset& data, const float* targets, std::span<const uint32_t> indices,
                   uint64_t i, const Also& also = {}) {
  if (i % kPrefetchBatch != 0) return;
  const uint64_t n = indices.size();
  const uint64_t* offsets = data.offsets().data();
  for (uint64_t k = i + 2 * kPrefetchBatch; k < std::min(n, i + 3 * kPrefetchBatch); ++k) {
    Prefetch(offsets + indices[k]);
  }
  for (uint64_t k = i + kPrefetchBatch; k < std::min(n, i + 2 * kPrefetchBatch); ++k) {
    PrefetchRow(data, targets, indices[k]);
    also(indices[k]);
  }
}

}  // namespace parsgd
