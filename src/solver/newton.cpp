// --solver newton: Newton's method on the primal for the smooth losses with an L2 term (logistic,
// squared hinge, squared), each Newton direction found by preconditioned conjugate gradients on
// Hessian-vector products, never forming the Hessian (truncated Newton: Lin, Weng and Keerthi,
// JMLR 2008, LIBLINEAR -s 0 and -s 2). As in LIBLINEAR 2.4 and later: the diagonal preconditioner
// of Hsia, Chiang and Lin (ACML 2018) and a backtracking line search along the direction in
// place of a trust region (Galli and Lin, 2021). One epoch is one Newton step. It is the solver for
// dense or ill-conditioned data, where coordinate descent needs hundreds of passes: an inner
// iteration costs one or two passes over the data (below), and a dozen or two Newton steps reach
// the optimum to the float weights' precision.
//
// The problem is parsgd's objective F(w, b) = 1/n sum_i v_i loss(z_i) + l2 / 2 ||w||^2 with the
// scores z = X w + b (b with --bias on, unregularised; v_i the row's weight, 1 without weights). At
// (w, b), with D_i = v_i loss''(z_i) (the squared hinge's generalised second derivative: 2 where
// the margin is short, else 0):
//     gradient  g = 1/n X^T (v loss'(z)) + l2 w,         the bias's 1/n sum_i v_i loss'(z_i);
//     Hessian   H p = 1/n X^T (D (X p + p_b)) + l2 p,    the bias's 1/n sum_i D_i (X p + p_b)_i.
// Conjugate gradients solve H s = -g from s = 0, preconditioned by M = (1 - a) l2 + a diag(H) with
// a = 0.01 (a weight of the diagonal that is small against the identity's, as Hsia et al. chose;
// 1 where both are 0). They stop once the residual -g - H s is at most 0.1 ||g|| (or after
// kMaxInner iterations). LIBLINEAR stops them by the decrease of the quadratic model (Nash and
// Sofer's rule, eta 0.5): on Fashion-MNIST's T-shirt-against-the-rest, 2 to 11 inner iterations a
// step, the objective crawling for 29 steps and stopping 1.5e-4 above the optimum; the residual at
// 0.1 took 11 steps to 2e-9 of it, reaching LIBLINEAR's default precision 1.6x sooner. Along s the
// line search takes the largest of 1, 1/2, 1/4, ... (at most kHalvings halvings) with F(w + t s)
// <= F(w) + 0.01 t g.s; it needs no pass over the data: the scores move by t X s, which the inner
// iterations sum from their products.
//
// Parallel and deterministic: the passes over the rows (X p, the losses) run in blocks of rows,
// their sums added in block order. X^T u (the gradient, the diagonal, H p) is summed one of two
// ways, chosen from the data's shape (NewtonSumsByRows):
//   - by rows, where the features are few against the nonzeros (images, dense tables): in the
//     same pass that computes X p, each of kAccumulators row blocks into accumulators of its own
//     (H p's in float, a block's few thousand rows; the gradient's in double), added up over the
//     blocks in block order: one pass over the data an inner iteration and no copy of it;
//   - by column, where they are many (sparse text: kAccumulators copies of the model would cost
//     more than the pass): over a column copy of the data (solver/columns.hpp, built at the first
//     epoch, beside the rows), each feature's sum its own; two passes an inner iteration.
// Either way the result is the same bits on any number of threads, so the scheme is sync. Every
// epoch starts from the scores of the weights as they are (a run resumed or initialised needs
// nothing saved). The epoch's progressive loss is the mean loss at its start.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

#include "columns.hpp"
#include "parsgd/kernel/sparse_kernels.hpp"
#include "primal_losses.hpp"
#include "solver/solvers.hpp"

namespace parsgd {

// The row blocks' accumulators when X^T u is summed by rows (NewtonSumsByRows): a fixed count, so
// that the sums are the same bits on any number of threads.
constexpr uint64_t kAccumulators = 64;

namespace {

template <class Loss, bool kBias>
class NewtonRunner final : public LinearRunner {
 public:
  NewtonRunner(const RunnerShape& shape, double l2) : l2_(l2), features_(shape.features) {}

