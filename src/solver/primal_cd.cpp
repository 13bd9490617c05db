// --solver cd: primal coordinate descent over a partition of the features (the source texts' model
// parallelism for linear models; Shotgun, Bradley et al. 2011; SySCD, Ioannou et al. 2019). The
// data is read by column (solver/columns.hpp, built at the first epoch); the features are cut into
// one block per worker, balanced by nonzeros, and each worker visits its own block's coordinates in
// a fresh shuffled order every epoch. What the workers share are the scores z = X w (one per row),
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
// exact for the squared loss (with --l1: the minimiser of g d + h d^2 / 2 + l1 |w_j + d|, the
// soft-thresholded step that lands on exactly 0 where the slope changes sign there, and l1 (|w_j +
// d| - |w_j|) added to both sides of the line search's test, as LIBLINEAR -s 5 and -s 6's CDN);
// for the logistic and squared-hinge losses a Newton step with a
// backtracking line search (as LIBLINEAR's primal coordinate descent): d is halved until
//     1/n sum_i [loss(z_i + s d x_ij) - loss(z_i)] / s + l2 (w_j d + d^2/2) <= 0.01 g d,
// at most kHalvings times (then no step). The full step needs no test where the bound on loss''
// already grants it: the change is at most g d + H d^2 / 2 with H = s/n kMaxD2 sum_i x_ij^2 + l2,
// at most 0.01 g d while |d| <= 2 (1 - 0.01) |g| / H, that is while h >= H / 1.98 (early on, where
// most rows' loss'' is near its bound, about every step). Then w_j += d and z_i += s d x_ij along
// the column. w_j is written only by its block's worker; the scores by every worker whose columns
// hold the row.
//
// Weighted rows (Targets::weights, a mean of 1): every row's loss and derivatives are scaled by its
// weight in the sums above and in the line search, the bounds' sums of x_ij^2 too; the objective is
// the weighted mean loss (LIBLINEAR's instance weights, C w_i per row).
//
// With a bias (--bias on: unregularised, the score is x.w + b), stepping b alone now and then is
// not enough: on features of one sign the bias and the weights are coupled, and coordinate descent
// crawls along the valley between them (b stepped once an epoch ended 1.8e-4 above the optimum of
// the test fixture after 40 epochs). So each step on w_j moves b with it, along the feature centred
// on the rows' curvature-weighted mean xbar_j = sum_i loss''_i x_ij / H, H = sum_i loss''_i: the
// direction (e_j, -xbar_j), a rise of w_j by d lowers b by d xbar_j (the centring glmnet applies to
// its intercept). To first order such a step leaves the bias's gradient G = sum_i loss'_i where it
// was (exactly, for the squared loss). Along it the gradient is g - xbar_j G / n and the curvature
// s/n (sum_i loss''_i x_ij^2 - xbar_j sum_i loss''_i x_ij) + l2: the column's sums and the totals G
// and H, taken over every row at the epoch's start, after b's own step (below), and held for the
// epoch. The rows outside the column move by u = -s d xbar_j; the line search counts them by the
// second-order bound, (G - the column's sum of loss') u + (rows outside) kMaxD2 u^2 / 2. Every
// epoch starts with a Newton step on b alone over every row (exact for the squared loss; with the
// line search otherwise). At a fixed point those give G = 0 and the coordinate steps g = 0: the
// optimum with the bias. The workers' moves of b are summed in double: under sequential, hogwild
// and atomic into one total, added to by every step (fetch_add: a lost move of b would outlast the
// epoch) and read before every step (a worker that sees the others' moves of the scores but not
// their moves of b sees every score shifted: two workers reading it every 64 steps diverged on the
// fixture); under average each worker into its own, which only it sees (scaled by s, as its moves
// of the scores are). The epoch ends with b plus the moves.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "columns.hpp"
#include "primal_losses.hpp"
#include "parsgd/scheme/write_policy.hpp"
#include "parsgd/util/prefetch.hpp"
#include "parsgd/util/rng.hpp"
#include "solver/solvers.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kCoordinateStream = 0x636f6f7264;  // "coord"

