// --solver dual-cd: dual coordinate descent for the L1-loss and L2-loss SVMs (`--model hinge`,
// `squared-hinge`; Hsieh, Chang, Lin, Keerthi and Sundararajan, ICML 2008; LIBLINEAR -s 3, -s 1)
// and logistic regression (`--model logistic`;
// Yu, Huang and Lin, Machine Learning 2011; LIBLINEAR -s 7), run by the asynchronous schemes
// (scheme/async_runner.hpp): each worker walks its shard and, for each sample i, takes the step of
// the dual's subproblem in a_i, then moves the shared weights by (a_i' - a_i) y_i x_i under the
// scheme's write policy. Hogwild! is PASSCoDe-Wild (Hsieh, Yu and Dhillon, ICML 2015), atomic
// PASSCoDe-Atomic, locked and striped PASSCoDe-Lock.
//
// The problem is parsgd's objective mean_i loss(y_i w.x_i) + l2 / 2 ||w||^2 without a bias, which
// is 1 / (C n) times LIBLINEAR's 1/2 ||w||^2 + C sum_i loss(y_i w.x_i) with C = 1 / (n l2). Rows
// of weight v_i (Targets::weights) weigh their loss v_i times: C becomes C_i = C v_i a row (as
// LIBLINEAR's instance weights and -wi do), below. Its dual, with w(a) = sum_i a_i y_i x_i and
// 0 <= a_i <= C:
//     max_a  sum_i t(a_i) - 1/2 ||w(a)||^2,
// t(a) = a for the hinge, a - a^2 / (4C) for the squared hinge (a_i without an upper bound),
// t(a) = C log C - a log a - (C - a) log(C - a) for the logistic loss (C
// times the entropy of a / C). The subproblem in a_i, with b = y_i w.x_i and Q_ii = ||x_i||^2
// (summed with the dot product), has the derivative -t'(a_i') + b + Q_ii (a_i' - a_i):
//   - hinge, squared hinge: linear in a_i', solved exactly and projected onto the box; nothing
//     moves where the projected derivative is 0 (BoxDual);
//   - logistic: the root of Q_ii (a' - a) + b + log(a' / (C - a')), by Newton's method
//     (LogisticDual).
// The progressive loss is each sample's loss before its step. The dual variables are part of the
// run's state (checkpoints); a worker reads and writes them with relaxed atomics (with --order
// random two workers may draw the same sample).
//
// The steps need the weights to be w(a). Where every step's write lands (one worker, locked,
// striped, atomic on disjoint shards) they are, to rounding. Under Hogwild! a lost write leaves
// them off by its step for good: PASSCoDe-Wild then converges to the optimum of a perturbed problem
// (on a small dense set, 1.5e-4 above the true optimum and no closer after 1000 passes). So there,
// and under atomic with --order random, the weights are set back to w(a) after every epoch: within
// an epoch the lost writes only delay steps, and the run converges to the true optimum. Where each
// sample is stepped once an epoch, w(a) is the last epoch's (kept in double) plus the epoch's
// logged steps, a pass over the rows that moved only (late in a run a small part of the data);
// under --order random, where two workers may step one sample at once, it is summed afresh over
// every sample.
//
// The dual objective (Runner::DualObjective) is reported on the objective's scale, D(a) / (C n),
// from the weights, which are w(a) after every epoch. D(a) is at most the optimum: the gap
// objective - D bounds the weights' distance to it.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "parsgd/data/row_prefetch.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "scheme/async_runner.hpp"
#include "solver/solvers.hpp"