  EpochTotals Run(const LinearContext& c) override {
    if (!prepared_) {
      Prepare(c);
      prepared_ = true;
    }
    float* const w = c.params.arrays.weights;
    const double before = Gradient(c, w);
    EpochTotals totals;
    totals.loss_sum = loss_sum_;
    totals.updates = c.data->rows();
    if (!Direction(c)) return totals;  // interrupted: the trainer undoes the epoch
    LineSearch(c, w, before);
    return totals;
  }

 private:
  // The scores, the losses' derivatives, the gradient and the preconditioner at the weights `w`
  // (and the bias after them); returns the objective there.
  double Gradient(const LinearContext& c, const float* w) {
    const Dataset& data = *c.data;
    const double b = kBias ? double(w[features_]) : 0.0;
    const double inv_n = 1.0 / static_cast<double>(data.rows());
    const uint64_t m = gradient_.size();
    const RowTotals start = OverRows(c, gradients_, by_rows_ ? 2 * m : 0, [&](uint64_t i,
                                                                               RowTotals& t,
                                                                               double* sums) {
      const SparseRow x = data.row(i);
      const double z = Dot(x, w) + b;
      scores_[i] = z;
      moved_[i] = 0;
      double d1, d2;
      Loss::Derivatives(static_cast<float>(z), c.targets[i], d1, d2);
      const double v = RowWeight(c, static_cast<uint32_t>(i));
      const float first = static_cast<float>(v * d1), second = static_cast<float>(v * d2);
      first_[i] = first;
      second_[i] = second;
      t.loss += v * Loss::Value(z, c.targets[i]);
      t.first += v * d1;
      t.second += v * d2;
      if (sums != nullptr) {
        for (uint32_t e = 0; e < x.nnz; ++e) {
          const double value = x.value[e];
          sums[x.index[e]] += value * first;
          sums[m + x.index[e]] += value * value * second;
        }
      }
    });
    loss_sum_ = start.loss;
    if (by_rows_) {
      const double* sums = Reduce(c, gradients_, 2 * m);
      for (uint64_t j = 0; j < features_; ++j) {
        gradient_[j] = sums[j] * inv_n + l2_ * w[j];
        precondition_[j] = Precondition(sums[m + j] * inv_n + l2_);
      }
    } else {
      OverColumns(c, [&](uint64_t j, const uint32_t* rows, const float* values, uint64_t count) {
        double g = 0, h = 0;
        for (uint64_t k = 0; k < count; ++k) {
          g += double(values[k]) * first_[rows[k]];
          h += double(values[k]) * values[k] * second_[rows[k]];
        }
        gradient_[j] = g * inv_n + l2_ * w[j];
        precondition_[j] = Precondition(h * inv_n + l2_);
      });
      for (uint64_t j = columns_.features(); j < features_; ++j) {
        gradient_[j] = l2_ * w[j];
        precondition_[j] = Precondition(l2_);
      }
    }
    if constexpr (kBias) {
      gradient_[features_] = start.first * inv_n;
      precondition_[features_] = Precondition(start.second * inv_n);
    }
    double ww = 0;
    for (uint64_t j = 0; j < features_; ++j) ww += double(w[j]) * w[j];
    return start.loss * inv_n + 0.5 * l2_ * ww;
  }

