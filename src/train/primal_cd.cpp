// --solver cd: primal coordinate descent over a partition of the features (the source texts' model
// parallelism for linear models; Shotgun, Bradley et al. 2011; SySCD, Ioannou et al. 2019). The
// data is read by column (columns.hpp, built at the first epoch); the features are cut into one
// block per worker, balanced by nonzeros, and each worker visits its own block's coordinates in a
// fresh shuffled order every epoch. What the workers share are the scores z = X w (one per row),
// which every step on a coordinate moves along its column; how they share them is the scheme:
//   - sequential: one worker;
//   - hogwild: the scores in place, relaxed loads and stores (a racing write may be lost);
//   - atomic: the scores in place, every write by compare-and-swap (none is lost);
//   - average: each worker on its own copy of the scores for the epoch, its steps taken on the
//     safe surrogate of CoCoA+ (Ma et al. 2015; the curvature scaled by the K workers: by
//     convexity, the objective after all K blocks' changes is at most the mean of the objectives
//     after K times each block's change), so that the epoch lowers the objective as every block's
//     steps do; deterministic.
// Every epoch starts from z = X w recomputed from the weights (in parallel, by rows): a lost write
// lasts at most one epoch, a resumed or initialised run needs no saved scores, and the epoch's
// progressive loss is the mean loss of those scores.
//
// The step on coordinate j, with z the worker's scores and s the surrogate's scale (K for average,
// else 1): g = 1/n sum_i loss'(z_i) x_ij + l2 w_j, h = s/n sum_i loss''(z_i) x_ij^2 + l2, d = -g/h,
// exact for the squared loss; for the logistic and squared-hinge losses a Newton step with a backtracking line search
// (as LIBLINEAR's primal coordinate descent): d is halved until
//     1/n sum_i [loss(z_i + s d x_ij) - loss(z_i)] / s + l2 (w_j d + d^2/2) <= 0.01 g d,
// at most kHalvings times (then no step). The full step needs no test where the bound on loss''
// already grants it: the change is at most g d + H d^2 / 2 with H = s/n kMaxD2 sum_i x_ij^2 + l2, at
// most 0.01 g d while |d| <= 2 (1 - 0.01) |g| / H, that is while h >= H / 1.98 (early on, where
// most rows' loss'' is near its bound, about every step). Then w_j += d and z_i += s d x_ij along the column.
// w_j is written only by its block's worker; the scores by every worker whose columns hold the row.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "columns.hpp"
#include "epoch_runner.hpp"
#include "parsgd/scheme/scheme.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kCoordinateStream = 0x636f6f7264;  // "coord"

// The losses as functions of the score z for target y, with their first two derivatives.
struct SquaredCd {
  static constexpr bool kExact = true;  // quadratic: the Newton step is the coordinate's minimiser
  static double Value(double z, double y) { return 0.5 * (z - y) * (z - y); }
  static void Derivatives(float z, float y, double& d1, double& d2) {
    d1 = double(z) - y;
    d2 = 1;
  }
};

struct LogisticCd {
  static constexpr bool kExact = false;
  static constexpr double kMaxD2 = 0.25;  // loss'' <= 1/4 everywhere
  // In double: the line search sums differences of nearby values.
  static double Value(double z, double y) {
    const double m = y * z;
    return std::log1p(std::exp(-std::abs(m))) + std::max(-m, 0.0);
  }
  // In float (one exp per nonzero: the solver's main cost), summed in double by the caller.
  static void Derivatives(float z, float y, double& d1, double& d2) {
    const float m = y * z;
    const float e = std::exp(-std::abs(m));
    const float s = m >= 0 ? e / (1 + e) : 1 / (1 + e);  // sigmoid(-m)
    d1 = -y * s;
    d2 = s * (1 - s);
  }
};

