// Random partition with a skeleton (model/mlp/partition/partitions.hpp,
// model/mlp/partition/subnet_deal.hpp). Worker w walks its own shard of the sample order in
// minibatches. Every --period minibatches (and at the epoch's end):
//   deal      the hidden units outside the skeleton shuffled and dealt to the workers, from
//             (seed, epoch, period), so that a resumed run deals as the straight one;
//   extract   worker w copies its subnetwork out of the network: the weights between the units
//             it has in two adjacent layers (every input, every class), their biases, and the
//             optimiser state of the same coordinates;
//   train     each worker its subnetwork on its next minibatches, with the engine (oneDNN) of its
//             subnetwork's shape, the step size and count of the asynchronous schemes;
//   reassemble  every parameter of the network the mean of the subnetworks that held it: those of
//             every worker (between skeleton units, the biases of the skeleton and the output)
//             averaged in worker order, those of one worker taken as they are, those of none (a
//             weight between units dealt to two workers) left as they were; the state alike.
// With one worker the subnetwork is the network and every step the sequential scheme's, bit for
// bit. Bytes exchanged a period: every subnetwork's parameters and state copied out and back.
#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

#include "model/mlp/apply_gradient.hpp"
#include "parsgd/model/mlp/mlp_input.hpp"
#include "parsgd/util/rng.hpp"
#include "partitions.hpp"
#include "scheme/replicas.hpp"
#include "subnet_deal.hpp"

