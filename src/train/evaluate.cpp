#include "parsgd/train/evaluate.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "dense_runner.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kBlockRows = 4096;
constexpr int kMlpBlockRows = 256;  // rows per MLP block: fixed, so sums repeat at any thread count

double SampleLoss(const LinearModel& model, const float* z, float target) {
  switch (model.kind()) {
    case ModelKind::kLogistic:
      return LogisticLoss::Value(z[0], target);
    case ModelKind::kHinge:
      return HingeLoss::Value(z[0], target);
    case ModelKind::kSquared:
      return SquaredLoss::Value(z[0], target);
    case ModelKind::kSoftmax:
    case ModelKind::kMlp:  // a LinearModel is never an MLP
      return SoftmaxLoss::Value(z, model.outputs(), static_cast<int>(target));
  }
  return 0;
}

struct BlockSum {
  double loss = 0;
  uint64_t correct = 0;
};

}  // namespace

int PredictedClass(const LinearModel& model, const float* z) {
  if (IsBinary(model.kind())) return z[0] >= 0 ? 1 : 0;
  int best = 0;
  for (int k = 1; k < model.outputs(); ++k) {
    if (z[k] > z[best]) best = k;
  }
  return best;
}

Evaluation Evaluate(const LinearModel& model, const Dataset& data, const Targets& targets,
                    Executor& executor) {
  const uint64_t rows = data.rows();
  const uint64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
  std::vector<BlockSum> sums(blocks);
  executor.ParallelFor(blocks, [&](uint64_t b) {
    std::vector<float> z(model.outputs());
    BlockSum s;
    const uint64_t end = std::min(rows, (b + 1) * kBlockRows);
    for (uint64_t i = b * kBlockRows; i < end; ++i) {
      const SparseRow x = data.row(i);
      model.Scores(x.index, x.value, x.nnz, z.data());
      const float target = targets.values[i];
      s.loss += SampleLoss(model, z.data(), target);
      const int truth = IsBinary(model.kind()) ? (target > 0 ? 1 : 0) : static_cast<int>(target);
      s.correct += PredictedClass(model, z.data()) == truth;
    }
    sums[b] = s;
  });
  BlockSum total;
  for (const BlockSum& s : sums) {  // block order: the same sum at any thread count
    total.loss += s.loss;
    total.correct += s.correct;
  }
  Evaluation e;
  e.rows = rows;
  if (rows > 0) {
    e.mean_loss = total.loss / static_cast<double>(rows);
    e.accuracy = static_cast<double>(total.correct) / static_cast<double>(rows);
  }
  return e;
}

Evaluation EvaluateMlp(const MlpModel& model, const Dataset& data, const Targets& targets,
                       Executor& executor, MlpBackend backend) {
  const int threads = executor.threads();
  const int classes = model.classes(), inputs = model.inputs();
  const uint64_t blocks = (data.rows() + kMlpBlockRows - 1) / kMlpBlockRows;
  std::vector<double> losses(blocks);
  std::vector<uint64_t> correct(blocks);
  executor.RunWorkers(threads, [&](int t) {
    auto engine = MakeMlpEngine(backend, model.sizes(), kMlpBlockRows, 1);
    std::vector<float> x(static_cast<std::size_t>(kMlpBlockRows) * inputs);
    std::vector<float> scores(static_cast<std::size_t>(kMlpBlockRows) * classes);
    std::vector<uint32_t> rows(kMlpBlockRows);
    for (uint64_t b = t; b < blocks; b += threads) {
      const uint64_t begin = b * kMlpBlockRows, end = std::min<uint64_t>(data.rows(), begin + kMlpBlockRows);
      const int n = static_cast<int>(end - begin);
      std::iota(rows.begin(), rows.begin() + n, static_cast<uint32_t>(begin));
      GatherDense(data, {rows.data(), static_cast<std::size_t>(n)}, model.input_scale().data(),
                  inputs, x.data());
      engine->Scores(model.params().data(), x.data(), n, scores.data());
      double loss = 0;
      uint64_t right = 0;
      for (int i = 0; i < n; ++i) {
        const float* z = scores.data() + static_cast<std::size_t>(i) * classes;
        const int y = static_cast<int>(targets.values[begin + i]);
        loss += SoftmaxLoss::Value(z, classes, y);
        right += static_cast<int>(std::max_element(z, z + classes) - z) == y;
      }
      losses[b] = loss;
      correct[b] = right;
    }
  });
  Evaluation e;
  e.rows = data.rows();
  double loss = 0;
  uint64_t right = 0;
  for (uint64_t b = 0; b < blocks; ++b) {  // block order: the same at any thread count
    loss += losses[b];
    right += correct[b];
  }
  if (e.rows > 0) {
    e.mean_loss = loss / static_cast<double>(e.rows);
    e.accuracy = static_cast<double>(right) / static_cast<double>(e.rows);
  }
  return e;
}

}  // namespace parsgd
