#include "parsgd/data/generator.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

#include "alias_table.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

using generator_internal::AliasTable;

// Stream identifiers for DeriveSeed: each random quantity has its own stream.
constexpr uint64_t kPermutationStream = 1;
constexpr uint64_t kWeightStream = 2;
constexpr uint64_t kRowStream = 3;
constexpr uint64_t kTieStream = 4;
// tf = 1 + Geometric(kMoreTerms), capped at kMaxTf.
constexpr double kMoreTerms = 0.3;
constexpr int kMaxTf = 64;

std::vector<uint32_t> RandomPermutation(uint64_t n, uint64_t seed) {
  std::vector<uint32_t> permutation(n);
  std::iota(permutation.begin(), permutation.end(), uint32_t{0});
  Rng rng(seed);
  for (uint64_t i = n - 1; i > 0; --i) std::swap(permutation[i], permutation[rng.Uniform(i + 1)]);
  return permutation;
}

std::vector<double> ZipfWeights(uint64_t n, double exponent) {
  std::vector<double> weights(n);
  tbb::parallel_for(uint64_t{0}, n, [&](uint64_t r) {
    weights[r] = std::pow(static_cast<double>(r + 1), -exponent);
  });
  return weights;
}

std::vector<float> HiddenWeights(const GeneratorParams& params) {
  const uint64_t n = params.features;
  const auto wanted = static_cast<uint64_t>(std::llround(params.weight_density * n));
  const uint64_t count = std::clamp<uint64_t>(wanted, 1, n);
  const std::vector<uint32_t> order =
      RandomPermutation(n, DeriveSeed(params.seed, {kWeightStream, 0}));
  Rng rng(DeriveSeed(params.seed, {kWeightStream, 1}));
  std::vector<float> weights(n, 0.f);
  for (uint64_t i = 0; i < count; ++i) weights[order[i]] = static_cast<float>(rng.Normal());
  return weights;
}

// What every row draws from; built once, read-only afterwards.
struct Model {
  explicit Model(const GeneratorParams& params)
      : rank_weight(ZipfWeights(params.features, params.zipf)),
        ranks(rank_weight),
        feature_of_rank(
            RandomPermutation(params.features, DeriveSeed(params.seed, {kPermutationStream}))),
        idf(params.features),
        weight(HiddenWeights(params)) {
    const double total = std::accumulate(rank_weight.begin(), rank_weight.end(), 0.0);
    for (uint64_t r = 0; r < params.features; ++r) {
      // q: about the fraction of rows holding this rank; idf = log(1 + 1/q) > 0.
      const double q = std::max(params.nnz_per_row * rank_weight[r] / total, 1e-300);
      idf[r] = std::log1p(1.0 / q);
    }
  }

  std::vector<double> rank_weight;  // unnormalised Zipf weights, rank 0 first
  AliasTable ranks;
  std::vector<uint32_t> feature_of_rank;
  std::vector<double> idf;    // per rank
  std::vector<float> weight;  // hidden weights, per feature id
};

// Per-thread buffers. `taken` is all clear between rows.
struct Scratch {
  explicit Scratch(uint64_t features) : taken((features + 63) / 64, 0) {}
  std::vector<uint64_t> taken;  // one bit per rank drawn in the current row
  std::vector<uint32_t> ranks;
  std::vector<std::pair<uint32_t, double>> entries;  // (feature id, value)
  std::vector<std::pair<double, uint32_t>> keys;     // for the exact fallback
};

uint64_t RowSeed(uint64_t seed, uint64_t row) { return DeriveSeed(seed, {kRowStream, row}); }

// The first draws of every row's stream.
uint32_t RowNnz(const GeneratorParams& params, Rng& rng) {
  const double size = params.nnz_per_row * (0.5 + rng.UniformDouble());
  const double rounded = std::floor(size + rng.UniformDouble());  // stochastic: E = size
  return static_cast<uint32_t>(std::clamp(rounded, 1.0, static_cast<double>(params.features)));
}

bool Taken(const Scratch& s, uint32_t r) { return (s.taken[r >> 6] >> (r & 63)) & 1; }
void Take(Scratch& s, uint32_t r) {
  s.taken[r >> 6] |= uint64_t{1} << (r & 63);
  s.ranks.push_back(r);
}