namespace parsgd {
namespace {

constexpr uint64_t kDealStream = 0x6465616c;  // "deal"

// One worker's subnetwork: its shape, parameters, state, engine and buffers, and for every layer of
// the network where each of its units sits in the subnetwork (-1: not there).
struct alignas(kCacheLine) Subnet {
  std::vector<int> sizes;
  std::vector<MlpLayer> layers;
  AlignedArray<float> arrays[3];  // weights, state0, state1 (as Replicas' arrays)
  AlignedArray<float> grad;
  std::unique_ptr<MlpEngine> engine;
  std::vector<float> x;
  std::vector<int> labels;
  std::vector<float> weights;        // where the rows have weights
  std::vector<std::vector<int>> at;  // [l]: layer l's units (l = 0: the inputs) in the subnetwork
  std::vector<uint32_t> order_scratch;
  std::span<const uint32_t> shard;
  double loss = 0;
  uint64_t done = 0;
};

template <class Rule>
class SubnetRunner final : public MlpRunner {
 public:
  SubnetRunner(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : sizes_(sizes),
        layers_(LayoutMlp(sizes)),
        hidden_(sizes.begin() + 1, sizes.end() - 1),
        ratio_(config.skeleton_ratio),
        period_(config.period),
        seed_(config.seed),
        batch_(batch),
        states_(StateCount(config.optimizer.kind)),
        subnets_(workers) {
    for (int w = 0; w < workers; ++w) {
      Subnet& s = subnets_[w];
      s.sizes = SubnetSizes(sizes, ratio_, workers, w);
      s.layers = LayoutMlp(s.sizes);
      const uint64_t size = ParamCount(s.layers);
      for (int a = 0; a <= states_; ++a) s.arrays[a] = AlignedArray<float>(size);
      s.grad = AlignedArray<float>(size);
      s.engine = MakeMlpEngine(config.mlp_backend, s.sizes, batch, 1);
      s.x.resize(static_cast<std::size_t>(batch) * sizes.front());
      s.labels.resize(batch);
      s.weights.resize(batch);
      s.at.assign(sizes.size(), {});
    }
  }

  EpochTotals Run(const MlpContext& c) override {
    const int workers = static_cast<int>(subnets_.size());
    uint64_t minibatches = 0;
    for (int w = 0; w < workers; ++w) {
      Subnet& s = subnets_[w];
      s.shard = c.order->Indices(c.epoch, w, s.order_scratch);
      s.loss = 0;
      s.done = 0;
      minibatches = std::max<uint64_t>(minibatches, (s.shard.size() + batch_ - 1) / batch_);
    }
    const uint64_t period = period_ > 0 ? period_ : minibatches;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    EpochTotals totals;
    for (uint64_t m = 0, q = 0; m < minibatches; m += period, ++q) {
      Deal(DealUnits(hidden_, ratio_, workers, DeriveSeed(seed_, {kDealStream, c.epoch, q})));
      c.executor->RunWorkers(workers, [&](int w) {
        Extract(c.params.arrays, subnets_[w]);
        Train(c, w, m, std::min(m + period, minibatches));
      });
      if (stop.load(std::memory_order_relaxed)) break;  // the trainer restores a snapshot
      c.executor->RunWorkers(workers, [&](int w) { Reassemble(c.params.arrays, w, workers); });
      for (const Subnet& s : subnets_)
        totals.exchanged_bytes += 2 * (states_ + 1) * s.grad.size() * sizeof(float);
    }
    for (const Subnet& s : subnets_) {  // worker order
      totals.loss_sum += s.loss;
      totals.updates += s.done;
    }
    return totals;
  }

 private:
  // Where each network unit sits in each worker's subnetwork this period.
  void Deal(const SubnetDeal& deal) {
    for (std::size_t w = 0; w < subnets_.size(); ++w) {
      Subnet& s = subnets_[w];
      for (std::size_t l = 0; l < sizes_.size(); ++l) {
        std::vector<int>& at = s.at[l];
        const bool hidden = l > 0 && l + 1 < sizes_.size();
        at.assign(sizes_[l], hidden ? -1 : 0);
        if (!hidden) {
          std::iota(at.begin(), at.end(), 0);  // the inputs and the classes: every one
          continue;
        }
        const std::vector<int>& units = deal.units[w][l - 1];
        for (std::size_t i = 0; i < units.size(); ++i) at[units[i]] = static_cast<int>(i);
      }
    }
  }

  // Calls fn(network coordinate, subnetwork coordinate) for every parameter of the subnetwork,
  // layer by layer, weights by their input unit then output unit, then the biases.
  template <class Fn>
  void ForEachHeld(const Subnet& s, Fn&& fn) const {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const MlpLayer& net = layers_[l];
      const MlpLayer& sub = s.layers[l];
      const std::vector<int>& in = s.at[l];
      const std::vector<int>& out = s.at[l + 1];
      for (int a = 0; a < net.inputs; ++a) {
        if (in[a] < 0) continue;
        const uint64_t net_row = net.weights_at + static_cast<uint64_t>(a) * net.outputs;
        const uint64_t sub_row = sub.weights_at + static_cast<uint64_t>(in[a]) * sub.outputs;
        for (int b = 0; b < net.outputs; ++b) {
          if (out[b] >= 0) fn(net_row + b, sub_row + out[b]);
        }
      }
      for (int b = 0; b < net.outputs; ++b) {
        if (out[b] >= 0) fn(net.bias_at + b, sub.bias_at + out[b]);
      }
    }
  }

  void Extract(const ParamArrays& net, Subnet& s) const {
    const float* from[3] = {net.weights, net.state0, net.state1};
    ForEachHeld(s, [&](uint64_t n, uint64_t k) {
      for (int a = 0; a <= states_; ++a) s.arrays[a][k] = from[a][n];
    });
  }