namespace parsgd {
namespace {

void StoreRelaxed(float& v, float x) {
  std::atomic_ref<float>(v).store(x, std::memory_order_relaxed);
}
// A byte flag's (the name hides no overload of LoadRelaxed and StoreRelaxed for floats).
void StoreFlag(uint8_t& v, uint8_t x) {
  std::atomic_ref<uint8_t>(v).store(x, std::memory_order_relaxed);
}
uint8_t LoadFlag(const uint8_t& v) {
  return std::atomic_ref<uint8_t>(const_cast<uint8_t&>(v)).load(std::memory_order_relaxed);
}

constexpr float kHuge = std::numeric_limits<float>::max();

// A worker's largest and smallest projected derivative of its epoch (the SVM duals' shrinking).
struct Spread {
  float max = -kHuge, min = kHuge;
};

// The SVMs' duals, box-constrained with a closed-form step: the L1-loss SVM's (hinge; `kL2` false),
// a_i in [0, C], t(a) = a; the L2-loss SVM's (squared hinge; Hsieh et al. 2008, LIBLINEAR -s 1),
// a_i >= 0 without an upper bound, t(a) = a - a^2 / (4C). Both steps: with D = 1 / (2C) for the
// L2 loss and 0 for the L1 loss, G = b - 1 + D a_i, a_i' = clip(a_i - G / (Q_ii + D)) to the box.
//
// Shrinking (Hsieh et al. 2008, section 3.2; LIBLINEAR's): a variable at a bound whose derivative
// points out of the box by more than the largest (at 0) or smallest (at C) projected derivative of
// the epoch before is set aside, its row skipped from then on. All are brought back at once when an
// epoch's projected derivatives span at most `reactivate` (0.1 at first, LIBLINEAR's stopping
// tolerance, then a tenth of it each time), so that one set aside wrongly cannot hold the gap open
// for long. With `--shrinking off` every row is visited every epoch. A worker's shard is its rows
// not set aside (Active): an epoch late in a run walks a small part of the data, not every row's
// flag and prefetch.
template <bool kL2>
class BoxDual {
 public:
  // `weights`: each row's (C_i = C v_i), or null for all 1.
  BoxDual(uint64_t rows, double c, const float* weights, bool shrinking)
      : a_(AlignedArray<float>::Zeroed(rows)),
        aside_(AlignedArray<uint8_t>::Zeroed(rows)),
        weights_(weights),
        c_(c),
        upper_(kL2 ? kHuge : static_cast<float>(c)),
        diagonal_(kL2 ? static_cast<float>(0.5 / c) : 0.f),
        shrinking_(shrinking) {}

  static float Loss(float margin) {
    const float slack = std::max(1.f - margin, 0.f);
    return kL2 ? slack * slack : slack;
  }

  bool Skip(uint32_t r) const { return LoadFlag(aside_[r]) != 0; }

  // The rows of `shard` not set aside, in its order: in `out`, or `shard` itself without shrinking.
  std::span<const uint32_t> Active(std::span<const uint32_t> shard,
                                   std::vector<uint32_t>& out) const {
    if (!shrinking_) return shard;
    out.clear();
    for (const uint32_t r : shard) {
      if (!Skip(r)) out.push_back(r);
    }
    return out;
  }

  void Prefetch(uint32_t r) const { parsgd::Prefetch(&a_[r]); }

  // The step on sample r's variable given its margin b = y w.x and q = ||x||^2: the change of a_r
  // (exact: the difference of the two floats, in double).
  double Step(uint32_t r, float b, float q, Spread& spread) {
    // A row's own C: the upper bound C v_r, the L2 loss's D = 1 / (2 C v_r); a row of weight 0
    // has a_r = 0 for good (it is not in the problem).
    float upper = upper_, diagonal = diagonal_;
    if (weights_ != nullptr) {
      const float v = weights_[r];
      if (v == 0.f) return 0;
      upper = kL2 ? kHuge : static_cast<float>(c_ * v);
      diagonal = kL2 ? static_cast<float>(0.5 / (c_ * v)) : 0.f;
    }
    const float a = LoadRelaxed(a_[r]);
    const float g = b - 1.f + diagonal * a;
    float projected = g;
    if (a <= 0.f) {
      if (shrinking_ && g > limits_.max) return SetAside(r);
      projected = std::min(g, 0.f);
    } else if (a >= upper) {
      if (shrinking_ && g < limits_.min) return SetAside(r);
      projected = std::max(g, 0.f);
    }
    spread.max = std::max(spread.max, projected);
    spread.min = std::min(spread.min, projected);
    const float curvature = q + diagonal;
    if (projected == 0.f || curvature == 0.f) return 0;
    const float next = std::min(std::max(a - g / curvature, 0.f), upper);
    StoreRelaxed(a_[r], next);
    return double{next} - a;
  }

