#include "curvature.hpp"

#include <cmath>
#include <span>
#include <vector>

namespace parsgd {

double EstimateTopEigenvalue(const Dataset& data, const FeatureRate* rates, Communicator* comm,
                             uint64_t sample_rows, int iterations) {
  const uint64_t n = data.rows(), f = data.features();
  const uint64_t s = std::min(n, sample_rows);
  std::vector<uint64_t> rows(s);
  for (uint64_t i = 0; i < s; ++i) rows[i] = i * n / s;
  auto scale = [&](uint32_t j) { return rates ? std::sqrt(rates[j].step_scale) : 1.f; };
  // v starts as the indicator of the sampled features (and the bias): the iteration never leaves
  // their span. `present` lists them, so each iteration costs the sample's nonzeros, not O(f).
  std::vector<double> v(f + 1, 0.0), u(f + 1, 0.0);
  std::vector<uint32_t> present;
  for (uint64_t i : rows) {
    const SparseRow x = data.row(i);
    for (uint32_t e = 0; e < x.nnz; ++e) {
      if (v[x.index[e]] == 0) present.push_back(x.index[e]);
      v[x.index[e]] = 1;
    }
  }
  v[f] = 1;
  present.push_back(static_cast<uint32_t>(f));
  // Across ranks: the sampled rows are every rank's own; the features spanned are their union, in
  // index order on every rank, and M v is summed over the ranks (so every rank gets the same bits).
  double sampled = static_cast<double>(s);
  std::vector<double> shared;
  if (comm != nullptr) {
    comm->SumAll(std::span<double>(v));
    present.clear();
    for (uint64_t j = 0; j <= f; ++j) {
      if (v[j] != 0) {
        v[j] = 1;
        present.push_back(static_cast<uint32_t>(j));
      }
    }
    std::vector<double> total{sampled};
    comm->SumAll(std::span<double>(total));
    sampled = total[0];
    shared.resize(present.size());
  }
  double lambda = 0;
  for (int t = 0; t < iterations; ++t) {
    double norm = 0;
    for (uint32_t j : present) norm += v[j] * v[j];
    norm = std::sqrt(norm);
    for (uint32_t j : present) {
      v[j] /= norm;
      u[j] = 0;
    }
    for (uint64_t i : rows) {
      const SparseRow x = data.row(i);
      double dot = v[f];
      for (uint32_t e = 0; e < x.nnz; ++e) dot += x.value[e] * scale(x.index[e]) * v[x.index[e]];
      for (uint32_t e = 0; e < x.nnz; ++e) u[x.index[e]] += x.value[e] * scale(x.index[e]) * dot;
      u[f] += dot;
    }
    if (comm != nullptr) {
      for (std::size_t k = 0; k < present.size(); ++k) shared[k] = u[present[k]];
      comm->SumAll(std::span<double>(shared));
      for (std::size_t k = 0; k < present.size(); ++k) u[present[k]] = shared[k];
    }
    lambda = 0;  // the Rayleigh quotient v . (M v), v of unit norm
    for (uint32_t j : present) {
      u[j] /= sampled;
      lambda += v[j] * u[j];
    }
    v.swap(u);
  }
  return lambda;
}

}  // namespace parsgd
