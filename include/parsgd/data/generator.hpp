// A seeded generator of RCV1-shaped sparse binary classification data (Lewis et al., "RCV1: A New
// Benchmark Collection for Text Categorization Research", JMLR 5, 2004: ~50k tf-idf features,
// ~70 nonzeros per row, Zipf-like feature frequencies, rows of unit L2 norm).
//
// Each row:
//   - nnz: mean * (1/2 + U[0,1)), stochastically rounded (so its expectation is `nnz_per_row`),
//     then clipped to [1, features];
//   - feature ranks drawn from Zipf(`zipf`) over `features` ranks (P(rank r) ∝ r^-zipf, r >= 1),
//     without repetition in the row (sequential draws without replacement), mapped to feature ids
//     by a seeded permutation so that frequent features are spread over the index range;
//   - values (1 + log tf) * idf with tf = 1 + Geometric(0.3) and idf = log(1 + 1/q),
//     q = nnz_per_row * P(rank), then the row scaled to unit L2 norm; indices ascending.
// Labels ±1: a hidden weight vector w (round(weight_density * features) features, at least one,
// drawn N(0,1)); margin = w·x; the rows with margin above the median get +1 (ties broken by a
// seeded hash, so exactly rows - rows/2 rows are +1); then each label is flipped with probability
// `label_noise`. A row's content does not depend on label_noise: the flip is its stream's last
// draw.
//
// Both functions may be called from several threads at once (they share no state).
#pragma once

#include <cstdint>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

struct GeneratorParams {
  uint64_t rows = 500000;
  uint64_t features = 50000;
  double nnz_per_row = 70;
  double zipf = 1.0;
  double label_noise = 0.05;
  double weight_density = 0.1;
  uint64_t seed = 1;
};

// Throws parsgd::Error naming the field unless rows >= 1, 1 <= features <= 2^32 - 1,
// 1 <= nnz_per_row <= features, zipf >= 0, label_noise in [0, 0.5], weight_density in (0, 1]
// (all finite).
void ValidateGeneratorParams(const GeneratorParams& params);

// Generates the data set described above; source() reads "generated(seed=..., rows=..., ...)".
// A pure function of `params`: the same params give the same arrays bit for bit, at any thread
// count (every row draws from its own stream, DeriveSeed(seed, {row stream, row})). Runs in
// parallel with oneTBB in the caller's task arena.
// Cost: O(features) setup (about 40 bytes per feature, plus features/8 bytes per thread), then
// O(nnz) expected time; rows whose draws keep repeating (steep zipf with nnz near features) fall
// back to an O(features) exact draw. Memory: the dataset plus about 60 bytes per row while
// labelling (margins, flips, and the keys of the median selection).
Dataset GenerateSparse(const GeneratorParams& params);

}  // namespace parsgd
