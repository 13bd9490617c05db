// The layer pipeline (model/mlp/partition/partitions.hpp). Stage k (worker k) owns layers [first_k,
// first_{k+1}). A minibatch of m rows is cut into M micro-batches of rows; the forward pass runs in
// M + K - 1 ticks, stage k taking micro-batch t - k at tick t (stage 0 gathers its rows, the last
// stage also takes the softmax of the loss over the whole minibatch), then the backward pass in as
// many ticks, stage k taking micro-batch t - (K - 1 - k), each stage adding its layers' gradients
// of the micro-batches in order; then every stage applies the rule to its layers. A tick is a
// fork-join: what stage k wrote for a micro-batch is there for stage k + 1 (forward) or k - 1
// (backward) at the next tick. Every stage is busy M ticks of the M + K - 1 of a pass, so with
// stages of equal cost a share (K - 1) / (M + K - 1) of the stages' time is idle: the bubble; the
// runner measures it (EpochTotals::busy_seconds, stage_seconds). Bytes exchanged a minibatch: the
// activations and their gradients at every stage boundary, 2 m n_b x 4 each, and the labels (and
// the weights of weighted rows).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <vector>

#include "layer_passes.hpp"
#include "model/mlp/apply_gradient.hpp"
#include "model/mlp/engines.hpp"
#include "parsgd/model/mlp/mlp_input.hpp"
#include "partitions.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <class Rule>
class PipelineRunner final : public MlpRunner {
 public:
  PipelineRunner(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : sizes_(sizes),
        layers_(LayoutMlp(sizes)),
        first_(BalancedStages(sizes, workers)),
        stages_(static_cast<int>(first_.size()) - 1),
        micro_(config.micro_batches),
        gemm_(GemmFor(config.mlp_backend)),
        batch_(batch),
        grad_(ParamCount(layers_)),
        labels_(batch),
        weights_(batch),
        losses_(micro_),
        busy_(stages_) {
    for (int s : sizes) activations_.emplace_back(static_cast<std::size_t>(batch) * s);
    for (std::size_t l = 1; l < sizes.size(); ++l)
      dz_.emplace_back(static_cast<std::size_t>(batch) * sizes[l]);
    const int widest = *std::max_element(sizes.begin(), sizes.end() - 1);
    for (int k = 0; k < stages_; ++k)
      input_grad_.emplace_back(static_cast<std::size_t>(batch) * widest);
  }

  EpochTotals Run(const MlpContext& c) override {
    return SequentialMinibatches(c, batch_, order_scratch_,
                                 [&](std::span<const uint32_t> batch, const RuleContext& rc,
                                     EpochTotals& totals) { return Step(c, batch, rc, totals); });
  }

 private:
  // Rows [RowAt(m, j, M), RowAt(m, j + 1, M)) of a minibatch of m rows are micro-batch j of M.
  static int RowAt(int m, int j, int micro) { return static_cast<int>(SplitAt(m, j, micro)); }

  double Step(const MlpContext& c, std::span<const uint32_t> batch, const RuleContext& rc,
              EpochTotals& totals) {
    const int m = static_cast<int>(batch.size());
    const int micro = std::min(micro_, m), ticks = micro + stages_ - 1;
    auto pass = [&](auto&& stage_work) {
      for (int t = 0; t < ticks; ++t) {
        const auto start = Clock::now();
        c.executor->RunWorkers(stages_, [&](int k) {
          const auto begin = Clock::now();
          if (stage_work(t, k)) busy_[k] += Since(begin);
        });
        totals.stage_seconds += stages_ * Since(start);
      }
    };
    pass([&](int t, int k) {
      const int j = t - k;
      if (j < 0 || j >= micro) return false;
      Forward(c, batch, k, RowAt(m, j, micro), RowAt(m, j + 1, micro), j, m);
      return true;
    });
    pass([&](int t, int k) {
      const int j = t - (stages_ - 1 - k);
      if (j < 0 || j >= micro) return false;
      Backward(c, k, RowAt(m, j, micro), RowAt(m, j + 1, micro), j);
      return true;
    });
    const auto start = Clock::now();
    c.executor->RunWorkers(stages_, [&](int k) {
      const MlpLayer& last = layers_[first_[k + 1] - 1];
      ApplyGradient<Rule, PlainWrite>(c.params, c.params.arrays, grad_.data(),
                                      layers_[first_[k]].weights_at, last.bias_at + last.outputs,
                                      rc);
    });
    totals.stage_seconds += stages_ * Since(start);
    totals.busy_seconds += stages_ * Since(start);  // the update keeps every stage busy
    for (double& b : busy_) totals.busy_seconds += std::exchange(b, 0.0);
    totals.exchanged_bytes += ExchangedBytes(m, c.weights != nullptr);
    double loss = 0;
    for (int j = 0; j < micro; ++j) loss += losses_[j];  // micro-batch order
    return loss;
  }

  // Stage k's forward pass of micro-batch j (rows [r0, r1) of the minibatch of m rows).
  void Forward(const MlpContext& c, std::span<const uint32_t> batch, int k, int r0, int r1, int j,
               int m) {
    const int rows = r1 - r0, last = static_cast<int>(layers_.size()) - 1;
    if (k == 0) {
      GatherDense(*c.data, batch.subspan(r0, rows), c.params.input_scale, sizes_[0],
                  At(activations_[0], r0, sizes_[0]));
      GatherLabels(batch.subspan(r0, rows), c.targets, c.weights, labels_.data() + r0,
                   weights_.data() + r0);
    }
    for (int l = first_[k]; l < first_[k + 1]; ++l) {
      const MlpLayer& layer = layers_[l];
      LayerForward(gemm_, layer, c.params.arrays.weights, At(activations_[l], r0, layer.inputs),
                   rows, 0, layer.outputs, l < last, At(activations_[l + 1], r0, layer.outputs));
    }
    if (k + 1 == stages_) {
      const int classes = sizes_.back();
      losses_[j] = SoftmaxOutputGradient(At(activations_.back(), r0, classes), labels_.data() + r0,
                                         c.weights != nullptr ? weights_.data() + r0 : nullptr,
                                         rows, classes, At(dz_.back(), r0, classes), m);
    }
  }

  // Stage k's backward pass of micro-batch j: its layers' gradients added (written for the first
  // micro-batch), and the gradient of its first layer's input for the stage below.
  void Backward(const MlpContext& c, int k, int r0, int r1, int j) {
    const int rows = r1 - r0;
    for (int l = first_[k + 1] - 1; l >= first_[k]; --l) {
      const MlpLayer& layer = layers_[l];
      LayerWeightGrad(gemm_, layer, At(activations_[l], r0, layer.inputs),
                      At(dz_[l], r0, layer.outputs), rows, 0, layer.outputs, j > 0, grad_.data());
      if (l == 0) break;
      float* da = input_grad_[k].data();
      LayerInputGrad(gemm_, layer, c.params.arrays.weights, At(dz_[l], r0, layer.outputs), rows, 0,
                     layer.outputs, da);
      ReluBackward(At(activations_[l], r0, layer.inputs), da, rows, layer.inputs, 0, layer.inputs,
                   At(dz_[l - 1], r0, layer.inputs));
    }
  }

  static float* At(AlignedArray<float>& buffer, int row, int width) {
    return buffer.data() + static_cast<std::size_t>(row) * width;
  }

  uint64_t ExchangedBytes(int m, bool weighted) const {
    // The labels (and weights), from stage 0 to the last.
    uint64_t floats = stages_ > 1 ? (weighted ? 2ull : 1ull) * m : 0;
    for (int k = 1; k < stages_; ++k) floats += 2ull * m * sizes_[first_[k]];
    return floats * sizeof(float);
  }

  std::vector<int> sizes_;
  std::vector<MlpLayer> layers_;
  std::vector<int> first_;  // stage k's layers: [first_[k], first_[k + 1])
  int stages_;
  int micro_;
  GemmFn gemm_;
  int batch_;
  AlignedArray<float> grad_;
  std::vector<int> labels_;
  std::vector<float> weights_;                    // where the rows have weights
  std::vector<double> losses_;                    // per micro-batch
  std::vector<double> busy_;                      // per stage, this minibatch's busy seconds
  std::vector<AlignedArray<float>> activations_;  // [l]: layer l's input
  std::vector<AlignedArray<float>> dz_;           // [l]: the gradient of layer l's output
  std::vector<AlignedArray<float>> input_grad_;   // per stage: its first layer's input gradient
  std::vector<uint32_t> order_scratch_;
};

}  // namespace

