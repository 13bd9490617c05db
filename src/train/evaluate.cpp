#include "parsgd/train/evaluate.hpp"

#include <vector>

namespace parsgd {
namespace {

constexpr uint64_t kBlockRows = 4096;

double SampleLoss(const LinearModel& model, const float* z, float target) {
  switch (model.kind()) {
    case ModelKind::kLogistic:
      return LogisticLoss::Value(z[0], target);
    case ModelKind::kHinge:
      return HingeLoss::Value(z[0], target);
    case ModelKind::kSquared:
      return SquaredLoss::Value(z[0], target);
    case ModelKind::kSoftmax:
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

}  // namespace parsgd