enum class Sharing { kShared, kCopies };

// The bias as one step on w_j sees it: the totals over every row, and the offset of the scores.
struct BiasView {
  double g = 0;         // G = sum_i loss'(z_i + b), at the epoch's start
  double h = 0;         // H = sum_i loss''(z_i + b), likewise
  float offset = 0;     // what this worker adds to a row's X w: b and the moves of b it sees
  bool centred = true;  // the steps move b along (else b stays; CdRunner::Run)
};

template <class Write, class Loss, Sharing kSharing, bool kBias>
class CdRunner final : public LinearRunner {
 public:
  // Sums over every row of the losses and their first two derivatives at the scores z_i + b.
  struct RowSums {
    double loss = 0, g = 0, h = 0;
  };

  CdRunner(const RunnerShape& shape, double l2, double l1, double tol, uint64_t seed)
      : l2_(l2),
        l1_(l1),
        tol_(tol),
        seed_(seed),
        features_(shape.features),
        workers_(shape.workers) {}

  EpochTotals Run(const LinearContext& c) override {
    const Dataset& data = *c.data;
    const uint64_t n = data.rows();
    if (columns_.offsets.empty()) {
      weights_ = c.weights;
      columns_ = ColumnsOf(data, *c.executor);
      cuts_ = BalancedCuts(columns_, c.workers);
      scores_ = AlignedArray<float>(n);
      squares_.assign(columns_.features(), 0.0);
      sums_.assign(columns_.features(), 0.0);
      if (weights_ != nullptr) column_weights_.assign(columns_.features(), 0.0);
      rows_ = 0;
      for (uint64_t i = 0; i < n; ++i) rows_ += RowWeight(i);
      for (uint64_t j = 0; j < columns_.features(); ++j) {
        for (uint64_t k = columns_.offsets[j]; k < columns_.offsets[j + 1]; ++k) {
          const double r = RowWeight(columns_.rows[k]), v = columns_.values[k];
          squares_[j] += r * v * v;
          sums_[j] += r * v;
          if (weights_ != nullptr) column_weights_[j] += r;
        }
      }
    }
    float* const w = c.params.arrays.weights;
    float& bias = w[features_];  // binary: one output, its bias after the weights
    EpochTotals totals;
    RowSums start = Recompute(c, w, kBias ? bias : 0.0);
    totals.loss_sum = start.loss;
    if (l1_ > 0) totals.partial = PlanShrinking(c.epoch, start.loss / double(n) + Regularizer(w));
    if constexpr (kBias && !Loss::kExact) {
      // The centred steps' sums G and H over every row are the epoch start's: where the loss's
      // curvature changes much within the epoch (the squared hinge's loss'' jumps between 0 and 2,
      // unscaled features), they fall behind, and the epoch can raise the objective (a walkthrough:
      // 16,642 on scikit-learn's breast cancer, 1e33 on manual-page text). So the epoch is checked
      // against where it began, and one that rose is taken again from there without the centring:
      // the steps on w_j alone and the Newton step on b are each checked by their line search over
      // every row they move, so that epoch cannot rise (to rounding, and to the races of hogwild).
      // Cost: a copy of the weights and one more pass over the rows an epoch, and the epoch again
      // where it rose.
      snapshot_.assign(w, w + features_ + 1);
      const double before = start.loss / double(n) + Regularizer(w);
      RowSums copy = start;
      totals.updates = Epoch(c, w, bias, copy, true);
      if (c.executor->stop_flag().load()) return totals;  // interrupted: the trainer undoes it
      const RowSums after = Recompute(c, w, bias);
      if (after.loss / double(n) + Regularizer(w) > before + kRise * std::abs(before)) {
        std::copy(snapshot_.begin(), snapshot_.end(), w);
        RowSums again = Recompute(c, w, bias);
        totals.updates = Epoch(c, w, bias, again, false);
      }
      return Progressive(totals, n);
    }
    totals.updates = Epoch(c, w, bias, start, true);
    return Progressive(totals, n);
  }

