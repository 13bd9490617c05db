#include "parsgd/model/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "model/linear/linear_runner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/row_prefetch.hpp"
#include "parsgd/model/mlp/mlp_input.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kBlockRows = 4096;
constexpr int kMlpBlockRows = 256;  // rows per MLP block: fixed, so sums repeat at any thread count
constexpr int kMlpTileRows = 64;    // a block is scored in whole tiles of these rows (ForEachMlpBlock)
static_assert(kMlpBlockRows % kMlpTileRows == 0);

double SampleLoss(const LinearModel& model, const float* z, float target) {
  return WithHead(LossOf(model.kind()), model.loss_epsilon(), model.outputs(),
                  [&](const auto& head) { return head.Value(z, model.outputs(), target); });
}

// A block's sums: the weighted losses, the rows predicted right, their weights, and every row's;
// for a regression, the weighted residuals' squares and magnitudes and the targets' spread about
// the mean of all.
struct BlockSum {
  double loss = 0;
  uint64_t correct = 0;
  double weighted_correct = 0;
  double weight = 0;
  double squared_error = 0;
  double absolute_error = 0;
  double target_spread = 0;

  // Row of weight w, its loss and whether it was predicted right.
  void Add(double w, double row_loss, bool right) {
    loss += w * row_loss;
    correct += right;
    weighted_correct += right ? w : 0;
    weight += w;
  }
  // A regression's row of weight w: its residual and its target's distance from the mean.
  void AddResidual(double w, double residual, double from_mean) {
    squared_error += w * residual * residual;
    absolute_error += w * std::abs(residual);
    target_spread += w * from_mean * from_mean;
  }
};

Evaluation Combine(const std::vector<BlockSum>& sums, uint64_t rows) {
  BlockSum total;
  for (const BlockSum& s : sums) {  // block order: the same sum at any thread count
    total.loss += s.loss;
    total.correct += s.correct;
    total.weighted_correct += s.weighted_correct;
    total.weight += s.weight;
    total.squared_error += s.squared_error;
    total.absolute_error += s.absolute_error;
    total.target_spread += s.target_spread;
  }
  Evaluation e;
  e.rows = rows;
  e.weight_sum = total.weight;
  e.squared_error = total.squared_error;
  e.absolute_error = total.absolute_error;
  e.target_spread = total.target_spread;
  if (rows > 0) {
    e.mean_loss = total.loss / static_cast<double>(rows);
    e.accuracy = static_cast<double>(total.correct) / static_cast<double>(rows);
  }
  if (total.weight > 0) e.weighted_accuracy = total.weighted_correct / total.weight;
  return e;
}

float WeightOf(const Targets& targets, uint64_t i) {
  return targets.weights.empty() ? 1.f : targets.weights[i];
}

}  // namespace

void Probabilities(ModelKind kind, const float* z, int classes, float* p) {
  if (kind == ModelKind::kLogistic && classes > 2) {
    // One-vs-rest: each class's own sigmoid, the K of them normalised to a sum of 1 (scikit-learn's
    // one-vs-rest predict_proba).
    double sum = 0;
    for (int k = 0; k < classes; ++k) {
      const double e = std::exp(-std::abs(static_cast<double>(z[k])));
      p[k] = static_cast<float>(z[k] >= 0 ? 1 / (1 + e) : e / (1 + e));
      sum += p[k];
    }
    for (int k = 0; k < classes; ++k) p[k] = static_cast<float>(p[k] / sum);
    return;
  }
  if (kind == ModelKind::kLogistic) {
    // 1 / (1 + exp(-z)) written so that neither branch overflows.
    const double e = std::exp(-std::abs(static_cast<double>(z[0])));
    const double positive = z[0] >= 0 ? 1 / (1 + e) : e / (1 + e);
    p[0] = static_cast<float>(1 - positive);
    p[1] = static_cast<float>(positive);
    return;
  }
  const float top = *std::max_element(z, z + classes);
  double sum = 0;
  for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(z[k] - top));
  for (int k = 0; k < classes; ++k) {
    p[k] = static_cast<float>(std::exp(static_cast<double>(z[k] - top)) / sum);
  }
}

int PredictedClass(const LinearModel& model, const float* z) {
  if (model.outputs() == 1) return z[0] >= 0 ? 1 : 0;
  int best = 0;
  for (int k = 1; k < model.outputs(); ++k) {
    if (z[k] > z[best]) best = k;
  }
  return best;
}

