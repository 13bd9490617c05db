#include "partitions.hpp"

#include <fmt/format.h>

#include "parsgd/config/settings.hpp"
#include "parsgd/util/error.hpp"
#include "subnet_deal.hpp"

namespace parsgd {

// The MLP's model partitions: how many workers the network has parts for, the sample order's
// shards, and each scheme's own setting. pipeline: a stage a worker, at most a layer a stage, every
// worker on the same minibatches, 4 micro-batches a stage (GPipe's bubble (K-1)/(M+K-1) under a
// fifth), at most a sample each; vertical: a slice of every layer's units a worker, at least a unit
// each (the output layer's classes included); subnet: every worker its own samples, its subnet at
// least one unit a hidden layer.
void ResolvePartition(TrainConfig& config, ResolvedSettings& r) {
  const std::vector<int>& hidden = config.hidden;
  if (config.scheme == SchemeKind::kPipeline) {
    r.workers = std::min<int>(r.workers, static_cast<int>(hidden.size()) + 1);
    r.shards = 1;
    r.micro_batches =
        config.micro_batches > 0 ? config.micro_batches : std::min(r.batch, 4 * r.workers);
    if (r.micro_batches > r.batch) {
      throw SettingError(fmt::format("`micro-batches` {}: more than the `batch` {} has samples",
                                     r.micro_batches, r.batch));
    }
    config.micro_batches = r.micro_batches;
  } else if (config.scheme == SchemeKind::kVertical) {
    int narrowest = r.outputs;
    for (int units : hidden) narrowest = std::min(narrowest, units);
    r.workers = std::min(r.workers, narrowest);
    r.shards = 1;
  } else {
    r.skeleton_ratio = config.skeleton_ratio >= 0 ? config.skeleton_ratio : 0.25;
    config.skeleton_ratio = r.skeleton_ratio;
    for (int units : hidden) {
      const int skeleton = SkeletonUnits(units, r.skeleton_ratio);
      if (skeleton + (units - skeleton) / r.workers == 0) {
        throw SettingError(fmt::format(
            "`skeleton-ratio` {}: a hidden layer of {} units over {} workers leaves some worker's "
            "subnetwork without a unit there; raise it, or give fewer `threads`",
            r.skeleton_ratio, units, r.workers));
      }
    }
  }
}

std::string DescribePartition(const ResolvedSettings& s) {
  switch (s.scheme) {
    case SchemeKind::kPipeline:
      return fmt::format(" ({} stages, {} micro-batches a minibatch)", s.workers, s.micro_batches);
    case SchemeKind::kVertical:
      return fmt::format(" (every layer's units in {} slices)", s.workers);
    case SchemeKind::kSubnet:
      return fmt::format(" (skeleton {} of each hidden layer, ", s.skeleton_ratio) +
             (s.period > 0 ? fmt::format("dealt every {} minibatches)", s.period)
                           : std::string("dealt every epoch)"));
    default:
      return "";
  }
}


std::unique_ptr<MlpRunner> MakePartitionRunner(const TrainConfig& config,
                                               const std::vector<int>& sizes, int workers,
                                               int batch) {
  for (const PartitionRunner& p : kPartitionRunners) {
    if (p.kind == config.scheme) return p.make(config, sizes, workers, batch);
  }
  throw Error(fmt::format("scheme {}: not a model partition", SchemeName(config.scheme)));
}

}  // namespace parsgd
