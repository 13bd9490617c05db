// The memory a run's data will take, planned from the files before any row is read: a run whose
// rows cannot fit the memory this process may use is refused with the numbers and the way through
// (a binary cache and the block order), and a run that takes the block order reads its binary
// caches from their files under a page budget instead of copying them into memory.
#pragma once

#include <cstdint>
#include <string>

#include "parsgd/config/train_config.hpp"
#include "train_options.hpp"

namespace parsgd::cli {

struct DataPlan {
  // Above 0: the run's binary caches are read from their files under a page budget of this many
  // bytes (PagedView), not copied into memory: the training data takes the block order.
  uint64_t budget = 0;
};

// The page budget of a run of `threads` threads with blocks of `block_bytes` (0: the default): a
// few blocks a thread, and 64 MiB for the test rows' pass and the kernel's read-ahead.
uint64_t PageBudgetBytes(int threads, uint64_t block_bytes);

// Plans run's files (--train, --test, --validation) for `ranks` ranks of `threads` threads each.
// A binary cache's rows are known from its header; a text file's only once read (not counted: no
// run that could fit is refused); the model's parameters from the training cache's features and
// label set, one copy. Under the block order the page budget is PageBudgetBytes cut to half of
// UsableMemoryBytes(). Throws parsgd::Error when the rows that would be held in memory and the
// model need more than UsableMemoryBytes(), naming the way through, or when a block a thread
// would take more than half of it (naming --block-size).
DataPlan PlanDataMemory(const RunArgs& run, int ranks, int threads);

}  // namespace parsgd::cli