  // The progressive loss of an epoch that stepped on a share of the columns (set aside under --l1,
  // or interrupted): the mean loss at its start, over the samples it counts.
  static EpochTotals Progressive(EpochTotals totals, uint64_t n) {
    if (totals.updates != n) totals.loss_sum *= double(totals.updates) / double(n);
    return totals;
  }

  // --l1's shrinking state, so that a resumed run sets aside what this one would.
  void Save(TrainingState& state) const override {
    if (l1_ == 0 || active_.empty()) return;
    state.Put("cd_active", std::vector<float>(active_.begin(), active_.end()));
    state.Put("cd_bound", std::bit_cast<uint64_t>(bound_));
    state.Put("cd_last_objective", std::bit_cast<uint64_t>(last_objective_));
  }
  void Load(const TrainingState& state) override {
    if (l1_ == 0 || !state.Has("cd_active")) return;
    std::vector<float> active(state.arrays().at("cd_active").size());
    state.Get("cd_active", active);
    active_.assign(active.begin(), active.end());
    bound_ = std::bit_cast<double>(state.Counter("cd_bound"));
    last_objective_ = std::bit_cast<double>(state.Counter("cd_last_objective"));
  }

 private:
  static constexpr int kHalvings = 20;
  static constexpr uint64_t kAhead = 16;            // nonzeros of a column fetched ahead
  static constexpr double kLeastCurvature = 1e-12;  // with L1 (LIBLINEAR's nu)
  static constexpr uint64_t kWholeEvery = 10;       // with L1: every coordinate, every 10 epochs
  static constexpr double kArmijo = 0.01;
  // How much an epoch with the centred steps may raise the objective (relative) before it is
  // taken again without them: races and rounding, not a step gone wrong.
  static constexpr double kRise = 1e-9;

  // --l1: LIBLINEAR's shrinking (Yuan et al. 2010): a weight at 0 whose gradient is within the
  // penalty by more than the last epoch's largest optimality violation / rows is set aside, and
  // the next epochs skip its column (most of an L1 model's weights are 0, and stay there). Every
  // coordinate comes back for a whole epoch when the set-aside epochs stop lowering the objective
  // by more than --tol of it (the trainer's own test for cd, which it applies to whole epochs
  // only: EpochTotals::partial), and every kWholeEvery-th epoch. Returns whether this epoch skips
  // any; `objective`: now, before the epoch.
  bool PlanShrinking(uint64_t epoch, double objective) {
    const uint64_t d = columns_.features();
    if (active_.size() != d) active_.assign(d, 1);
    const uint64_t aside = d - static_cast<uint64_t>(std::count(active_.begin(), active_.end(), 1));
    const bool stalled =
        std::isfinite(last_objective_) && last_objective_ - objective <= tol_ * std::abs(objective);
    last_objective_ = objective;
    if (aside > 0 && (stalled || epoch % kWholeEvery == 0)) {
      std::fill(active_.begin(), active_.end(), 1);
      bound_ = std::numeric_limits<double>::infinity();
      return false;
    }
    return aside > 0;
  }

  double Regularizer(const float* w) const {
    double sum = 0, abs = 0;
    for (uint64_t j = 0; j < features_; ++j) {
      sum += double(w[j]) * w[j];
      abs += std::abs(double(w[j]));
    }
    return 0.5 * l2_ * sum + l1_ * abs;
  }