  // Conjugate gradients on H s = -g, preconditioned by M: s in step_, X s + s_b in moved_.
  // Returns false if the run was interrupted.
  bool Direction(const LinearContext& c) {
    const double inv_n = 1.0 / static_cast<double>(c.data->rows());
    const uint64_t m = gradient_.size();
    double rz = 0, gg = 0;
    for (uint64_t j = 0; j < m; ++j) {
      gg += gradient_[j] * gradient_[j];
      step_[j] = 0;
      residual_[j] = -gradient_[j];
      direction_[j] = residual_[j] / precondition_[j];
      rz += residual_[j] * direction_[j];
    }
    for (int inner = 1; inner <= kMaxInner && rz > 0; ++inner) {
      if (c.executor->stop_flag().load(std::memory_order_relaxed)) return false;
      const double curvature = Product(c, inv_n);  // p.H p; H p in product_
      if (!(curvature > 0)) break;
      const double alpha = rz / curvature;
      for (uint64_t j = 0; j < m; ++j) {
        step_[j] += alpha * direction_[j];
        residual_[j] -= alpha * product_[j];
      }
      ParallelRows(c, [&](uint64_t i) { moved_[i] += alpha * along_[i]; });
      double rr = 0, rz_next = 0;
      for (uint64_t j = 0; j < m; ++j) {
        rr += residual_[j] * residual_[j];
        rz_next += residual_[j] * residual_[j] / precondition_[j];
      }
      if (rr <= kForcing * kForcing * gg) break;
      const double beta = rz_next / rz;
      rz = rz_next;
      for (uint64_t j = 0; j < m; ++j)
        direction_[j] = residual_[j] / precondition_[j] + beta * direction_[j];
    }
    return true;
  }

  // The line search along s from `w`, where the objective is `before`: F at w + t s from the
  // scores moved by t X s. Leaves `w` where it was if no step lowers the objective enough (the
  // trainer's stopping rule then ends the run).
  void LineSearch(const LinearContext& c, float* w, double before) {
    const double inv_n = 1.0 / static_cast<double>(c.data->rows());
    const uint64_t m = gradient_.size();
    double gs = 0, ww = 0, ws = 0, ss = 0;
    for (uint64_t j = 0; j < m; ++j) gs += gradient_[j] * step_[j];
    for (uint64_t j = 0; j < features_; ++j) {
      ww += double(w[j]) * w[j];
      ws += double(w[j]) * step_[j];
      ss += step_[j] * step_[j];
    }
    if (!(gs < 0)) return;  // at the optimum to rounding: no descent direction
    double t = 1;
    for (int halving = 0; halving <= kHalvings; ++halving, t *= 0.5) {
      const RowTotals there = OverRows(c, gradients_, 0, [&](uint64_t i, RowTotals& sums, double*) {
        const double z = scores_[i] + t * moved_[i];
        sums.loss += RowWeight(c, static_cast<uint32_t>(i)) * Loss::Value(z, c.targets[i]);
      });
      const double after = there.loss * inv_n + 0.5 * l2_ * (ww + 2 * t * ws + t * t * ss);
      if (after <= before + kArmijo * t * gs) {
        for (uint64_t j = 0; j < m; ++j) w[j] = static_cast<float>(double(w[j]) + t * step_[j]);
        return;
      }
    }
  }

  static constexpr int kMaxInner = 250;
  static constexpr int kHalvings = 20;
  static constexpr double kForcing = 0.1;
  static constexpr double kArmijo = 0.01;
  static constexpr double kMix = 0.01;  // the diagonal's weight in the preconditioner
  static constexpr uint64_t kRows = 4096;        // rows per block of the passes over the rows
  static constexpr uint64_t kEntries = 1 << 16;  // nonzeros per block of the passes by column

  struct RowTotals {
    double loss = 0, first = 0, second = 0;
  };

  void Prepare(const LinearContext& c) {
    const uint64_t n = c.data->rows();
    const uint64_t m = features_ + (kBias ? 1 : 0);
    by_rows_ = NewtonSumsByRows(features_, c.data->nnz());
    if (by_rows_) {
      gradients_.assign(kAccumulators * 2 * m, 0.0);
      products_.assign(kAccumulators * m, 0.f);
      reduced_.assign(2 * m, 0.0);
    } else {
      columns_ = ColumnsOf(*c.data, *c.executor);
      const int blocks = static_cast<int>(std::max<uint64_t>(
          1, std::min<uint64_t>(columns_.offsets[columns_.features()] / kEntries + 1,
                                columns_.features())));
      column_cuts_ = BalancedCuts(columns_, blocks);
    }
    for (std::vector<double>* v : {&scores_, &moved_, &along_}) v->assign(n, 0.0);
    for (std::vector<float>* v : {&first_, &second_, &curved_}) v->assign(n, 0.f);
    for (std::vector<double>* v :
         {&gradient_, &precondition_, &step_, &residual_, &direction_, &product_})
      v->assign(m, 0.0);
    gather_.assign(features_, 0.f);
  }