  // After the epoch: the limits for the next one from the workers' spreads, or everything back.
  void EndEpoch(std::span<const Spread> spreads) {
    if (!shrinking_) return;
    Spread all;
    for (const Spread& s : spreads) {
      all.max = std::max(all.max, s.max);
      all.min = std::min(all.min, s.min);
    }
    if (all.max - all.min <= reactivate_) {
      std::fill(aside_.begin(), aside_.end(), uint8_t{0});
      limits_ = {kHuge, -kHuge};
      reactivate_ *= 0.1f;
      return;
    }
    limits_ = {all.max > 0 ? all.max : kHuge, all.min < 0 ? all.min : -kHuge};
  }

  double Term(uint64_t r) const {
    if (!kL2 || a_[r] == 0.f) return a_[r];
    const double d = weights_ != nullptr ? 0.5 / (c_ * weights_[r]) : double(diagonal_);
    return a_[r] - 0.5 * d * a_[r] * a_[r];
  }
  double Weight(uint64_t r) const { return a_[r]; }

  void Save(TrainingState& s) const {
    s.Put("dual", a_.span());
    const std::vector<float> aside(aside_.begin(), aside_.end());  // checkpoints hold floats
    s.Put("dual_aside", std::span<const float>(aside));
    const float shrink[] = {limits_.max, limits_.min, reactivate_};
    s.Put("dual_shrink", std::span<const float>(shrink));
  }
  void Load(const TrainingState& s) {
    s.Get("dual", a_.span());
    std::vector<float> aside(aside_.size());
    s.Get("dual_aside", std::span<float>(aside));
    for (std::size_t r = 0; r < aside.size(); ++r) aside_[r] = aside[r] != 0.f;
    float shrink[3];
    s.Get("dual_shrink", std::span<float>(shrink));
    limits_ = {shrink[0], shrink[1]};
    reactivate_ = shrink[2];
  }

 private:
  double SetAside(uint32_t r) {
    StoreFlag(aside_[r], uint8_t{1});
    return 0;
  }

  AlignedArray<float> a_;
  AlignedArray<uint8_t> aside_;   // 1 for a variable set aside
  const float* weights_;          // per row, or null: every row 1
  double c_;
  Spread limits_{kHuge, -kHuge};  // set aside beyond these (max at 0, min at C)
  float reactivate_ = 0.1f;
  float upper_;     // C, or no bound (kHuge) for the L2 loss (rows of weight 1)
  float diagonal_;  // D: 1 / (2C) for the L2 loss, 0 for the L1 loss (rows of weight 1)
  bool shrinking_;
};

// Logistic regression's dual: a_i in (0, C), t(a) = C log C - a log a - (C - a) log(C - a). Each
// sample keeps a_i and C - a_i both, so that the smaller of the two, which the logarithms need
// precisely, never comes from a difference. A row of weight v has its own C v (below, C is the
// row's); a row of weight 0 keeps a = 0 and adds nothing.
//
// The subproblem's derivative in u = a_i' is f(u) = q (u - a_i) + b + log(u / (C - u)), increasing.
// Its root lies at or below C/2 when f(C/2) >= 0; otherwise the root in v = C - u of the mirrored
// f(v) = q (v - (C - a_i)) - b + log(v / (C - v)) does. So the step solves for whichever of the two
// is the smaller at the root, on (0, C/2], where f is concave (f''' < 0): a Newton step from the
// right of the root lands left of it (or at or below 0: then the point is divided by 10 instead),
// and from the left the iterates rise to it. It starts at min(old value, C/2) and stops once a step
// moves the point by at most 1e-6 of itself (past float's resolution after the quadratic step) or
// after kNewtonSteps.
class LogisticDual {
 public:
  LogisticDual(uint64_t rows, double c, const float* weights, bool)
      : a_(AlignedArray<float>::Zeroed(rows)),
        rest_(AlignedArray<float>(rows)),
        weights_(weights),
        c_(c) {
    for (uint64_t r = 0; r < rows; ++r) rest_[r] = static_cast<float>(RowC(r));
  }

  static float Loss(float margin) { return LogisticLoss::Value(margin, 1.f); }