  // One epoch from the sums `start` at the current scores: b's own step, then every worker's
  // coordinates (with the bias moved along each step's centred feature when `centred`). Returns
  // the samples processed: the epoch's share of the data's nonzeros, in rows.
  uint64_t Epoch(const LinearContext& c, float* w, float& bias, RowSums& start, bool centred) {
    const Dataset& data = *c.data;
    const uint64_t n = data.rows();
    double b0 = 0;
    if constexpr (kBias) b0 = StepBias(c, bias, start);
    const double inv_n = 1.0 / static_cast<double>(n);
    const double scale = kSharing == Sharing::kCopies ? c.workers : 1;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    std::vector<uint64_t> done(c.workers, 0);
    moved_ = 0;  // before any worker reads it
    c.executor->RunWorkers(c.workers, [&](int b) {
      Worker& me = workers_[b];
      me.moved = 0;
      float* z = scores_.data();
      if constexpr (kSharing == Sharing::kCopies) {
        me.copy.assign(scores_.begin(), scores_.end());
        z = me.copy.data();
      }
      BiasView view{start.g, start.h, static_cast<float>(b0), centred};
      me.order.clear();
      for (uint64_t j = cuts_[b]; j < cuts_[b + 1]; ++j) {
        if (active_.empty() || active_[j]) me.order.push_back(j);
      }
      me.violation = 0;
      Rng rng(DeriveSeed(seed_, {kCoordinateStream, c.epoch, static_cast<uint64_t>(b)}));
      for (uint64_t k = me.order.size(); k > 1; --k)
        std::swap(me.order[k - 1], me.order[rng.Uniform(k)]);
      uint64_t nnz = 0;
      for (uint64_t k = 0; k < me.order.size(); ++k) {
        if (k % kStepBlock == 0 && stop.load(std::memory_order_relaxed)) break;
        if constexpr (kBias && kSharing == Sharing::kShared) {
          const double moved = std::atomic_ref<double>(moved_).load(std::memory_order_relaxed);
          view.offset = static_cast<float>(b0 + moved);
        }
        const uint64_t j = me.order[k];
        const double along = Step(j, c.targets, z, w[j], inv_n, scale, view, me.violation);
        if constexpr (kBias) {
          if (along != 0) {
            if constexpr (kSharing == Sharing::kShared) {
              std::atomic_ref<double>(moved_).fetch_add(-along, std::memory_order_relaxed);
            } else {
              me.moved -= along;
              view.offset = static_cast<float>(b0 + scale * me.moved);
            }
          }
        }
        nnz += columns_.nnz(j);
      }
      done[b] = nnz;
    });
    if constexpr (kBias) {
      double moved = b0;
      if constexpr (kSharing == Sharing::kShared) {
        moved += moved_;
      } else {
        for (int b = 0; b < c.workers; ++b) moved += workers_[b].moved;
      }
      bias = static_cast<float>(moved);
    }
    if (l1_ > 0) {
      double largest = 0;
      for (int b = 0; b < c.workers; ++b) largest = std::max(largest, workers_[b].violation);
      bound_ = largest * inv_n;
    }
    // Samples processed: the epoch's share of the data's nonzeros, in rows (n for a whole epoch).
    const uint64_t nnz = std::accumulate(done.begin(), done.end(), uint64_t{0});
    return data.nnz() == 0 ? n : static_cast<uint64_t>(double(nnz) / data.nnz() * n);
  }

  struct alignas(kCacheLine) Worker {
    std::vector<uint64_t> order;
    std::vector<float> copy;  // average: this worker's scores for the epoch
    double moved = 0;         // --bias on, average: its moves of b in the epoch (unscaled)
    double violation = 0;     // --l1: the largest optimality violation of its steps this epoch
  };

  static constexpr uint64_t kRows = 4096;  // rows per block of the passes over the rows

  // Calls row(i, sums) for every row, by blocks of rows in parallel; the blocks' sums are added in
  // block order (the same bits whatever the threads).
  template <class Row>
  RowSums OverRows(const LinearContext& c, Row row) {
    const uint64_t n = c.data->rows();
    const uint64_t blocks = (n + kRows - 1) / kRows;
    std::vector<RowSums> part(blocks);
    c.executor->ParallelFor(blocks, [&](uint64_t blk) {
      for (uint64_t i = blk * kRows, end = std::min(n, i + kRows); i < end; ++i) row(i, part[blk]);
    });
    RowSums total;
    for (const RowSums& p : part) {
      total.loss += p.loss;
      total.g += p.g;
      total.h += p.h;
    }
    return total;
  }

