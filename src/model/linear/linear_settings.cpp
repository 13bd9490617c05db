// The linear models' data-derived settings (model/linear/linear_settings.hpp).
#include "linear_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "curvature.hpp"
#include "linear_runner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"

namespace parsgd {
namespace {

// The default SGD step size is kAutoStepScale / (c * R2): R2 = mean sum_j m_j x_j^2 (the row's
// squared norm in the preconditioned geometry, bias input included) and c the loss's curvature
// bound, so that a typical step moves a sample's score by about half of what would overshoot the
// loss's quadratic model. Scale-free: multiplying the features by s scales eta0 by 1/s^2, as it
// must. A minibatch of B averages B gradients:
//  - logistic, hinge and softmax have bounded gradients: a step too long adds noise (which the
//    decaying schedule removes) but cannot diverge. Their minibatch step is the single-sample step
//    times B / (1 + B / 256): the linear scaling rule (Goyal et al. 2017) damped past B = 256. On
//    the RCV1-shaped set and Fashion-MNIST it landed within the best of a 2x grid for B = 32 and
//    256, where sqrt(B) scaling and the curvature bound below stopped 1-10 points of accuracy short
//    after 5 epochs (bench/README.md);
//  - squared loss can diverge, so it keeps the bound of Ma, Bassily and Belkin (2018, "The power of
//    interpolation"): B / (R2 + (B - 1) L) with L the largest eigenvalue of the rows' second
//    moment.
// Momentum's steps add up to 1/(1 - mu) of a gradient step, so its eta0 is scaled by (1 - mu).
// RMSProp and Adam move every touched coordinate by about eta, so a row's score moves by about
// eta * L1, L1 = mean sum_j sqrt(m_j) |x_j| (bias included): their eta0 is kAutoStepScale / L1.
// torch.optim's 0.001 suits dense networks; on the sets of bench/README.md it stopped 3-8 points of
// accuracy short, and this rule landed within the best of a 10x grid. AdaGrad's steps shrink as
// each coordinate accumulates gradients, which that scaling does not capture: it starts at 0.3, the
// best of the same grid on both the RCV1-shaped set and Fashion-MNIST.
constexpr double kAutoStepScale = 0.5;
constexpr double kAutoAdaGradStep = 0.3;

// --schedule optimal's first step: Bottou's heuristic (his sgd code, and scikit-learn's for its
// 'optimal' rate), the step that moves a weight of the typical size sqrt(1 / sqrt(l2)) with one
// gradient of the loss at a score of that size on the wrong side (at most 1 for the logistic,
// hinge and softmax losses; epsilon for Huber's).
double OptimalEta0(Loss loss, float epsilon, double l2) {
  const double typical = std::sqrt(1.0 / std::sqrt(l2));
  float slope = 1.f;  // softmax: every coordinate of its gradient is within [-1, 1]
  if (loss != Loss::kSoftmax) {
    ScoreLoss{loss, epsilon}.ValueAndDerivative(static_cast<float>(-typical), 1.f, &slope);
  }
  return typical / std::max(1.0, std::abs(static_cast<double>(slope)));
}

double AutoEta0(const TrainConfig& config, const LinearSettings& r) {
  // optimal: the penalty's whole strength, as scikit-learn's alpha (l2 + l1).
  if (config.schedule == ScheduleKind::kOptimal) {
    return OptimalEta0(LossOf(config.model), static_cast<float>(config.loss_epsilon),
                       r.l2 + config.l1);
  }
  constexpr double kDampedBatch = 256;
  const double b = config.batch;
  const double curvature = CurvatureOf(LossOf(config.model));
  const double single = kAutoStepScale / (curvature * r.mean_squared_norm);
  const double sgd =
      LossOf(config.model) == Loss::kSquared
          ? kAutoStepScale / curvature * b / (r.mean_squared_norm + (b - 1) * r.top_eigenvalue)
          : single * b / (1 + b / kDampedBatch);
  switch (config.optimizer.kind) {
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov:
      return sgd * (1 - config.optimizer.momentum);
    case OptimizerKind::kAdaGrad:
      return kAutoAdaGradStep;
    case OptimizerKind::kRmsProp:
    case OptimizerKind::kAdam:
      return kAutoStepScale / r.mean_l1_norm;
    case OptimizerKind::kSgd:
    case OptimizerKind::kAuto:
      break;
  }
  return sgd;
}

// Per-feature statistics of the training rows, in one pass: d_j, max |x_j|, sum |x_j|, sum x_j^2.
struct FeatureStats {
  std::vector<uint64_t> rows_with;
  std::vector<float> max_abs;
  std::vector<double> abs_sums;
  std::vector<double> squares;
};

// The scan's workers: each takes a range of features (ranges balanced by their nonzeros in a
// sample of the rows) and, in every row, the segment of the row's ascending indices that falls in
// its range: no test a nonzero. Every feature's sums are still taken in row order, so the
// statistics are the same bits at any worker count. Each worker walks the start of every row: past
// a few workers that costs more than the updates it shares out (bench/README.md, "The Python module
// against scikit-learn").
constexpr int kMaxScanWorkers = 8;
constexpr uint64_t kNonzerosPerScanWorker = 1 << 20;  // fewer, and one worker scans alone
constexpr uint64_t kSampledRows = 4096;
constexpr uint64_t kCountedBlocks = 1 << 16;  // the sample's counts: of blocks of features

// Where each of `workers` feature ranges starts (and the last ends): the nonzeros of every
// (rows / kSampledRows)-th row, counted by block of features, shared out evenly.
std::vector<uint64_t> FeatureRanges(const Dataset& train, int workers) {
  const uint64_t d = train.features();
  const uint64_t width = (d + kCountedBlocks - 1) / kCountedBlocks;
  std::vector<uint64_t> counts((d + width - 1) / width);
  const uint64_t step = std::max<uint64_t>(1, train.rows() / kSampledRows);
  uint64_t sampled = 0;
  for (uint64_t r = 0; r < train.rows(); r += step) {
    const SparseRow row = train.row(r);
    for (uint32_t k = 0; k < row.nnz; ++k) ++counts[row.index[k] / width];
    sampled += row.nnz;
  }
  std::vector<uint64_t> starts(workers + 1, d);
  starts[0] = 0;
  uint64_t seen = 0;
  int next = 1;
  for (uint64_t b = 0; b < counts.size() && next < workers; ++b) {
    seen += counts[b];
    while (next < workers && seen * workers >= sampled * next) {
      starts[next++] = std::min(d, (b + 1) * width);
    }
  }
  return starts;
}

FeatureStats ScanFeatures(const Dataset& train, Executor& executor) {
  const uint64_t f_count = train.features();
  // The pass keeps a feature's four statistics in one record, so that a nonzero's updates touch
  // one cache line rather than four: a 50,000-feature model's four arrays (1.4 MB) miss the L2
  // cache at random features. Every sum is taken in row order.
  struct alignas(32) Stat {
    double abs_sum = 0, square = 0;
    uint64_t rows_with = 0;
    float max_abs = 0;
  };
  std::vector<Stat> stats(f_count);
  const int workers = static_cast<int>(std::clamp<uint64_t>(
      std::min<uint64_t>(train.nnz() / kNonzerosPerScanWorker,
                         static_cast<uint64_t>(std::min(executor.threads(), kMaxScanWorkers))),
      1, kMaxScanWorkers));
  const std::vector<uint64_t> starts =
      workers > 1 ? FeatureRanges(train, workers) : std::vector<uint64_t>{0, f_count};
  const uint64_t* offsets = train.offsets().data();
  const uint32_t* indices = train.indices().data();
  const float* values = train.values().data();
  const auto scan = [&](int w) {
    const uint64_t lo = starts[w], hi = starts[w + 1];
    for (uint64_t r = 0; r < train.rows(); ++r) {
      uint64_t e = offsets[r];
      const uint64_t end = offsets[r + 1];
      while (e < end && indices[e] < lo) ++e;
      for (; e < end && indices[e] < hi; ++e) {
        Stat& s = stats[indices[e]];
        const float v = values[e];
        ++s.rows_with;
        s.max_abs = std::max(s.max_abs, std::abs(v));
        s.abs_sum += std::abs(v);
        s.square += static_cast<double>(v) * v;
      }
    }
  };
  if (workers == 1) {
    scan(0);
  } else {
    executor.RunWorkers(workers, [&](int w) {
      // The data as written, as in the calling thread: a subnormal value counts (the executor's
      // workers flush them to zero, util/float_env.hpp).
      const bool flushing = FlushesDenormals();
      SetFlushDenormals(false);
      scan(w);
      SetFlushDenormals(flushing);
    });
  }
  FeatureStats f{std::vector<uint64_t>(f_count), std::vector<float>(f_count),
                 std::vector<double>(f_count), std::vector<double>(f_count)};
  for (uint64_t j = 0; j < f_count; ++j) {
    f.rows_with[j] = stats[j].rows_with;
    f.max_abs[j] = stats[j].max_abs;
    f.abs_sums[j] = stats[j].abs_sum;
    f.squares[j] = stats[j].square;
  }
  return f;
}

// Every rank's statistics together: counts and sums added, the largest |x_j| the largest of any.
// Rows: returned.
uint64_t AgreeFeatureStats(FeatureStats& f, uint64_t rows, Communicator& comm) {
  comm.SumAll(f.rows_with);
  comm.SumAll(f.abs_sums);
  comm.SumAll(f.squares);
  comm.MaxAllMagnitudes(f.max_abs);
  return comm.Sum(rows);
}

// The rates, the regulariser and the mean preconditioned norms of a row, from the feature
// statistics of `rows` rows.
// Past 2^60 in magnitude a feature's step scale 1/x^2 (and the step size of unscaled features)
// falls below float's normal range, where the workers' flush-to-zero makes it 0: such a feature
// would silently never train. Refused, naming it (`source`: the data, for the message).
constexpr float kLargestMagnitude = 0x1p60f;

// Auto L2 on hashed text: C = 20. The per-feature lazy penalty falls on a feature in proportion to
// the rows it is missing from, so C = 1 all but erases the rare words and n-grams that carry much
// of a text's class: on the Debian package-description set (bench/README.md, "Raw text") softmax
// reached 74.2% test accuracy at C = 1 and 76.2% at C = 20, the same as without a penalty (76.3%),
// while l2 stays above 0 for the solvers that need it.
constexpr double kHashedTextC = 20;

void ResolveFeatureRates(const TrainConfig& config, const Dataset& train, uint64_t rows,
                         const FeatureStats& f, double auto_l2_scale, LinearSettings& r) {
  const uint64_t features = train.features();
  const std::string& source = train.source();
  const double n = static_cast<double>(rows);
  // auto: LIBLINEAR's C = 1, or kHashedTextC on hashed text (times the scale of weighted rows);
  // none where an L1 penalty is given (the lasso; elastic net gives both)
  r.l2 = config.l2 >= 0 ? config.l2
         : config.l1 > 0 ? 0.0
                         : auto_l2_scale / ((train.hashing() ? kHashedTextC : 1.0) * n);
  const bool scaled = config.normalize == Normalization::kMaxAbs;
  AlignedArray<FeatureRate>& rates = r.rates;
  double squares = 0, l1 = 0;
  if (scaled || r.l2 > 0) rates = AlignedArray<FeatureRate>(features);
  if (config.l1 > 0) r.l1_rates = AlignedArray<float>(features);
  const bool cumulative = config.optimizer.kind == OptimizerKind::kSgd;  // optimizer.hpp
  for (uint64_t j = 0; j < features; ++j) {
    if (f.max_abs[j] > kLargestMagnitude) {
      throw Error(fmt::format(
          "{}: the feature at 0-based index {} has a value of magnitude {:g}: past 2^60 (about "
          "1.2e18) the linear models' float steps underflow and it would not train; rescale the "
          "data",
          source, j, f.max_abs[j]));
    }
    const double m = scaled && f.max_abs[j] > 0 ? 1.0 / (double(f.max_abs[j]) * f.max_abs[j]) : 1.0;
    const double q = f.rows_with[j] > 0 ? r.l2 * n / f.rows_with[j] : 0.0;
    squares += m * f.squares[j];
    l1 += std::sqrt(m) * f.abs_sums[j];
    if (!rates.empty()) rates[j] = {static_cast<float>(m), static_cast<float>(m * q)};
    if (!r.l1_rates.empty()) {  // sgd's cumulative penalty owes by its clock, the others per touch
      r.l1_rates[j] = cumulative ? static_cast<float>(m * config.l1)
                      : f.rows_with[j] > 0
                          ? static_cast<float>(m * config.l1 * n / f.rows_with[j])
                          : 0.f;
    }
  }
  const double bias_input = config.bias == Bias::kOn ? 1.0 : 0.0;  // the bias's input, when trained
  r.mean_squared_norm = squares / n + bias_input;
  r.mean_l1_norm = l1 / n + bias_input;
}

}  // namespace

LinearSettings ResolveLinearSettings(const TrainConfig& config, const Dataset& train,
                                     Executor& executor, double auto_l2_scale) {
  LinearSettings r;
  ResolveFeatureRates(config, train, train.rows(), ScanFeatures(train, executor), auto_l2_scale,
                      r);
  if (config.batch > 1 && LossOf(config.model) == Loss::kSquared) {
    r.top_eigenvalue = EstimateTopEigenvalue(train, r.rates.empty() ? nullptr : r.rates.data());
  }
  r.eta0 = config.learning_rate == 0 ? AutoEta0(config, r) : config.learning_rate;
  return r;
}

LinearSettings ResolveLinearSettings(const TrainConfig& config, const Dataset& train,
                                     Executor& executor, Communicator& comm,
                                     double auto_l2_scale) {
  LinearSettings r;
  FeatureStats f = ScanFeatures(train, executor);
  const uint64_t rows = AgreeFeatureStats(f, train.rows(), comm);
  ResolveFeatureRates(config, train, rows, f, auto_l2_scale, r);
  if (config.batch > 1 && LossOf(config.model) == Loss::kSquared) {
    r.top_eigenvalue =
        EstimateTopEigenvalue(train, r.rates.empty() ? nullptr : r.rates.data(), &comm);
  }
  r.eta0 = config.learning_rate == 0 ? AutoEta0(config, r) : config.learning_rate;
  return r;
}

}  // namespace parsgd
