// The vertical split (model/mlp/partition/partitions.hpp). Worker w owns units [SplitAt(n_l, w, W),
// SplitAt(n_l, w + 1, W)) of every layer l, output layer included. A minibatch step:
//   gather   the rows' inputs, each worker a run of the rows;
//   forward  layer by layer, each worker its units' columns of the layer's output (it reads the
//            whole of the layer's input: the other workers' columns are what it lacks);
//   loss     the softmax, each worker a run of the rows (every row's logits come from every
//            worker);
//   backward layer by layer, each worker its units' weight and bias gradients, and its part
//            dz[:, mine] W[:, mine]^T of the layer's input gradient; then each worker sums the
//            parts of the columns it owns in the layer below, in worker order, through the ReLU;
//   update   each worker the rule on its units' weights and biases.
// Every phase is a fork-join: the barrier the exchange needs. Bytes exchanged (read by one
// worker, written by another) a minibatch of m rows over W workers: (W - 1) m (n_0 + n_1 + ... +
// n_{L-1}) x 4 for the inputs of every layer read whole, (W - 1) m (n_1 + ... + n_{L-1}) x 4 for
// the input gradients' parts, and 2 (W - 1) / W m n_L x 4 for the logits and their gradient.
#include <algorithm>
#include <atomic>
#include <vector>

#include "layer_passes.hpp"
#include "model/mlp/apply_gradient.hpp"
#include "model/mlp/engines.hpp"
#include "parsgd/model/mlp/mlp_input.hpp"
#include "partitions.hpp"
#include "scheme/replicas.hpp"

