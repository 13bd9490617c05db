// Internal: the MLP's model partitions, the source texts' three ways to split a network among
// workers, each a runner of the MLP (model/mlp/mlp_runner.hpp) over the same parameters and
// optimisers:
//  - pipeline (model/mlp/partition/pipeline.cpp): the layers cut into K stages balanced by FLOPs, a
//    worker a stage; each minibatch cut into M micro-batches that flow forward through the stages
//    and back (GPipe, Huang et al. 2019), the gradients summed over the micro-batches, one update a
//    minibatch;
//  - vertical (model/mlp/partition/vertical.cpp): every worker owns a slice of every layer's units
//    (the columns of its weights), computes its slice of each layer's output, and the partial sums
//    of the input gradient it lacks are exchanged at every layer;
//  - subnet (model/mlp/partition/subnet.cpp): every --period, the hidden units outside a skeleton
//    dealt to the workers (model/mlp/partition/subnet_deal.hpp), each training the subnetwork of
//    the skeleton and its units on its own samples; at the period's end the network is reassembled,
//    every parameter the mean of the subnetworks that held it (independent subnet training, Yuan et
//    al. 2019).
// pipeline and vertical take the sequential scheme's minibatch SGD steps on one sample order (the
// same samples, step sizes and step counts), their gradients summed in another order: equal to it
// to rounding. subnet with one worker is the sequential scheme bit for bit. Each counts the bytes
// one worker reads that another wrote (EpochTotals::exchanged_bytes); the pipeline also its
// stages' busy time against the time they were there (the bubble).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/mlp/mlp_runner.hpp"

namespace parsgd {

using PartitionFactory = std::unique_ptr<MlpRunner> (*)(const TrainConfig& config,
                                                        const std::vector<int>& sizes, int workers,
                                                        int batch);
std::unique_ptr<MlpRunner> MakePipelineRunner(const TrainConfig& config,
                                              const std::vector<int>& sizes, int workers,
                                              int batch);
std::unique_ptr<MlpRunner> MakeVerticalRunner(const TrainConfig& config,
                                              const std::vector<int>& sizes, int workers,
                                              int batch);
std::unique_ptr<MlpRunner> MakeSubnetRunner(const TrainConfig& config,
                                            const std::vector<int>& sizes, int workers, int batch);

// Each partition row of the scheme table (family kPartition) with its runner.
struct PartitionRunner {
  SchemeKind kind;
  PartitionFactory make;
};
inline constexpr PartitionRunner kPartitionRunners[] = {
    {SchemeKind::kPipeline, MakePipelineRunner},
    {SchemeKind::kVertical, MakeVerticalRunner},
    {SchemeKind::kSubnet, MakeSubnetRunner},
};

// The partitions' own settings, resolved: how many workers the network has parts for (r.workers,
// given the threads'), the sample order's shards, and each scheme's own setting (the pipeline's
// micro-batches, the subnet's skeleton ratio), written to `config` and `r`. Throws SettingError
// where they cannot work.
void ResolvePartition(TrainConfig& config, ResolvedSettings& r);
// " (3 stages, 12 micro-batches a minibatch)": the setup's words for them.
std::string DescribePartition(const ResolvedSettings& settings);

// The runner of config.scheme, a partition; throws parsgd::Error for any other scheme.
std::unique_ptr<MlpRunner> MakePartitionRunner(const TrainConfig& config,
                                               const std::vector<int>& sizes, int workers,
                                               int batch);

// The sequential scheme's minibatches of `batch` rows over one sample order (shard 0), each with
// the step size and step count that scheme gives it (scheme/async_runner.hpp): step(rows, rule,
// totals) returns the minibatch's loss; stops at the executor's stop flag. The epoch loop of
// pipeline and vertical, whose workers share every minibatch.
template <class Step>
EpochTotals SequentialMinibatches(const MlpContext& c, int batch, std::vector<uint32_t>& scratch,
                                  Step&& step) {
  const std::span<const uint32_t> shard = c.order->Indices(c.epoch, 0, scratch);
  const std::atomic<bool>& stop = c.executor->stop_flag();
  const double rows = static_cast<double>(c.data->rows());
  EpochTotals totals;
  for (uint64_t begin = 0; begin < shard.size(); begin += batch) {
    if (stop.load(std::memory_order_relaxed)) break;
    const auto minibatch = shard.subspan(begin, std::min<uint64_t>(batch, shard.size() - begin));
    const RuleContext rc =
        MakeRuleContext(c.optimizer, StepAt(c, static_cast<double>(begin)),
                        (c.epoch * rows + static_cast<double>(begin)) / batch + 1);
    totals.loss_sum += step(minibatch, rc, totals);
    totals.updates += minibatch.size();
  }
  return totals;
}

// The stages of the pipeline: K contiguous runs of the layers (sizes: input, hidden..., classes)
// whose largest cost (multiply-adds, inputs x outputs a layer) is the smallest possible; [k] is
// stage k's first layer, and [K] the layer count. K = min(stages, layers).
std::vector<int> BalancedStages(const std::vector<int>& sizes, int stages);

}  // namespace parsgd