  // No variable reaches a bound: nothing to set aside.
  static bool Skip(uint32_t) { return false; }
  static std::span<const uint32_t> Active(std::span<const uint32_t> shard, std::vector<uint32_t>&) {
    return shard;
  }
  void Prefetch(uint32_t r) const {
    parsgd::Prefetch(&a_[r]);
    parsgd::Prefetch(&rest_[r]);
  }
  static void EndEpoch(std::span<const Spread>) {}

  double Step(uint32_t r, float b, float q, Spread&) {
    const double c = RowC(r);
    if (c == 0) return 0;
    const float before = LoadRelaxed(a_[r]);
    const double a = before, rest = LoadRelaxed(rest_[r]);
    const double half = 0.5 * c;
    const bool lower = q * (half - a) + b >= 0;  // the root in a is at or below C/2
    const double old = lower ? a : rest;
    const double slope = lower ? b : -b;
    double u = old > 0 ? std::min(old, half) : half;
    for (int step = 0; step < kNewtonSteps; ++step) {
      const double f = q * (u - old) + slope + std::log(u / (c - u));
      const double move = f / (q + c / (u * (c - u)));
      if (move >= u) {
        u *= 0.1;
        continue;
      }
      u -= move;
      if (std::abs(move) <= 1e-6 * u) break;
    }
    const float small = static_cast<float>(u), large = static_cast<float>(c - u);
    const float after = lower ? small : large;
    StoreRelaxed(a_[r], after);
    StoreRelaxed(rest_[r], lower ? large : small);
    return double{after} - before;
  }

  double Term(uint64_t r) const { return XLogX(RowC(r)) - XLogX(a_[r]) - XLogX(rest_[r]); }
  double Weight(uint64_t r) const { return a_[r]; }

  void Save(TrainingState& s) const {
    s.Put("dual", a_.span());
    s.Put("dual_rest", rest_.span());
  }
  void Load(const TrainingState& s) {
    s.Get("dual", a_.span());
    s.Get("dual_rest", rest_.span());
  }

 private:
  static constexpr int kNewtonSteps = 30;

  static double XLogX(double x) { return x > 0 ? x * std::log(x) : 0.0; }
  // Row r's C: C times its weight.
  double RowC(uint64_t r) const { return weights_ != nullptr ? c_ * weights_[r] : c_; }

  AlignedArray<float> a_;     // a_i
  AlignedArray<float> rest_;  // C_i - a_i
  const float* weights_;      // per row, or null: every row 1
  double c_;
};

template <class Scheme, class Dual>
class DualCdLocal {
 public:
  using Context = LinearContext;

  // `consistent`: every step's write lands, so that the shared weights stay w(a). `once`: each
  // sample is stepped by one worker at most once an epoch (the order's shards are disjoint).
  DualCdLocal(const RunnerShape& shape, double c, bool consistent, bool once, bool shrinking)
      : scheme_(MakeScheme<Scheme>(shape.features, shape.outputs)),
        workers_(shape.workers),
        dual_(shape.rows, c, shape.row_weights, shrinking),
        c_(c),
        resync_(consistent ? Resync::kNone
                : once     ? Resync::kSteps
                           : Resync::kFull) {}

  std::span<const uint32_t> Shard(const Context& c, int w) {
    Worker& me = workers_[w];
    return dual_.Active(c.order->Indices(c.epoch, w, me.order_scratch), me.active);
  }
  uint64_t Block(const Context&) const { return kStepBlock; }
  double SamplesPerUpdate(const Context&) const { return 1; }

  void Train(const Context& c, int worker, std::span<const uint32_t> shard, uint64_t begin,
             uint64_t end, const RuleContext&, double& loss) {
    using Write = typename Scheme::Write;
    float* const w = c.params.arrays.weights;
    Spread spread = workers_[worker].spread;
    for (uint64_t i = begin; i < end; ++i) {
      PrefetchAhead(*c.data, c.targets, shard, i, [this](uint32_t r) { dual_.Prefetch(r); });
      const uint32_t r = shard[i];
      if (dual_.Skip(r)) continue;
      const SparseRow x = c.data->row(r);
      const float y = c.targets[r];
      typename Scheme::Guard guard(scheme_, x);
      float dot = 0, q = 0;
      for (uint32_t e = 0; e < x.nnz; ++e) {
        const float v = x.value[e];
        dot += v * Write::Load(w[x.index[e]]);
        q += v * v;
      }
      const float margin = y * dot;
      loss += RowWeight(c, r) * Dual::Loss(margin);
      const double change = dual_.Step(r, margin, q, spread);
      if (change == 0) continue;
      if (resync_ == Resync::kSteps) workers_[worker].steps.push_back({r, change * y});
      const float delta = static_cast<float>(change) * y;
      for (uint32_t e = 0; e < x.nnz; ++e) {
        const float step = delta * x.value[e];
        Write::Modify(w[x.index[e]], [step](float old) { return old + step; });
      }
    }
    workers_[worker].spread = spread;
  }