// The L2-loss SVM's, max(0, 1 - y z)^2: piecewise quadratic, its second derivative 2 or 0 (the
// generalised Hessian of Chang, Hsieh and Lin 2008), so a Newton step with the line search.
struct SquaredHingeCd {
  static constexpr bool kExact = false;
  static constexpr double kMaxD2 = 2;
  static double Value(double z, double y) {
    const double slack = std::max(1 - y * z, 0.0);
    return slack * slack;
  }
  static void Derivatives(float z, float y, double& d1, double& d2) {
    const double slack = std::max(1 - double(y) * z, 0.0);
    d1 = -2 * double(y) * slack;
    d2 = slack > 0 ? 2 : 0;
  }
};

enum class Sharing { kShared, kCopies };

template <class Write, class Loss, Sharing kSharing>
class CdRunner final : public LinearRunner {
 public:
  CdRunner(const RunnerShape& shape, double l2, uint64_t seed)
      : l2_(l2), seed_(seed), workers_(shape.workers) {}

  EpochTotals Run(const LinearContext& c) override {
    const Dataset& data = *c.data;
    const uint64_t n = data.rows();
    if (columns_.offsets.empty()) {
      columns_ = ColumnsOf(data, *c.executor);
      cuts_ = BalancedCuts(columns_, c.workers);
      scores_ = AlignedArray<float>(n);
      squares_.assign(columns_.features(), 0.0);
      for (uint64_t j = 0; j < columns_.features(); ++j) {
        for (uint64_t k = columns_.offsets[j]; k < columns_.offsets[j + 1]; ++k) {
          squares_[j] += double(columns_.values[k]) * columns_.values[k];
        }
      }
    }
    float* const w = c.params.arrays.weights;
    EpochTotals totals;
    totals.loss_sum = Recompute(c, w);
    const double inv_n = 1.0 / static_cast<double>(n);
    const double scale = kSharing == Sharing::kCopies ? c.workers : 1;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    std::vector<uint64_t> done(c.workers, 0);
    c.executor->RunWorkers(c.workers, [&](int b) {
      Worker& me = workers_[b];
      float* z = scores_.data();
      if constexpr (kSharing == Sharing::kCopies) {
        me.copy.assign(scores_.begin(), scores_.end());
        z = me.copy.data();
      }
      me.order.resize(cuts_[b + 1] - cuts_[b]);
      std::iota(me.order.begin(), me.order.end(), cuts_[b]);
      Rng rng(DeriveSeed(seed_, {kCoordinateStream, c.epoch, static_cast<uint64_t>(b)}));
      for (uint64_t k = me.order.size(); k > 1; --k) std::swap(me.order[k - 1], me.order[rng.Uniform(k)]);
      uint64_t nnz = 0;
      for (uint64_t k = 0; k < me.order.size(); ++k) {
        if (k % kStepBlock == 0 && stop.load(std::memory_order_relaxed)) break;
        const uint64_t j = me.order[k];
        Step(j, c.targets, z, w[j], inv_n, scale);
        nnz += columns_.nnz(j);
      }
      done[b] = nnz;
    });
    // Samples processed: the epoch's share of the data's nonzeros, in rows (n for a whole epoch).
    const uint64_t nnz = std::accumulate(done.begin(), done.end(), uint64_t{0});
    totals.updates = data.nnz() == 0 ? n : static_cast<uint64_t>(double(nnz) / data.nnz() * n);
    return totals;
  }

 private:
  static constexpr int kHalvings = 20;
  static constexpr double kArmijo = 0.01;

  struct alignas(kCacheLine) Worker {
    std::vector<uint64_t> order;
    std::vector<float> copy;  // average: this worker's scores for the epoch
  };

  // z = X w for every row, by blocks of rows in parallel; returns the sum of the rows' losses (the
  // blocks' sums added in block order).
  double Recompute(const LinearContext& c, const float* w) {
    const Dataset& data = *c.data;
    constexpr uint64_t kRows = 4096;
    const uint64_t blocks = (data.rows() + kRows - 1) / kRows;
    std::vector<double> losses(blocks, 0.0);
    c.executor->ParallelFor(blocks, [&](uint64_t blk) {
      double loss = 0;
      for (uint64_t i = blk * kRows, end = std::min(data.rows(), i + kRows); i < end; ++i) {
        const SparseRow x = data.row(i);
        float z = 0;
        for (uint32_t e = 0; e < x.nnz; ++e) z += x.value[e] * w[x.index[e]];
        scores_[i] = z;
        loss += Loss::Value(z, c.targets[i]);
      }
      losses[blk] = loss;
    });
    return std::accumulate(losses.begin(), losses.end(), 0.0);
  }

