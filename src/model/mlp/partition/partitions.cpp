#include "partitions.hpp"

#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd {

std::unique_ptr<MlpRunner> MakePartitionRunner(const TrainConfig& config,
                                               const std::vector<int>& sizes, int workers,
                                               int batch) {
  for (const PartitionRunner& p : kPartitionRunners) {
    if (p.kind == config.scheme) return p.make(config, sizes, workers, batch);
  }
  throw Error(fmt::format("scheme {}: not a model partition", SchemeName(config.scheme)));
}

}  // namespace parsgd