// Completes s.ranks to `count` ranks with one Efraimidis-Spirakis draw over the ranks not taken
// (Efraimidis and Spirakis, "Weighted random sampling with a reservoir", IPL 97(5), 2006): the
// largest keys log(u)/w give a sample without replacement of the same law as successive draws.
void DrawRemainingExactly(const Model& model, uint32_t count, Rng& rng, Scratch& s) {
  s.keys.clear();
  for (uint32_t r = 0; r < model.rank_weight.size(); ++r) {
    if (Taken(s, r)) continue;
    const double u = 1.0 - rng.UniformDouble();  // (0, 1]
    const double w = model.rank_weight[r];
    s.keys.emplace_back(w > 0 ? std::log(u) / w : -HUGE_VAL, r);
  }
  const std::size_t need = count - s.ranks.size();
  std::partial_sort(s.keys.begin(), s.keys.begin() + need, s.keys.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  for (std::size_t i = 0; i < need; ++i) Take(s, s.keys[i].second);
}

// `count` distinct Zipf ranks into s.ranks: successive draws, repeats rejected.
void DrawRanks(const Model& model, uint32_t count, Rng& rng, Scratch& s) {
  s.ranks.clear();
  for (uint64_t budget = 4 * uint64_t{count} + 32; s.ranks.size() < count && budget > 0; --budget) {
    const uint32_t r = model.ranks.Sample(rng);
    if (!Taken(s, r)) Take(s, r);
  }
  if (s.ranks.size() < count) DrawRemainingExactly(model, count, rng, s);
  for (uint32_t r : s.ranks) s.taken[r >> 6] = 0;  // every bit set belongs to this row
}

// Draws one row into index/value (count entries) and returns its margin w·x.
double FillRow(const Model& model, uint32_t count, Rng& rng, Scratch& s, uint32_t* index,
               float* value) {
  DrawRanks(model, count, rng, s);
  s.entries.clear();
  double norm2 = 0;
  for (uint32_t r : s.ranks) {
    int tf = 1;
    while (tf < kMaxTf && rng.UniformDouble() < kMoreTerms) ++tf;
    const double v = (1.0 + std::log(static_cast<double>(tf))) * model.idf[r];
    s.entries.emplace_back(model.feature_of_rank[r], v);
    norm2 += v * v;
  }
  std::sort(s.entries.begin(), s.entries.end());
  const double scale = 1.0 / std::sqrt(norm2);
  double margin = 0;
  for (uint32_t k = 0; k < count; ++k) {
    index[k] = s.entries[k].first;
    value[k] = static_cast<float>(s.entries[k].second * scale);
    margin += static_cast<double>(model.weight[index[k]]) * value[k];
  }
  return margin;
}

// +1 above the median margin, -1 below (exactly rows/2 of them), then the noise flips.
AlignedArray<float> Labels(const std::vector<double>& margin, const std::vector<uint8_t>& flip,
                           uint64_t seed) {
  struct Key {
    double margin;
    uint64_t tie;
    uint64_t row;
    bool operator<(const Key& o) const {
      return std::tie(margin, tie, row) < std::tie(o.margin, o.tie, o.row);
    }
  };
  const uint64_t rows = margin.size();
  std::vector<Key> keys(rows);
  for (uint64_t i = 0; i < rows; ++i) keys[i] = {margin[i], DeriveSeed(seed, {kTieStream, i}), i};
  std::vector<Key> sorted = keys;
  std::nth_element(sorted.begin(), sorted.begin() + rows / 2, sorted.end());
  const Key pivot = sorted[rows / 2];
  AlignedArray<float> labels(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    const float label = keys[i] < pivot ? -1.f : 1.f;
    labels[i] = flip[i] ? -label : label;
  }
  return labels;
}

void Require(bool ok, const std::string& what) {
  if (!ok) throw Error("generator: " + what);
}

}  // namespace

void ValidateGeneratorParams(const GeneratorParams& p) {
  Require(p.rows >= 1, "rows must be at least 1");
  Require(p.features >= 1 && p.features < (uint64_t{1} << 32),
          fmt::format("features must be in [1, 2^32 - 1], got {}", p.features));
  Require(std::isfinite(p.nnz_per_row) && p.nnz_per_row >= 1 &&
              p.nnz_per_row <= static_cast<double>(p.features),
          fmt::format("nnz (mean nonzeros per row) must be in [1, features = {}], got {}",
                      p.features, p.nnz_per_row));
  Require(std::isfinite(p.zipf) && p.zipf >= 0,
          fmt::format("zipf must be a finite number >= 0, got {}", p.zipf));
  Require(p.label_noise >= 0 && p.label_noise <= 0.5,
          fmt::format("noise (the fraction of labels flipped) must be in [0, 0.5], got {}",
                      p.label_noise));
  Require(p.weight_density > 0 && p.weight_density <= 1,
          fmt::format("density (the fraction of features with a hidden weight) must be in (0, 1], "
                      "got {}",
                      p.weight_density));
}

Dataset GenerateSparse(const GeneratorParams& params) {
  ValidateGeneratorParams(params);
  const Model model(params);
  const uint64_t rows = params.rows;
  AlignedArray<uint64_t> offsets(rows + 1);
  offsets[0] = 0;
  tbb::parallel_for(uint64_t{0}, rows, [&](uint64_t i) {
    Rng rng(RowSeed(params.seed, i));
    offsets[i + 1] = RowNnz(params, rng);
  });
  std::inclusive_scan(offsets.begin() + 1, offsets.end(), offsets.begin() + 1);

  AlignedArray<uint32_t> indices(offsets[rows]);
  AlignedArray<float> values(offsets[rows]);
  std::vector<double> margin(rows);
  std::vector<uint8_t> flip(rows);
  tbb::enumerable_thread_specific<Scratch> scratch([&] { return Scratch(params.features); });
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, rows, 256), [&](const auto& range) {
    Scratch& s = scratch.local();
    for (uint64_t i = range.begin(); i != range.end(); ++i) {
      Rng rng(RowSeed(params.seed, i));
      const uint32_t count = RowNnz(params, rng);
      margin[i] =
          FillRow(model, count, rng, s, indices.data() + offsets[i], values.data() + offsets[i]);
      flip[i] = rng.UniformDouble() < params.label_noise;  // the row's last draw
    }
  });

  return Dataset::FromArrays(
      std::move(offsets), std::move(indices), std::move(values),
      Labels(margin, flip, params.seed), params.features,
      fmt::format("generated(seed={}, rows={}, features={}, nnz_per_row={}, zipf={}, "
                  "label_noise={}, weight_density={})",
                  params.seed, params.rows, params.features, params.nnz_per_row, params.zipf,
                  params.label_noise, params.weight_density));
}

}  // namespace parsgd
