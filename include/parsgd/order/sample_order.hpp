// Sample orders: which training rows each worker visits in an epoch, and in what sequence.
//
// The source texts (see design.md) compare three ways to hand samples to parallel SGD workers:
// random sampling with replacement, global shuffle-partition and local shuffle-partition. Every
// order here is a pure function of (seed, epoch, worker, number of workers), and every order visits
// exactly n = rows samples per epoch in total: worker w visits ShardSize(w) of them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parsgd/util/named.hpp"

namespace parsgd {

enum class OrderKind {
  kRandom,      // each step draws a row uniformly with replacement (per-worker RNG stream)
  kGlobal,      // each epoch: one permutation of all rows, cut into contiguous per-worker shards
  kLocal,       // rows cut into shards once; each epoch each worker shuffles only its own shard
  kSequential,  // rows in file order, contiguous shards, no shuffling (baseline)
};

inline constexpr Named<OrderKind> kOrderKinds[] = {
    {OrderKind::kRandom, "random", "draw rows uniformly with replacement"},
    {OrderKind::kGlobal, "global", "shuffle all rows each epoch, one shard per worker"},
    {OrderKind::kLocal, "local", "fixed shards, each worker reshuffles its own shard each epoch"},
    {OrderKind::kSequential, "sequential", "file order, contiguous shards"},
};

class SampleOrder {
 public:
  // rows >= 1, workers >= 1. Cheap: no allocation until an epoch is prepared.
  SampleOrder(OrderKind kind, uint64_t rows, int workers, uint64_t seed);

  OrderKind kind() const { return kind_; }
  uint64_t rows() const { return rows_; }
  int workers() const { return workers_; }

  // Worker w's shard is [ShardBegin(w), ShardBegin(w + 1)): sizes differ by at most one.
  uint64_t ShardBegin(int worker) const;
  uint64_t ShardSize(int worker) const { return ShardBegin(worker + 1) - ShardBegin(worker); }

  // Work shared by all workers for `epoch` (the global permutation: O(rows), one thread). Call
  // once per epoch before any worker calls Indices for that epoch.
  void PrepareEpoch(uint64_t epoch);

  // The rows worker w visits in `epoch`, in order; exactly ShardSize(w) of them. Uses `scratch`
  // for orders that are made per worker (random, local, sequential) and returns a view into it, or
  // a view into the prepared permutation (global). Thread-safe for distinct workers after
  // PrepareEpoch(epoch). Cost: O(ShardSize(w)).
  std::span<const uint32_t> Indices(uint64_t epoch, int worker,
                                    std::vector<uint32_t>& scratch) const;

 private:
  OrderKind kind_;
  uint64_t rows_;
  int workers_;
  uint64_t seed_;
  uint64_t prepared_epoch_ = ~uint64_t{0};
  std::vector<uint32_t> permutation_;  // global order only
};

// Fisher-Yates shuffle of `values` driven by an Rng seeded with `seed` (exposed for tests).
void Shuffle(std::span<uint32_t> values, uint64_t seed);

}  // namespace parsgd