  // M's entry for a diagonal entry `h` of H (l2 included).
  double Precondition(double h) const {
    const double p = (1 - kMix) * l2_ + kMix * h;
    return p > 0 ? p : 1.0;
  }

  static double Dot(const SparseRow& x, const float* v) {
    double s0 = 0, s1 = 0;
    uint32_t e = 0;
    for (; e + 1 < x.nnz; e += 2) {
      s0 += double(x.value[e]) * v[x.index[e]];
      s1 += double(x.value[e + 1]) * v[x.index[e + 1]];
    }
    if (e < x.nnz) s0 += double(x.value[e]) * v[x.index[e]];
    return s0 + s1;
  }

  // H p for p = direction_, into product_; returns p.H p. X p + p_b is left in along_.
  double Product(const LinearContext& c, double inv_n) {
    const Dataset& data = *c.data;
    for (uint64_t j = 0; j < features_; ++j) gather_[j] = static_cast<float>(direction_[j]);
    const double pb = kBias ? direction_[features_] : 0.0;
    const uint64_t m = product_.size();
    // The Hessian-vector products in float, on the CPU's vector path (parsgd/kernel): conjugate
    // gradients need them to a few digits; the gradient and the scores are summed in double.
    const Isa isa = c.params.isa;
    const RowTotals rows = OverRows(c, products_, by_rows_ ? m : 0, [&](uint64_t i, RowTotals& t,
                                                                       float* sums) {
      const SparseRow x = data.row(i);
      const double u = double(SparseDot(isa, gather_.data(), x.index, x.value, x.nnz)) + pb;
      along_[i] = u;
      const float curved = static_cast<float>(second_[i] * u);
      curved_[i] = curved;
      t.second += second_[i] * u;
      if (sums != nullptr) SparseScaledAdd(isa, sums, x.index, x.value, x.nnz, curved);
    });
    if (by_rows_) {
      const double* sums = Reduce(c, products_, m);
      for (uint64_t j = 0; j < features_; ++j) product_[j] = sums[j] * inv_n + l2_ * direction_[j];
    } else {
      OverColumns(c, [&](uint64_t j, const uint32_t* rows, const float* values, uint64_t count) {
        double s = 0;
        for (uint64_t k = 0; k < count; ++k) s += double(values[k]) * curved_[rows[k]];
        product_[j] = s * inv_n + l2_ * direction_[j];
      });
      for (uint64_t j = columns_.features(); j < features_; ++j)
        product_[j] = l2_ * direction_[j];
    }
    if constexpr (kBias) product_[features_] = rows.second * inv_n;
    double curvature = 0;
    for (uint64_t j = 0; j < product_.size(); ++j) curvature += direction_[j] * product_[j];
    return curvature;
  }

  // Calls row(i, totals, sums) for every row, by blocks of rows in parallel; the blocks' totals
  // are added in block order (the same bits whatever the threads). With `width` > 0 (by_rows_),
  // `sums` is the block's own `width` accumulators in `all`, zeroed first, for Reduce to add up;
  // else null.
  template <class T, class Row>
  RowTotals OverRows(const LinearContext& c, std::vector<T>& all, uint64_t width, Row row) {
    const uint64_t n = c.data->rows();
    const uint64_t blocks = RowBlocks(n);
    part_.assign(blocks, RowTotals{});
    c.executor->ParallelFor(blocks, [&](uint64_t blk) {
      T* sums = nullptr;
      if (width > 0) {
        sums = all.data() + blk * width;
        std::fill(sums, sums + width, T{0});
      }
      for (uint64_t i = n * blk / blocks, end = n * (blk + 1) / blocks; i < end; ++i)
        row(i, part_[blk], sums);
    });
    RowTotals total;
    for (const RowTotals& p : part_) {
      total.loss += p.loss;
      total.first += p.first;
      total.second += p.second;
    }
    return total;
  }