  // Worker w trains its subnetwork on its minibatches [m0, m1).
  void Train(const MlpContext& c, int w, uint64_t m0, uint64_t m1) {
    Subnet& s = subnets_[w];
    const ParamArrays p{s.arrays[0].data(), states_ > 0 ? s.arrays[1].data() : nullptr,
                        states_ > 1 ? s.arrays[2].data() : nullptr};
    const MlpParams model{p, s.grad.size(), c.params.l2, c.params.input_scale, &s.layers};
    const int workers = static_cast<int>(subnets_.size());
    const double rows = static_cast<double>(c.data->rows());
    const std::atomic<bool>& stop = c.executor->stop_flag();
    const uint64_t end = std::min<uint64_t>(m1 * batch_, s.shard.size());
    for (uint64_t b = std::min<uint64_t>(m0 * batch_, end); b < end; b += batch_) {
      if (stop.load(std::memory_order_relaxed)) return;
      const auto batch = s.shard.subspan(b, std::min<uint64_t>(batch_, end - b));
      // The asynchronous schemes' step size and count (scheme/async_runner.hpp), at `workers`
      // workers.
      const double samples = static_cast<double>(b) * workers;
      const RuleContext rc =
          MakeRuleContext(c.optimizer, StepAt(c, samples), (c.epoch * rows + samples) / batch_ + 1);
      GatherDense(*c.data, batch, c.params.input_scale, sizes_.front(), s.x.data());
      GatherLabels(batch, c.targets, c.weights, s.labels.data(), s.weights.data());
      s.loss += s.engine->LossAndGradient(p.weights, s.x.data(), s.labels.data(),
                                          c.weights != nullptr ? s.weights.data() : nullptr,
                                          static_cast<int>(batch.size()), s.grad.data());
      ApplyGradient<Rule, PlainWrite>(model, p, s.grad.data(), 0, s.grad.size(), rc);
      s.done += batch.size();
    }
  }

  // Worker w's share of the reassembly: the network's layers' input units [SplitAt(n, w, W),
  // SplitAt(n, w + 1, W)) (their weights), and for w = 0 the biases.
  void Reassemble(const ParamArrays& net, int w, int workers) {
    float* to[3] = {net.weights, net.state0, net.state1};
    std::vector<float> sum;
    std::vector<int> holders;
    auto combine = [&](uint64_t at, uint64_t n, auto&& sub_of) {  // n coordinates from `at`
      sum.assign(n * (states_ + 1), 0.f);
      holders.assign(n, 0);
      for (const Subnet& s : subnets_) {
        for (uint64_t i = 0; i < n; ++i) {
          const int64_t k = sub_of(s, i);
          if (k < 0) continue;
          ++holders[i];
          for (int a = 0; a <= states_; ++a) sum[a * n + i] += s.arrays[a][k];
        }
      }
      for (uint64_t i = 0; i < n; ++i) {
        if (holders[i] == 0) continue;
        const float inv = 1.f / static_cast<float>(holders[i]);
        for (int a = 0; a <= states_; ++a) {
          const float v = sum[a * n + i];
          to[a][at + i] = holders[i] == 1 ? v : v * inv;
        }
      }
    };
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const MlpLayer& layer = layers_[l];
      for (int a = static_cast<int>(SplitAt(layer.inputs, w, workers));
           a < static_cast<int>(SplitAt(layer.inputs, w + 1, workers)); ++a) {
        combine(layer.weights_at + static_cast<uint64_t>(a) * layer.outputs, layer.outputs,
                [&](const Subnet& s, uint64_t b) -> int64_t {
                  const int in = s.at[l][a], out = s.at[l + 1][b];
                  if (in < 0 || out < 0) return -1;
                  const MlpLayer& sub = s.layers[l];
                  return sub.weights_at + static_cast<int64_t>(in) * sub.outputs + out;
                });
      }
      if (w != 0) continue;
      combine(layer.bias_at, layer.outputs, [&](const Subnet& s, uint64_t b) -> int64_t {
        const int out = s.at[l + 1][b];
        return out < 0 ? -1 : s.layers[l].bias_at + out;
      });
    }
  }

  std::vector<int> sizes_;
  std::vector<MlpLayer> layers_;
  std::vector<int> hidden_;
  double ratio_;
  int period_;
  uint64_t seed_;
  int batch_;
  int states_;  // the optimiser's state arrays (0 to 2)
  std::vector<Subnet> subnets_;
};

}  // namespace

std::unique_ptr<MlpRunner> MakeSubnetRunner(const TrainConfig& config,
                                            const std::vector<int>& sizes, int workers, int batch) {
  return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<MlpRunner> {
    return std::make_unique<SubnetRunner<Rule>>(config, sizes, workers, batch);
  });
}

}  // namespace parsgd