  // Where writes may have been lost, the weights are set back to w(a) (see the top of the file).
  void EndEpoch(const Context& c) {
    std::vector<Spread> spreads;
    for (Worker& me : workers_) spreads.push_back(std::exchange(me.spread, Spread{}));
    dual_.EndEpoch(spreads);
    if (resync_ == Resync::kNone) return;
    std::size_t logged = 0;
    for (const Worker& me : workers_) logged += me.steps.size();
    // The log is walked in the order of the steps, the rows in random order: replaying every row's
    // (the logistic dual moves every row every epoch) made two Hogwild! workers' training 1.4x
    // slower than a walk of every row in storage order on the RCV1-shaped set (2.30 s against
    // 1.69 s). Past an eighth of the rows, SumAll.
    if (resync_ == Resync::kSteps && exact_valid_ && logged <= c.data->rows() / 8) {
      AddSteps(c);
    } else {
      SumAll(c);
    }
    for (Worker& me : workers_) me.steps.clear();
  }

  double DualObjective(const Dataset& data, const float*, const LinearParams& p) const {
    const uint64_t n = data.rows();
    double terms = 0;
    for (uint64_t r = 0; r < n; ++r) terms += dual_.Term(r);
    double norm = 0;  // ||w(a)||^2: the weights are w(a) after every epoch
    for (uint64_t j = 0; j < p.features; ++j)
      norm += double(p.arrays.weights[j]) * p.arrays.weights[j];
    return (terms - 0.5 * norm) / (c_ * static_cast<double>(n));
  }

  void Save(TrainingState& s) const { dual_.Save(s); }
  void Load(const TrainingState& s) {
    dual_.Load(s);
    exact_valid_ = false;  // the next resync sums w(a) afresh
  }

 private:
  // How the weights are brought back to w(a) after an epoch: not at all (every write lands); by
  // adding the epoch's steps, each (sample, change of a_i y_i) logged as it was taken, to w(a) of
  // the epoch before, kept in double (each sample stepped at most once: the log is the change of
  // a); or by summing w(a) over every sample (two workers may have stepped one sample at once,
  // with one change lost: only a itself is certain).
  enum class Resync { kNone, kSteps, kFull };

  struct Logged {
    uint32_t row;
    double change;  // the change of a_row times y_row
  };

  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
    std::vector<uint32_t> active;  // this epoch's shard without the rows set aside
    std::vector<Logged> steps;     // this epoch's, for Resync::kSteps
    Spread spread;                 // this epoch's so far
  };

  // How many arrays of d doubles the resync sums into, one per part of the work: up to one per
  // worker, as many as kResyncBytes allow.
  static int Parts(uint64_t d, int workers) {
    constexpr uint64_t kResyncBytes = uint64_t{64} << 20;
    return static_cast<int>(std::clamp<uint64_t>(kResyncBytes / (8 * std::max<uint64_t>(d, 1)), 1,
                                                 static_cast<uint64_t>(workers)));
  }

  // Each part of the work adds into its own array in double, sum(p, part) for p < parts; then
  // feature block by block, the parts are added in their order to `base` (w(a) so far, or none),
  // which is then w(a), and the weights are set to it in float.
  template <class Sum>
  void Combine(const Context& c, int parts, bool base, Sum sum) {
    const uint64_t d = c.params.features;
    partial_.assign(static_cast<std::size_t>(parts) * d, 0.0);
    c.executor->RunWorkers(
        parts, [&](int p) { sum(p, partial_.data() + static_cast<std::size_t>(p) * d); });
    exact_.resize(d);
    constexpr uint64_t kBlock = 4096;
    float* const w = c.params.arrays.weights;
    c.executor->ParallelFor((d + kBlock - 1) / kBlock, [&](uint64_t b) {
      for (uint64_t j = b * kBlock, end = std::min(d, j + kBlock); j < end; ++j) {
        double v = base ? exact_[j] : 0.0;
        for (int p = 0; p < parts; ++p) v += partial_[static_cast<std::size_t>(p) * d + j];
        exact_[j] = v;
        w[j] = static_cast<float>(v);
      }
    });
    exact_valid_ = true;
  }

