#include "scheme_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <vector>

namespace parsgd {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBatches = 64, kTripsPerBatch = 16, kMinBatches = 4;
constexpr uint32_t kStop = ~uint32_t{0};
constexpr auto kPatience = std::chrono::milliseconds(50);  // for the two workers to meet
constexpr auto kBudget = std::chrono::milliseconds(20);    // for the trips

// Spins until ready() or the deadline; false on the deadline. Reads the clock every 256 spins.
template <class Ready>
bool SpinUntil(Ready ready, Clock::time_point deadline) {
  for (uint32_t spins = 1;; ++spins) {
    if (ready()) return true;
    if (spins % 256 == 0 && Clock::now() > deadline) return false;
  }
}

}  // namespace

bool NeedsRoundTrip(const TrainConfig& c, int threads) {
  return c.scheme == SchemeKind::kAuto && threads > 1 && IsLinear(c.model) &&
         c.backend == Backend::kCpu && !c.deterministic &&
         (c.batch <= 1 || c.batch >= kSyncShare * threads);
}

SchemeChoice ChooseScheme(const TrainConfig& c, int threads, double round_trip_ns,
                          double write_lines, double replica_work, double epoch_work) {
  if (c.backend == Backend::kOffload) {
    if (c.deterministic) return {SchemeKind::kSequential, "offload, --deterministic"};
    if (c.batch > 1) return {SchemeKind::kSync, fmt::format("offload, --batch {}", c.batch)};
    return {SchemeKind::kHogwild, "offload: the device's workers"};
  }
  if (threads <= 1) return {SchemeKind::kSequential, "one thread"};
  if (!IsLinear(c.model)) {
    return {SchemeKind::kAverage,
            "mlp: a minibatch writes every weight, replicas share nothing between averages"};
  }
  if (c.batch > 1) {
    if (c.deterministic) {
      return {SchemeKind::kSequential,
              fmt::format("--batch {}, --deterministic: minibatch steps on one worker", c.batch)};
    }
    if (round_trip_ns >= 0 && round_trip_ns <= kNearRoundTripNs &&
        c.batch >= kSyncShare * threads) {
      return {SchemeKind::kSync,
              fmt::format("--batch {} over workers {:.0f} ns apart: near", c.batch,
                          round_trip_ns)};
    }
    const std::string why =
        c.batch < kSyncShare * threads
            ? fmt::format("fewer than {} samples for each of the {} threads", kSyncShare, threads)
        : round_trip_ns < 0 ? std::string("the threads' round trip could not be measured")
                            : fmt::format("the threads' cores are {:.0f} ns apart", round_trip_ns);
    return {SchemeKind::kSequential,
            fmt::format("--batch {}: minibatch steps on one worker; {}", c.batch, why)};
  }
  if (c.deterministic) return {SchemeKind::kSequential, "--deterministic, per-sample updates"};
  if (replica_work >= kReplicaWork) {
    return {SchemeKind::kAverage,
            fmt::format("per-sample replicas, {:.0f} nonzeros a feature a period", replica_work),
            1};
  }
  if (epoch_work >= 0 && epoch_work < kShareableWork) {
    return {SchemeKind::kSequential,
            fmt::format("{:.0f} nonzeros times outputs an epoch: too little to share", epoch_work)};
  }
  if (round_trip_ns >= 0 && round_trip_ns <= kNearRoundTripNs) {
    return {
        SchemeKind::kHogwild,
        fmt::format("threads {:.0f} ns apart: near", round_trip_ns)};
  }
  const std::string trip = round_trip_ns < 0
                               ? std::string("the threads' round trip could not be measured")
                               : fmt::format("threads {:.0f} ns apart", round_trip_ns);
  if (write_lines >= kSpreadWriteLines) {
    return {SchemeKind::kHogwild,
            fmt::format("{}, writes spread over {:.0f} cache lines", trip, write_lines)};
  }
  return {SchemeKind::kSequential,
          fmt::format("{}, writes on {:.0f} cache lines: one worker is faster", trip,
                      std::max(write_lines, 0.0))};
}


double ReplicaWork(const Dataset& data, int workers) {
  if (data.rows() == 0) return 0;
  const double period = static_cast<double>(PerSampleReplicaPeriod(data.rows(), workers));
  return period * static_cast<double>(data.nnz()) / static_cast<double>(data.rows()) /
         static_cast<double>(data.features() + 1);
}

double EffectiveWriteLines(const Dataset& data, int outputs) {
  constexpr uint64_t kFloatsPerLine = 64 / sizeof(float);
  const uint64_t per_feature = static_cast<uint64_t>(std::max(outputs, 1));
  std::vector<uint64_t> on_line((data.features() * per_feature + kFloatsPerLine - 1) /
                                kFloatsPerLine);
  if (on_line.empty() || data.nnz() == 0) return 0;
  const uint32_t* index = data.indices().data();
  for (uint64_t e = 0; e < data.nnz(); ++e) ++on_line[index[e] * per_feature / kFloatsPerLine];
  double squares = 0;
  for (uint64_t n : on_line) squares += static_cast<double>(n) * static_cast<double>(n);
  const double total = static_cast<double>(data.nnz());
  return total * total / squares;
}

double MeasureRoundTripNs(Executor& executor) {
  if (executor.threads() < 2) return -1;
  alignas(64) std::atomic<uint32_t> ball{0};
  alignas(64) std::atomic<int> arrived{0};
  std::array<double, kBatches> batch_ns{};
  int batches = 0;
  // Worker 0 serves odd values and times batches of trips, worker 1 answers each with the next
  // even value. Worker 0 ends the exchange (kStop) when done, out of budget, or when an answer
  // does not come: on a loaded machine the two are not always running at once.
  executor.RunWorkers(2, [&](int w) {
    arrived.fetch_add(1);
    const Clock::time_point met_by = Clock::now() + kPatience;
    if (!SpinUntil([&] { return arrived.load() == 2; }, met_by)) {
      ball.store(kStop);
      return;
    }
    const Clock::time_point end = Clock::now() + kBudget;
    uint32_t next = 1;
    if (w == 1) {
      while (SpinUntil([&] { return ball.load(std::memory_order_acquire) >= next; },
                       end + kPatience) &&
             ball.load(std::memory_order_acquire) != kStop) {
        ball.store(next + 1, std::memory_order_release);
        next += 2;
      }
      return;
    }
    for (; batches < kBatches && Clock::now() < end; ++batches) {
      const Clock::time_point start = Clock::now();
      for (int t = 0; t < kTripsPerBatch; ++t, next += 2) {
        ball.store(next, std::memory_order_release);
        if (!SpinUntil([&] { return ball.load(std::memory_order_acquire) == next + 1; }, end)) {
          ball.store(kStop);
          return;
        }
      }
      batch_ns[batches] =
          std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kTripsPerBatch;
    }
    ball.store(kStop);
  });
  if (batches < kMinBatches) return -1;
  // The lower quartile: a batch in which either thread was descheduled only ever reads slower.
  std::sort(batch_ns.begin(), batch_ns.begin() + batches);
  return batch_ns[batches / 4];
}

}  // namespace parsgd