  void Step(uint64_t j, const float* y, float* z, float& wj, double inv_n, double scale) {
    const uint64_t begin = columns_.offsets[j], end = columns_.offsets[j + 1];
    const uint32_t* const rows = columns_.rows.data();
    const float* const values = columns_.values.data();
    double g = 0, h = 0;
    for (uint64_t k = begin; k < end; ++k) {
      const uint32_t i = rows[k];
      const double v = values[k];
      double d1, d2;
      Loss::Derivatives(Write::Load(z[i]), y[i], d1, d2);
      g += d1 * v;
      h += d2 * v * v;
    }
    g = g * inv_n + l2_ * wj;
    h = scale * h * inv_n + l2_;
    if (!(h > 0) || g == 0) return;
    double d = -g / h;
    if constexpr (!Loss::kExact) {
      const double bound = scale * Loss::kMaxD2 * squares_[j] * inv_n + l2_;
      int t = h >= bound / (2 * (1 - kArmijo)) ? kHalvings + 1 : 0;  // granted: no test
      for (; t < kHalvings; ++t, d *= 0.5) {
        double change = 0;
        for (uint64_t k = begin; k < end; ++k) {
          const uint32_t i = rows[k];
          const double zi = Write::Load(z[i]);
          change += Loss::Value(zi + scale * d * values[k], y[i]) - Loss::Value(zi, y[i]);
        }
        change = change * inv_n / scale + l2_ * (wj * d + 0.5 * d * d);
        if (change <= kArmijo * g * d) break;
      }
      if (t == kHalvings) return;  // no step found
    }
    wj = static_cast<float>(wj + d);
    const float move = static_cast<float>(scale * d);
    for (uint64_t k = begin; k < end; ++k) {
      const float step = move * values[k];
      Write::Modify(z[rows[k]], [step](float old) { return old + step; });
    }
  }

  double l2_;
  uint64_t seed_;
  std::vector<Worker> workers_;
  Columns columns_;
  std::vector<uint64_t> cuts_;
  AlignedArray<float> scores_;
  std::vector<double> squares_;  // sum_i x_ij^2 per column
};

template <class Loss>
std::unique_ptr<LinearRunner> MakeFor(const TrainConfig& config, const RunnerShape& shape,
                                      uint64_t seed) {
  switch (config.scheme) {
    case SchemeKind::kHogwild:
      return std::make_unique<CdRunner<StoreWrite, Loss, Sharing::kShared>>(shape, config.l2, seed);
    case SchemeKind::kAtomic:
      return std::make_unique<CdRunner<CasWrite, Loss, Sharing::kShared>>(shape, config.l2, seed);
    case SchemeKind::kAverage:
      return std::make_unique<CdRunner<PlainWrite, Loss, Sharing::kCopies>>(shape, config.l2, seed);
    default:  // sequential (ValidateConfig refuses the others)
      return std::make_unique<CdRunner<PlainWrite, Loss, Sharing::kShared>>(shape, config.l2, seed);
  }
}

}  // namespace

std::unique_ptr<LinearRunner> MakePrimalCdRunner(const TrainConfig& config, const RunnerShape& shape) {
  if (config.model == ModelKind::kSquared) return MakeFor<SquaredCd>(config, shape, config.seed);
  if (config.model == ModelKind::kSquaredHinge) {
    return MakeFor<SquaredHingeCd>(config, shape, config.seed);
  }
  return MakeFor<LogisticCd>(config, shape, config.seed);  // logistic (ValidateConfig refuses others)
}

}  // namespace parsgd