namespace parsgd {
namespace {

template <class Rule>
class VerticalRunner final : public MlpRunner {
 public:
  VerticalRunner(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : sizes_(sizes),
        layers_(LayoutMlp(sizes)),
        gemm_(GemmFor(config.mlp_backend)),
        workers_(workers),
        batch_(batch),
        grad_(ParamCount(layers_)),
        labels_(batch),
        weights_(batch),
        losses_(workers) {
    for (int s : sizes) activations_.emplace_back(static_cast<std::size_t>(batch) * s);
    for (std::size_t l = 1; l < sizes.size(); ++l)
      dz_.emplace_back(static_cast<std::size_t>(batch) * sizes[l]);
    const int widest = *std::max_element(sizes.begin(), sizes.end() - 1);
    for (int w = 0; w < workers; ++w) parts_.emplace_back(static_cast<std::size_t>(batch) * widest);
  }

  EpochTotals Run(const MlpContext& c) override {
    return SequentialMinibatches(
        c, batch_, order_scratch_,
        [&](std::span<const uint32_t> batch, const RuleContext& rc, EpochTotals& totals) {
          return Step(c, batch, rc, totals.exchanged_bytes);
        });
  }

 private:
  // [first, last) of n split among the workers.
  int Lo(int n, int w) const { return static_cast<int>(SplitAt(n, w, workers_)); }

  double Step(const MlpContext& c, std::span<const uint32_t> batch, const RuleContext& rc,
              uint64_t& exchanged) {
    const int m = static_cast<int>(batch.size()), layers = static_cast<int>(layers_.size());
    const float* params = c.params.arrays.weights;
    Executor& ex = *c.executor;
    ex.RunWorkers(workers_, [&](int w) {
      const int r0 = Lo(m, w), r1 = Lo(m, w + 1);
      GatherDense(*c.data, batch.subspan(r0, r1 - r0), c.params.input_scale, sizes_[0],
                  activations_[0].data() + static_cast<std::size_t>(r0) * sizes_[0]);
      GatherLabels(batch.subspan(r0, r1 - r0), c.targets, c.weights, labels_.data() + r0,
                   weights_.data() + r0);
    });
    for (int l = 0; l < layers; ++l) {
      const MlpLayer& layer = layers_[l];
      ex.RunWorkers(workers_, [&](int w) {
        LayerForward(gemm_, layer, params, activations_[l].data(), m, Lo(layer.outputs, w),
                     Lo(layer.outputs, w + 1), l + 1 < layers, activations_[l + 1].data());
      });
    }
    const int classes = sizes_.back();
    ex.RunWorkers(workers_, [&](int w) {
      const int r0 = Lo(m, w), r1 = Lo(m, w + 1);
      const std::size_t at = static_cast<std::size_t>(r0) * classes;
      losses_[w] =
          r1 > r0 ? SoftmaxOutputGradient(activations_.back().data() + at, labels_.data() + r0,
                                          c.weights != nullptr ? weights_.data() + r0 : nullptr,
                                          r1 - r0, classes, dz_.back().data() + at, m)
                  : 0.0;
    });
    for (int l = layers - 1; l >= 0; --l) {
      const MlpLayer& layer = layers_[l];
      ex.RunWorkers(workers_, [&](int w) {
        const int u0 = Lo(layer.outputs, w), u1 = Lo(layer.outputs, w + 1);
        LayerWeightGrad(gemm_, layer, activations_[l].data(), dz_[l].data(), m, u0, u1, false,
                        grad_.data());
        if (l > 0) LayerInputGrad(gemm_, layer, params, dz_[l].data(), m, u0, u1, parts_[w].data());
      });
      if (l == 0) break;
      ex.RunWorkers(workers_, [&](int w) {
        SumParts(layer, m, Lo(layer.inputs, w), Lo(layer.inputs, w + 1), l);
      });
    }
    ex.RunWorkers(workers_, [&](int w) {
      for (const MlpLayer& layer : layers_) {
        const int u0 = Lo(layer.outputs, w), u1 = Lo(layer.outputs, w + 1);
        for (int a = 0; a < layer.inputs; ++a) {
          const uint64_t row = layer.weights_at + static_cast<uint64_t>(a) * layer.outputs;
          ApplyGradient<Rule, PlainWrite>(c.params, c.params.arrays, grad_.data(), row + u0,
                                          row + u1, rc);
        }
        ApplyGradient<Rule, PlainWrite>(c.params, c.params.arrays, grad_.data(), layer.bias_at + u0,
                                        layer.bias_at + u1, rc);
      }
    });
    exchanged += ExchangedBytes(m);
    double loss = 0;
    for (double part : losses_) loss += part;  // worker order
    return loss;
  }

  // The input gradient of layer l on columns [c0, c1): the workers' parts summed in worker order,
  // through the ReLU of the layer below, into that layer's dz.
  void SumParts(const MlpLayer& layer, int m, int c0, int c1, int l) {
    const int in = layer.inputs;
    float* sum = parts_[0].data();  // worker 0's part takes the sum, column range by column range
    for (int v = 1; v < workers_; ++v) {
      const float* part = parts_[v].data();
      for (int i = 0; i < m; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * in;
        for (int j = c0; j < c1; ++j) sum[at + j] += part[at + j];
      }
    }
    ReluBackward(activations_[l].data(), sum, m, in, c0, c1, dz_[l - 1].data());
  }

  uint64_t ExchangedBytes(int m) const {
    const uint64_t others = workers_ - 1, rows = m;
    uint64_t floats = 0;
    for (std::size_t l = 0; l + 1 < sizes_.size(); ++l) floats += others * rows * sizes_[l];
    for (std::size_t l = 1; l + 1 < sizes_.size(); ++l) floats += others * rows * sizes_[l];
    floats += 2 * others * rows * sizes_.back() / workers_;
    return floats * sizeof(float);
  }

  std::vector<int> sizes_;
  std::vector<MlpLayer> layers_;
  GemmFn gemm_;
  int workers_;
  int batch_;
  std::vector<AlignedArray<float>> activations_;  // [l]: layer l's input (m x sizes[l])
  std::vector<AlignedArray<float>> dz_;           // [l]: the gradient of layer l's output
  std::vector<AlignedArray<float>> parts_;        // per worker: its part of an input gradient
  AlignedArray<float> grad_;
  std::vector<int> labels_;
  std::vector<float> weights_;  // where the rows have weights
  std::vector<double> losses_;
  std::vector<uint32_t> order_scratch_;
};

}  // namespace

std::unique_ptr<MlpRunner> MakeVerticalRunner(const TrainConfig& config,
                                              const std::vector<int>& sizes, int workers,
                                              int batch) {
  return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<MlpRunner> {
    return std::make_unique<VerticalRunner<Rule>>(config, sizes, workers, batch);
  });
}

}  // namespace parsgd