  // Row i's weight (the data's and its class's, scaled to a mean of 1: Targets::weights); 1
  // without weights.
  double RowWeight(uint64_t i) const { return weights_ != nullptr ? weights_[i] : 1.0; }

  // Row i's terms, at score z, weighed by its weight.
  void Add(uint64_t i, float z, float y, RowSums& sums) const {
    const double r = RowWeight(i);
    sums.loss += r * Loss::Value(z, y);
    if constexpr (kBias) {
      double d1, d2;
      Loss::Derivatives(z, y, d1, d2);
      sums.g += r * d1;
      sums.h += r * d2;
    }
  }

  // z = X w for every row; the sums at z + b.
  RowSums Recompute(const LinearContext& c, const float* w, float b) {
    const Dataset& data = *c.data;
    return OverRows(c, [&](uint64_t i, RowSums& sums) {
      const SparseRow x = data.row(i);
      float z = 0;
      for (uint32_t e = 0; e < x.nnz; ++e) z += x.value[e] * w[x.index[e]];
      scores_[i] = z;
      if constexpr (kBias) {
        Add(i, z + b, c.targets[i], sums);
      } else {
        sums.loss += RowWeight(i) * Loss::Value(z, c.targets[i]);
      }
    });
  }

  // One Newton step on b alone from `b` (with the sums `at` it); returns the new b and leaves in
  // `at` the sums there. Where the bound on loss'' grants the full step (as for w_j; always for
  // the squared loss) it is taken without a pass over the rows, and the sums there are those of
  // the local quadratic (G = 0, H as it was): the next epoch starts from exact ones. Else the line
  // search passes over the rows, and its last pass gives the sums.
  double StepBias(const LinearContext& c, float b, RowSums& at) {
    if (!(at.h > 0) || at.g == 0) return b;
    double d = -at.g / at.h;
    bool granted = Loss::kExact;
    if constexpr (!Loss::kExact) {
      granted = at.h >= Loss::kMaxD2 * rows_ / (2 * (1 - kArmijo));
    }
    if (granted) {
      at.g = 0;
      return static_cast<float>(b + d);
    }
    for (int t = 0; t < kHalvings; ++t, d *= 0.5) {
      const float next = static_cast<float>(b + d);
      if (next == b) break;
      const RowSums there = OverRows(
          c, [&](uint64_t i, RowSums& sums) { Add(i, scores_[i] + next, c.targets[i], sums); });
      if (there.loss - at.loss <= kArmijo * at.g * d) {
        at = there;
        return next;
      }
    }
    return b;  // no step found
  }

