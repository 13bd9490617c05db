// Sample orders: which training rows each worker visits in an epoch, and in what sequence.
//
// The source texts (see design.md) compare three ways to hand samples to parallel SGD workers:
// random sampling with replacement, global shuffle-partition and local shuffle-partition. The block
// order is the global shuffle at the granularity a file larger than memory can be read in: the
// rows cut into blocks of consecutive rows, the blocks shuffled, each block's rows shuffled within
// it. Every order here is a pure function of (seed, epoch, worker, number of workers, and for the
// block order the rows a block holds), and every order visits exactly n = rows samples per epoch in
// total: worker w visits ShardSize(w) of them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parsgd/util/named.hpp"

namespace parsgd {

enum class OrderKind {
  kRandom,      // each step draws a row uniformly with replacement (per-worker RNG stream)
  kGlobal,      // each epoch: one permutation of all rows, cut into contiguous per-worker shards
  kLocal,       // rows cut into shards once; each epoch each worker shuffles only its own shard
  kSequential,  // rows in file order, contiguous shards, no shuffling (baseline)
  // Each epoch: the blocks of consecutive rows in a shuffled order, each block's rows shuffled,
  // the sequence cut into contiguous per-worker shards: each worker reads a few blocks at a time.
  kBlock,
  kAuto,  // resolved by the trainer: block for a memory-mapped set too large to hold, else global
};

inline constexpr Named<OrderKind> kOrderKinds[] = {
    {OrderKind::kRandom, "random", "draw rows uniformly with replacement"},
    {OrderKind::kGlobal, "global", "shuffle all rows each epoch, one shard per worker"},
    {OrderKind::kLocal, "local", "fixed shards, each worker reshuffles its own shard each epoch"},
    {OrderKind::kSequential, "sequential", "file order, contiguous shards"},
    {OrderKind::kBlock, "block",
     "shuffle blocks of --block-size consecutive rows and the rows within each, one shard per "
     "worker: a binary cache larger than memory trains read a few blocks at a time"},
    {OrderKind::kAuto, "auto",
     "block for a binary cache larger than half the memory this process may use, else "
     "global"},
};

class SampleOrder {
 public:
  // rows >= 1, workers >= 1; rows_per_block >= 1 for kBlock (ignored otherwise). Not kAuto.
  // Cheap: no allocation until an epoch is prepared.
  SampleOrder(OrderKind kind, uint64_t rows, int workers, uint64_t seed,
              uint64_t rows_per_block = 0);

  OrderKind kind() const { return kind_; }
  uint64_t rows() const { return rows_; }
  int workers() const { return workers_; }

  // Worker w's shard is [ShardBegin(w), ShardBegin(w + 1)): sizes differ by at most one.
  uint64_t ShardBegin(int worker) const;
  uint64_t ShardSize(int worker) const { return ShardBegin(worker + 1) - ShardBegin(worker); }

  // The block order's blocks: [b rows_per_block, min(rows, (b + 1) rows_per_block)).
  uint64_t rows_per_block() const { return rows_per_block_; }
  uint64_t blocks() const;

  // Work shared by all workers for `epoch` (the global permutation: O(rows); the block order's
  // permutation of the blocks: O(blocks); one thread). Call once per epoch before any worker calls
  // Indices for that epoch.
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
  uint64_t rows_per_block_ = 0;  // block order only
  uint64_t prepared_epoch_ = ~uint64_t{0};
  std::vector<uint32_t> permutation_;   // global order: of the rows; block order: of the blocks
  std::vector<uint64_t> block_starts_;  // block order: where each block begins in the sequence
};

// The block order's block when none is given: 4 MiB of rows, a thousand pages that the kernel
// reads in a few requests. On rows in no particular order every size from 64 KiB to 64 MiB trains
// as the global shuffle does; on rows sorted by class every size fails, larger ones worse
// (docs/experiments.md, experiment 9).
inline constexpr uint64_t kDefaultBlockBytes = uint64_t{4} << 20;

// --order auto takes the block order for a memory-mapped set (a binary cache) whose rows take more
// than this share of the memory the process may use: its resident copy would leave too little for
// the model, the test rows and the system.
inline constexpr double kBlockOrderShare = 0.5;

// The order a run takes: `given` unless it is kAuto; then kBlock for a memory-mapped set of
// `data_bytes` (Dataset's ResidentBytes) over kBlockOrderShare of `usable` bytes, with the reason
// in *reason, else kGlobal.
OrderKind ChooseOrder(OrderKind given, uint64_t data_bytes, bool mapped, uint64_t usable,
                      std::string* reason);

// The rows of a block of about `block_bytes` (0: kDefaultBlockBytes) in a set of `rows` rows taking
// `data_bytes`: block_bytes over the mean bytes of a row, at least 1, at most rows.
uint64_t RowsPerBlock(uint64_t block_bytes, uint64_t rows, uint64_t data_bytes);

// Fisher-Yates shuffle of `values` driven by an Rng seeded with `seed` (exposed for tests).
void Shuffle(std::span<uint32_t> values, uint64_t seed);

}  // namespace parsgd