  // The row blocks: kAccumulators under by_rows_ (each with its accumulators), else blocks of
  // about kRows rows.
  uint64_t RowBlocks(uint64_t n) const {
    return by_rows_ ? kAccumulators : std::max<uint64_t>(1, (n + kRows - 1) / kRows);
  }

  // The row blocks' `width` accumulators in `all` added up in double, each entry over the blocks
  // in block order; returns them (in reduced_).
  template <class T>
  const double* Reduce(const LinearContext& c, const std::vector<T>& all, uint64_t width) {
    constexpr uint64_t kChunk = 4096;
    c.executor->ParallelFor((width + kChunk - 1) / kChunk, [&](uint64_t chunk) {
      for (uint64_t j = chunk * kChunk, end = std::min(width, j + kChunk); j < end; ++j) {
        double s = 0;
        for (uint64_t blk = 0; blk < kAccumulators; ++blk) s += all[blk * width + j];
        reduced_[j] = s;
      }
    });
    return reduced_.data();
  }

  template <class Row>
  void ParallelRows(const LinearContext& c, Row row) {
    const uint64_t n = c.data->rows();
    c.executor->ParallelFor((n + kRows - 1) / kRows, [&](uint64_t blk) {
      for (uint64_t i = blk * kRows, end = std::min(n, i + kRows); i < end; ++i) row(i);
    });
  }

  // Calls column(j, rows, values, count) for every feature of the data, by blocks of features in
  // parallel.
  template <class Column>
  void OverColumns(const LinearContext& c, Column column) {
    c.executor->ParallelFor(column_cuts_.size() - 1, [&](uint64_t blk) {
      for (uint64_t j = column_cuts_[blk]; j < column_cuts_[blk + 1]; ++j) {
        const uint64_t at = columns_.offsets[j];
        column(j, columns_.rows.data() + at, columns_.values.data() + at, columns_.nnz(j));
      }
    });
  }

  double l2_;
  uint64_t features_;  // of the model: the bias is weights[features_]
  double loss_sum_ = 0;  // at the epoch's start
  bool prepared_ = false;
  // Whether X^T u is summed in the passes over the rows, into each row block's accumulators
  // (NewtonSumsByRows), or by column.
  bool by_rows_ = false;
  // by_rows_: each row block's sums, of the gradient and the diagonal (2 m, double) and of H p (m,
  // float: a block's few thousand rows; the blocks added in double); and the blocks' sums.
  std::vector<double> gradients_;
  std::vector<float> products_;
  std::vector<double> reduced_;
  Columns columns_;                   // else: the data by column
  std::vector<uint64_t> column_cuts_;
  std::vector<RowTotals> part_;
  // Per row: the score z_i, X s (the step so far), X p + p_b (the last product's), v_i loss'(z_i),
  // D_i, and D_i (X p + p_b)_i.
  std::vector<double> scores_, moved_, along_;
  std::vector<float> first_, second_, curved_;
  // Per coordinate (the bias last): g, M, s, r, p, H p; and p in float, for the rows' products.
  std::vector<double> gradient_, precondition_, step_, residual_, direction_, product_;
  std::vector<float> gather_;
};

template <class Loss>
std::unique_ptr<LinearRunner> MakeFor(const TrainConfig& config, const RunnerShape& shape) {
  if (config.bias == Bias::kOn) return std::make_unique<NewtonRunner<Loss, true>>(shape, config.l2);
  return std::make_unique<NewtonRunner<Loss, false>>(shape, config.l2);
}

}  // namespace

bool NewtonSumsByRows(uint64_t features, uint64_t nnz) {
  return kAccumulators * 8 * (features + 1) <= nnz;
}

std::unique_ptr<LinearRunner> MakeNewtonRunner(const TrainConfig& config,
                                               const RunnerShape& shape) {
  return WithPrimalLoss(LossOf(config.model), [&]<class L>(L) {
    return MakeFor<L>(config, shape);
  });
}

}  // namespace parsgd
