#include "replica_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

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

double WholeStepShare(const Dataset& data, uint64_t period, int workers) {
  const uint64_t rows = data.rows();
  if (rows == 0 || workers < 2) return 1;
  const uint64_t shard = (rows + workers - 1) / workers;
  const double others =
      static_cast<double>(period == 0 ? shard : std::min(period, shard)) * (workers - 1);
  // 4 bytes a feature, a model's size; a count saturates (such a feature is never whole anyway).
  std::vector<uint32_t> holding(data.features(), 0);
  const uint32_t* index = data.indices().data();
  for (uint64_t e = 0; e < data.nnz(); ++e) {
    uint32_t& n = holding[index[e]];
    if (n != UINT32_MAX) ++n;
  }
  double whole = 0;
  for (uint32_t n : holding) {
    const double held = n;
    if (n > 0) whole += held * std::pow(1 - held / static_cast<double>(rows), others);
  }
  return whole / static_cast<double>(data.nnz() + rows);  // the bias: never whole
}

ReplicaPlan AutoReplicaPlan(const TrainConfig& config, const Dataset& data, int workers,
                            int ranks) {
  const bool given_rule = config.average_rule != AverageRule::kAuto;
  ReplicaPlan plan{config.period >= 0 ? config.period
                                      : AutoReplicaPeriod(config, data.rows(), workers),
                   given_rule ? config.average_rule : AverageRule::kMean, -1};
  if ((given_rule && (config.period >= 0 || config.average_rule != AverageRule::kTouched)) ||
      config.scheme != SchemeKind::kAverage ||
      config.batch != 1 || !IsLinear(config.model) || workers < 2 || ranks > 1 ||
      data.nnz() == 0) {
    return plan;
  }
  const double nonzeros_a_row = static_cast<double>(data.nnz()) / data.rows();
  const uint64_t shorter = std::min<uint64_t>(
      PerSampleReplicaPeriod(data.rows(), workers),
      static_cast<uint64_t>(std::ceil(kTouchedPeriodNonzeros / nonzeros_a_row)));
  const uint64_t weighed = config.period >= 0 ? static_cast<uint64_t>(config.period) : shorter;
  plan.whole_steps = WholeStepShare(data, weighed, workers);
  const bool sparse = plan.whole_steps >= kTouchedWholeShare;
  if (!given_rule) plan.rule = sparse ? AverageRule::kTouched : AverageRule::kMean;
  if (config.period < 0 && plan.rule == AverageRule::kTouched && sparse) {
    plan.period = static_cast<int>(shorter);
  } else if (config.period < 0) {
    plan.whole_steps = -1;  // weighed at a period the run does not take
  }
  return plan;
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
    out += c.average_rule == AverageRule::kSum ? " (the sum of the replicas' changes)"
           : s.whole_steps < 0 ? " (each coordinate over the replicas that moved it)"
                               : fmt::format(" (touched rule: {:.0f}% of the steps whole)",
                                             100 * s.whole_steps);
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