  // One step on coordinate j (with the bias: along the centred feature); returns the step's move
  // of b times -1 (d xbar_j), 0 without a bias or a step. kWeighted: the rows have weights
  // (weights_), which scale each row's terms.
  double Step(uint64_t j, const float* y, float* z, float& wj, double inv_n, double scale,
              const BiasView& bias, double& violation) {
    return weights_ != nullptr ? Step<true>(j, y, z, wj, inv_n, scale, bias, violation)
                               : Step<false>(j, y, z, wj, inv_n, scale, bias, violation);
  }
  template <bool kWeighted>
  double Step(uint64_t j, const float* y, float* z, float& wj, double inv_n, double scale,
              const BiasView& bias, double& violation) {
    [[maybe_unused]] const float* const rw = weights_;
    const uint64_t begin = columns_.offsets[j], end = columns_.offsets[j + 1];
    const uint32_t* const rows = columns_.rows.data();
    const float* const values = columns_.values.data();
    double g = 0, h = 0, h1 = 0, g0 = 0;  // h1, g0: sum loss'' x_ij and sum loss' over the column
    for (uint64_t k = begin; k < end; ++k) {
      const uint32_t i = rows[k];
      const double v = values[k];
      if (k + kAhead < end) {  // the rows' scores and targets are scattered: fetched ahead
        Prefetch(z + rows[k + kAhead]);
        Prefetch(y + rows[k + kAhead]);
      }
      double d1, d2;
      if constexpr (kBias) {
        Loss::Derivatives(Write::Load(z[i]) + bias.offset, y[i], d1, d2);
      } else {
        Loss::Derivatives(Write::Load(z[i]), y[i], d1, d2);
      }
      if constexpr (kWeighted) {
        if (k + kAhead < end) Prefetch(rw + rows[k + kAhead]);
        d1 *= rw[i];
        d2 *= rw[i];
      }
      if constexpr (kBias) {
        h1 += d2 * v;
        g0 += d1;
      }
      g += d1 * v;
      h += d2 * v * v;
    }
    double mean = 0;  // xbar_j
    if constexpr (kBias) {
      if (bias.h > 0 && bias.centred) mean = h1 / bias.h;
      g -= mean * bias.g;
      h = std::max(h - mean * h1, 0.0);
    }
    g = g * inv_n + l2_ * wj;
    h = scale * h * inv_n + l2_;
    if (l1_ > 0) {
      h = std::max(h, kLeastCurvature);  // a column of flat losses still steps
      // How far w_j is from optimal: the distance of 0 from the subgradient g + l1 sign(w_j).
      if (wj == 0) {
        const double outside = std::abs(g) - l1_;
        if (outside < -bound_) {  // well inside: set aside (PlanShrinking)
          active_[j] = 0;
          return 0;
        }
        violation = std::max(violation, outside);
      } else {
        violation = std::max(violation, std::abs(g + (wj > 0 ? l1_ : -l1_)));
      }
    }
    if (!(h > 0)) return 0;
    double d = Direction(g, h, wj);
    if (d == 0) return 0;
    if constexpr (!Loss::kExact) {
      double squares = squares_[j];  // sum_i (x_ij - xbar_j)^2 over every row
      if constexpr (kBias) squares += mean * (mean * rows_ - 2 * sums_[j]);
      const double bound = scale * Loss::kMaxD2 * squares * inv_n + l2_;
      int t = h >= bound / (2 * (1 - kArmijo)) ? kHalvings + 1 : 0;  // granted: no test
      for (; t < kHalvings; ++t, d *= 0.5) {
        double change = 0;
        const double shift = kBias ? scale * d * mean : 0.0;  // every row's move through b
        for (uint64_t k = begin; k < end; ++k) {
          const uint32_t i = rows[k];
          if (k + kAhead < end) {
            Prefetch(z + rows[k + kAhead]);
            Prefetch(y + rows[k + kAhead]);
          }
          double zi = Write::Load(z[i]);
          if constexpr (kBias) zi += bias.offset;
          const double delta =
              Loss::Value(zi + scale * d * values[k] - shift, y[i]) - Loss::Value(zi, y[i]);
          if constexpr (kWeighted) {
            change += rw[i] * delta;
          } else {
            change += delta;
          }
        }
        if constexpr (kBias) {  // the rows outside the column, by their weight
          const double outside =
              rows_ - (kWeighted ? column_weights_[j] : static_cast<double>(end - begin));
          change += -shift * (bias.g - g0) + 0.5 * Loss::kMaxD2 * shift * shift * outside;
        }
        const double l1_change = l1_ * (std::abs(wj + d) - std::abs(double(wj)));
        change = change * inv_n / scale + l2_ * (wj * d + 0.5 * d * d) + l1_change;
        if (change <= kArmijo * (g * d + l1_change)) break;
      }
      if (t == kHalvings) return 0;  // no step found
    }
    // A step to the kink lands on exactly 0 (wj + -wj in double may leave a float's rounding).
    wj = l1_ > 0 && d == -double(wj) ? 0.f : static_cast<float>(wj + d);
    const float move = static_cast<float>(scale * d);
    for (uint64_t k = begin; k < end; ++k) {
      if (k + kAhead < end) Prefetch(z + rows[k + kAhead]);
      const float step = move * values[k];
      Write::Modify(z[rows[k]], [step](float old) { return old + step; });
    }
    return d * mean;
  }