Evaluation CombineEvaluations(const Evaluation& mine, Communicator& comm) {
  const double rows = static_cast<double>(mine.rows);
  std::vector<double> sums = {mine.mean_loss * rows,
                              std::round(mine.accuracy * rows),
                              mine.weighted_accuracy * mine.weight_sum,
                              mine.weight_sum,
                              mine.squared_error,
                              mine.absolute_error,
                              mine.target_mean * mine.weight_sum};
  comm.SumAll(sums);
  Evaluation all;
  all.rows = comm.Sum(mine.rows);
  all.weight_sum = sums[3];
  all.regression = mine.regression;
  if (mine.regression) {
    // The spread about the mean of all: each rank's about its own mean, plus its weight times the
    // squared distance between the two means.
    all.squared_error = sums[4];
    all.absolute_error = sums[5];
    all.target_mean = all.weight_sum > 0 ? sums[6] / all.weight_sum : 0;
    const double d = mine.target_mean - all.target_mean;
    std::vector<double> spread = {mine.target_spread + mine.weight_sum * d * d};
    comm.SumAll(spread);
    all.target_spread = spread[0];
  }
  if (all.rows > 0) {
    all.mean_loss = sums[0] / static_cast<double>(all.rows);
    all.accuracy = sums[1] / static_cast<double>(all.rows);
  }
  if (all.weight_sum > 0) all.weighted_accuracy = sums[2] / all.weight_sum;
  return all;
}

Evaluation Evaluate(const LinearModel& model, const Dataset& data, const Targets& targets,
                    Executor& executor) {
  const uint64_t rows = data.rows();
  const uint64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
  const bool regression = model.regression();
  SoloCommunicator solo;  // this rank's rows: CombineEvaluations joins the ranks' spreads
  const double mean = regression ? MeanTarget(targets, solo) : 0;
  std::vector<BlockSum> sums(blocks);
  executor.ParallelFor(blocks, [&](uint64_t b) {
    std::vector<float> z(model.outputs());
    BlockSum s;
    const uint64_t end = std::min(rows, (b + 1) * kBlockRows);
    for (uint64_t i = b * kBlockRows; i < end; ++i) {
      if (model.outputs() > 1 && i + 1 < end) {
        PrefetchWeightRows(data, static_cast<uint32_t>(i + 1), model.weights().data(),
                           model.features(), model.outputs());
      }
      const SparseRow x = data.row(i);
      model.Scores(x.index, x.value, x.nnz, z.data());
      const float target = targets.values[i];
      const int truth = model.outputs() == 1 ? (target > 0 ? 1 : 0) : static_cast<int>(target);
      s.Add(WeightOf(targets, i), SampleLoss(model, z.data(), target),
            PredictedClass(model, z.data()) == truth);
      if (regression) {
        s.AddResidual(WeightOf(targets, i), static_cast<double>(z[0]) - target, target - mean);
      }
    }
    sums[b] = s;
  });
  Evaluation e = Combine(sums, rows);
  e.regression = regression;
  e.target_mean = mean;
  return e;
}

namespace {

// Scores rows [first, last) of `data` in fixed blocks of kMlpBlockRows from `first`, one engine
// per executor thread, and calls fn(block, first_row, rows, scores) for each block (from any
// thread, each block once). A block is scored in whole tiles of kMlpTileRows, its rows past the
// last tile's end dropped: oneDNN's products on AVX2 (Zen 3) gave a row of a short last tile other
// bits than the same row in a full one (AVX-512 on Zen 4 gave the same), so that a row's scores
// changed with its place among the rows (a rank's share, a shuffled file).
template <class Fn>
void ForEachMlpBlock(const MlpModel& model, const Dataset& data, uint64_t first, uint64_t last,
                     Executor& executor, MlpBackend backend, Fn fn) {
  const int threads = executor.threads();
  const int classes = model.classes(), inputs = model.inputs();
  const uint64_t blocks = (last - first + kMlpBlockRows - 1) / kMlpBlockRows;
  executor.RunWorkers(threads, [&](int t) {
    auto engine = MakeMlpEngine(backend, model.sizes(), kMlpBlockRows, 1);
    std::vector<float> x(static_cast<std::size_t>(kMlpBlockRows) * inputs);
    std::vector<float> scores(static_cast<std::size_t>(kMlpBlockRows) * classes);
    std::vector<uint32_t> rows(kMlpBlockRows);
    for (uint64_t b = t; b < blocks; b += threads) {
      const uint64_t begin = first + b * kMlpBlockRows;
      const int n = static_cast<int>(std::min<uint64_t>(last, begin + kMlpBlockRows) - begin);
      std::iota(rows.begin(), rows.begin() + n, static_cast<uint32_t>(begin));
      GatherDense(data, {rows.data(), static_cast<std::size_t>(n)}, model.input_scale().data(),
                  inputs, x.data());
      const int scored = (n + kMlpTileRows - 1) / kMlpTileRows * kMlpTileRows;
      engine->Scores(model.params().data(), x.data(), scored, scores.data());
      fn(b, begin, n, scores.data());
    }
  });
}

int ArgMax(const float* z, int classes) {
  return static_cast<int>(std::max_element(z, z + classes) - z);
}

}  // namespace

