#include "replica_settings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "parsgd/config/settings.hpp"

namespace parsgd {

uint64_t PerSampleReplicaPeriod(uint64_t rows, int workers) {
  const uint64_t shard = (rows + workers - 1) / workers;
  return std::max<uint64_t>((shard + 9) / 10, 1);
}

// Default period of the replica schemes: 10 minibatches (experiment 3 of docs/experiments.md: on
// convex models the period barely moves convergence, on the MLP a short one helps). Per-sample
// replicas (--batch 1) would then combine every 10 samples, where the two fork-joins of each
// combining step cost more than the training between them (0.14x the samples/s of one Hogwild!
// worker on the RCV1-shaped set, bench/README.md): they combine 10 times per epoch instead.
int AutoReplicaPeriod(const TrainConfig& config, uint64_t rows, int workers) {
  if (!IsReplicaScheme(config.scheme) || config.batch != 1) return 10;
  return static_cast<int>(std::min<uint64_t>(PerSampleReplicaPeriod(rows, workers), 1 << 30));
}

void ResolveElasticAlpha(TrainConfig& config, ResolvedSettings& r) {
  r.elastic_alpha = config.elastic_alpha > 0 ? config.elastic_alpha : 0.9 / r.workers;
  config.elastic_alpha = r.elastic_alpha;
  if (r.elastic_alpha * r.workers > 1 + 1e-12) {
    throw SettingError(fmt::format(
        "`elastic-alpha` {} over {} workers: alpha x workers is {:.3g}, past 1, where the elastic "
        "step overshoots; give at most {:.4g}, or fewer `threads`",
        r.elastic_alpha, r.workers, r.elastic_alpha * r.workers, 1.0 / r.workers));
  }
}

std::string DescribeReplicas(const TrainConfig& c, const ResolvedSettings& s, bool outer) {
  std::string out = s.period > 0 ? fmt::format(" (period {})", s.period) : " (period epoch)";
  if (c.average_state) out += s.scheme == SchemeKind::kGossip ? " (state mixed)" : " (state averaged)";
  if (s.scheme == SchemeKind::kAverage && c.average_rule != AverageRule::kMean) {
    out += c.average_rule == AverageRule::kTouched
               ? " (each coordinate over the replicas that moved it)"
               : " (the sum of the replicas' changes)";
  }
  if (s.scheme == SchemeKind::kElastic) out += fmt::format(" (alpha {:.4g})", s.elastic_alpha);
  if (outer && !c.outer.plain()) {
    out += fmt::format(
        " (outer {}, rate {}{})", NameOf<OuterKind>(kOuterKinds, c.outer.kind),
        c.outer.learning_rate,
        c.outer.kind == OuterKind::kSgd ? "" : fmt::format(", momentum {}", c.outer.momentum));
  }
  return out;
}

}  // namespace parsgd