  // w(a) summed over every sample, each part a range of the rows.
  void SumAll(const Context& c) {
    const uint64_t n = c.data->rows();
    const int parts = Parts(c.params.features, c.workers);
    Combine(c, parts, false, [&](int p, double* sum) {
      for (uint64_t r = n * p / parts, end = n * (p + 1) / parts; r < end; ++r) {
        const double a = dual_.Weight(r) * c.targets[r];
        if (a == 0) continue;
        const SparseRow x = c.data->row(r);
        for (uint32_t e = 0; e < x.nnz; ++e) sum[x.index[e]] += a * x.value[e];
      }
    });
  }

  // w(a) of the epoch before plus this epoch's steps, each part the logs of every parts-th worker.
  void AddSteps(const Context& c) {
    const int parts = Parts(c.params.features, c.workers);
    Combine(c, parts, true, [&](int p, double* sum) {
      for (std::size_t k = p; k < workers_.size(); k += parts) {
        for (const Logged& step : workers_[k].steps) {
          const SparseRow x = c.data->row(step.row);
          for (uint32_t e = 0; e < x.nnz; ++e) sum[x.index[e]] += step.change * x.value[e];
        }
      }
    });
  }

  Scheme scheme_;
  std::vector<Worker> workers_;
  Dual dual_;
  double c_;
  Resync resync_;
  std::vector<double> exact_;    // w(a) in double after the last resync
  bool exact_valid_ = true;      // exact_ is w(a) of the dual variables (all 0 at the start)
  std::vector<double> partial_;  // the parts' sums
};

template <class Scheme, class Dual>
std::unique_ptr<LinearRunner> Make(const RunnerShape& shape, double c, bool consistent, bool once,
                                   bool shrinking) {
  return std::make_unique<AsyncRunner<LinearParams, DualCdLocal<Scheme, Dual>>>(
      shape.workers, shape, c, consistent, once, shrinking);
}

// The schemes the dual solver runs under: the asynchronous rows that say so.
inline constexpr auto kDualCdAsync = []<class P>(P*) { return RunsSolver(SchemeOf(P::kKind), Solver::kDualCd); };

template <class Dual>
std::unique_ptr<LinearRunner> MakeFor(const TrainConfig& config, const RunnerShape& shape,
                                      double c) {
  // Atomic writes all land; two workers may still step one sample at once under --order random.
  const bool once = config.order != OrderKind::kRandom || shape.workers == 1;
  const bool shrink = config.shrinking == Shrinking::kOn;
  return WithAsyncPolicy(
      config.scheme, kDualCdAsync,
      [&]<class Policy>(PolicyTag<Policy>) {
        // Whether every step's write lands, so that the weights stay w(a) (the file's comment).
        const bool consistent = std::is_same_v<Policy, HogwildScheme>  ? shape.workers == 1
                                : std::is_same_v<Policy, AtomicScheme> ? once
                                                                       : true;
        return Make<Policy, Dual>(shape, c, consistent, once, shrink);
      },
      [&]() -> std::unique_ptr<LinearRunner> { throw NotAsync(config.scheme); });
}

}  // namespace

std::unique_ptr<LinearRunner> MakeDualCdRunner(const TrainConfig& config,
                                               const RunnerShape& shape) {
  const double c = 1.0 / (static_cast<double>(shape.rows) * config.l2);  // l2 resolved, > 0
  if (LossOf(config.model) == Loss::kLogistic) return MakeFor<LogisticDual>(config, shape, c);
  if (LossOf(config.model) == Loss::kSquaredHinge) return MakeFor<BoxDual<true>>(config, shape, c);
  return MakeFor<BoxDual<false>>(config, shape, c);  // hinge (ValidateConfig refuses the others)
}

}  // namespace parsgd