Evaluation EvaluateMlp(const MlpModel& model, const Dataset& data, const Targets& targets,
                       Executor& executor, MlpBackend backend) {
  const int classes = model.classes();
  const uint64_t blocks = (data.rows() + kMlpBlockRows - 1) / kMlpBlockRows;
  std::vector<BlockSum> sums(blocks);
  ForEachMlpBlock(model, data, 0, data.rows(), executor, backend,
                  [&](uint64_t b, uint64_t begin, int n, const float* scores) {
                    BlockSum s;
                    for (int i = 0; i < n; ++i) {
                      const float* z = scores + static_cast<std::size_t>(i) * classes;
                      const int y = static_cast<int>(targets.values[begin + i]);
                      s.Add(WeightOf(targets, begin + i), SoftmaxLoss::Value(z, classes, y),
                            ArgMax(z, classes) == y);
                    }
                    sums[b] = s;
                  });
  return Combine(sums, data.rows());
}

std::vector<int> PredictClasses(const MlpModel& model, const Dataset& data, Executor& executor,
                                MlpBackend backend) {
  std::vector<int> classes(data.rows());
  ForEachMlpBlock(model, data, 0, data.rows(), executor, backend,
                  [&](uint64_t, uint64_t begin, int n, const float* scores) {
                    for (int i = 0; i < n; ++i) {
                      classes[begin + i] = ArgMax(
                          scores + static_cast<std::size_t>(i) * model.classes(), model.classes());
                    }
                  });
  return classes;
}

std::vector<int> PredictClasses(const LinearModel& model, const Dataset& data, Executor& executor) {
  std::vector<int> classes(data.rows());
  const uint64_t blocks = (data.rows() + kBlockRows - 1) / kBlockRows;
  executor.ParallelFor(blocks, [&](uint64_t b) {
    std::vector<float> z(model.outputs());
    for (uint64_t i = b * kBlockRows; i < std::min(data.rows(), (b + 1) * kBlockRows); ++i) {
      const SparseRow x = data.row(i);
      model.Scores(x.index, x.value, x.nnz, z.data());
      classes[i] = PredictedClass(model, z.data());
    }
  });
  return classes;
}

std::vector<float> PredictScores(const MlpModel& model, const Dataset& data, uint64_t begin,
                                 uint64_t end, Executor& executor, MlpBackend backend) {
  const std::size_t classes = static_cast<std::size_t>(model.classes());
  std::vector<float> out((end - begin) * classes);
  ForEachMlpBlock(model, data, begin, end, executor, backend,
                  [&](uint64_t, uint64_t first, int n, const float* scores) {
                    std::copy(scores, scores + n * classes, out.data() + (first - begin) * classes);
                  });
  return out;
}

std::vector<float> PredictScores(const LinearModel& model, const Dataset& data, uint64_t begin,
                                 uint64_t end, Executor& executor) {
  const std::size_t outputs = static_cast<std::size_t>(model.outputs());
  std::vector<float> out((end - begin) * outputs);
  const uint64_t blocks = (end - begin + kBlockRows - 1) / kBlockRows;
  executor.ParallelFor(blocks, [&](uint64_t b) {
    const uint64_t first = begin + b * kBlockRows;
    for (uint64_t i = first; i < std::min(end, first + kBlockRows); ++i) {
      const SparseRow x = data.row(i);
      model.Scores(x.index, x.value, x.nnz, out.data() + (i - begin) * outputs);
    }
  });
  return out;
}

}  // namespace parsgd