  // The minimiser of the coordinate's model g d + h d^2 / 2 + l1 |w + d| (with l1 0: -g / h): the
  // soft-thresholded Newton step of LIBLINEAR's L1 solvers (Yuan et al. 2010): the step that moves
  // w to 0 where the model's slope changes sign there.
  double Direction(double g, double h, float wj) const {
    if (l1_ == 0) return -g / h;
    if (g + l1_ <= h * wj) return -(g + l1_) / h;
    if (g - l1_ >= h * wj) return -(g - l1_) / h;
    return -double(wj);
  }

  double l2_;
  double l1_;   // the L1 penalty (0: none): w_j soft-thresholded, the bias never
  double tol_;  // the trainer's stopping rule (PlanShrinking)
  uint64_t seed_;
  // --l1's shrinking (PlanShrinking): per column, whether it is stepped (1) or set aside (0),
  // written by the column's worker; the bound on the gradient's margin; the objective before the
  // last epoch.
  std::vector<uint8_t> active_;
  double bound_ = std::numeric_limits<double>::infinity();
  double last_objective_ = std::numeric_limits<double>::quiet_NaN();
  uint64_t features_;  // of the model: the bias is weights[features_]
  double rows_ = 0;    // of the training data: their weights' sum (their count, unweighted)
  const float* weights_ = nullptr;      // RunContext::weights: the rows', or null
  std::vector<double> column_weights_;  // with weights: sum_i w_i over each column's rows
  std::vector<Worker> workers_;
  // --bias on, the shared schemes: the epoch's moves of b (through atomic_ref).
  alignas(kCacheLine) double moved_ = 0;
  Columns columns_;
  std::vector<uint64_t> cuts_;
  AlignedArray<float> scores_;
  std::vector<float> snapshot_;  // the weights and b at the epoch's start (Run)
  std::vector<double> squares_;  // sum_i w_i x_ij^2 per column (w_i: the row's weight, or 1)
  std::vector<double> sums_;     // sum_i w_i x_ij per column
};

// The schemes cd runs under, by their rows: the asynchronous ones share the scores in place
// (under the policy's write; one worker alone writes them plainly, which vectorises), average gives
// each worker its copy.
inline constexpr auto kCdAsync = []<class P>(P*) { return RunsSolver(SchemeOf(P::kKind), Solver::kCd); };

template <class Loss, bool kBias>
std::unique_ptr<LinearRunner> MakeFor(const TrainConfig& config, const RunnerShape& shape) {
  const double l2 = config.l2, l1 = config.l1, tol = config.tol;
  const uint64_t seed = config.seed;
  const SchemeInfo& scheme = SchemeOf(config.scheme);
  if (scheme.family == SchemeFamily::kReplica && RunsSolver(scheme, Solver::kCd)) {
    return std::make_unique<CdRunner<PlainWrite, Loss, Sharing::kCopies, kBias>>(shape, l2, l1, tol,
                                                                                 seed);
  }
  return WithAsyncPolicy(
      config.scheme, kCdAsync,
      [&]<class Policy>(PolicyTag<Policy>) -> std::unique_ptr<LinearRunner> {
        return std::make_unique<CdRunner<typename Policy::Write, Loss, Sharing::kShared, kBias>>(
            shape, l2, l1, tol, seed);
      },
      [&]() -> std::unique_ptr<LinearRunner> { throw NotAsync(config.scheme); });
}

template <class Loss>
std::unique_ptr<LinearRunner> MakeFor(const TrainConfig& config, const RunnerShape& shape) {
  if (config.bias == Bias::kOn) return MakeFor<Loss, true>(config, shape);
  return MakeFor<Loss, false>(config, shape);
}

}  // namespace

std::unique_ptr<LinearRunner> MakePrimalCdRunner(const TrainConfig& config,
                                                 const RunnerShape& shape) {
  return WithPrimalLoss(LossOf(config.model), [&]<class L>(L) {
    return MakeFor<L>(config, shape);
  });
}

}  // namespace parsgd