std::vector<int> BalancedStages(const std::vector<int>& sizes, int stages) {
  const int layers = static_cast<int>(sizes.size()) - 1;
  const int k_count = std::max(1, std::min(stages, layers));
  std::vector<double> cost(layers);
  for (int l = 0; l < layers; ++l) cost[l] = static_cast<double>(sizes[l]) * sizes[l + 1];
  // best[k][l]: the smallest largest stage cost of layers [0, l) in k stages; cut[k][l]: where
  // the last of them starts.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(k_count + 1, std::vector<double>(layers + 1, inf));
  std::vector<std::vector<int>> cut(k_count + 1, std::vector<int>(layers + 1, 0));
  best[0][0] = 0;
  for (int k = 1; k <= k_count; ++k) {
    for (int l = k; l <= layers; ++l) {
      double run = 0;
      for (int start = l - 1; start >= k - 1; --start) {
        run += cost[start];
        const double worst = std::max(best[k - 1][start], run);
        if (worst < best[k][l]) {
          best[k][l] = worst;
          cut[k][l] = start;
        }
      }
    }
  }
  std::vector<int> first(k_count + 1);
  first[k_count] = layers;
  for (int k = k_count, l = layers; k > 0; --k) l = first[k - 1] = cut[k][l];
  return first;
}

std::unique_ptr<MlpRunner> MakePipelineRunner(const TrainConfig& config,
                                              const std::vector<int>& sizes, int workers,
                                              int batch) {
  return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<MlpRunner> {
    return std::make_unique<PipelineRunner<Rule>>(config, sizes, workers, batch);
  });
}

}  // namespace parsgd
