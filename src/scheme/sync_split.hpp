// Internal: how the sync scheme (and sequential minibatch SGD) cuts an epoch into global
// minibatches of B samples, the same on every backend so that they sum the same samples at every
// step: step s takes worker w's next Share(w) = B / W samples of its own shard (the remainder of
// B / W going to the first workers), placed in worker order; the epoch has as many steps as the
// longest shard needs. Used by the sync scheme (scheme/sync_runner.hpp) and the offload backend.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace parsgd {

class SyncSplit {
 public:
  // shards: worker w's rows for the epoch; batch >= 1 (the trainer checks batch >= workers).
  SyncSplit(std::vector<std::span<const uint32_t>> shards, int batch)
      : shards_(std::move(shards)), share_(shards_.size()) {
    const uint64_t workers = shards_.size();
    for (uint64_t w = 0; w < workers; ++w) {
      share_[w] = static_cast<uint64_t>(batch) / workers + (w < batch % workers ? 1 : 0);
      steps_ = std::max<uint64_t>(steps_, (shards_[w].size() + share_[w] - 1) / share_[w]);
    }
  }

  uint64_t steps() const { return steps_; }
  int workers() const { return static_cast<int>(shards_.size()); }
  uint64_t Share(int w) const { return share_[w]; }
  // Where worker w's part of step s starts in the step's minibatch: the samples of the workers
  // before it (Offset(s, workers()) is the step's size).
  uint64_t Offset(uint64_t s, int w) const {
    uint64_t at = 0;
    for (int v = 0; v < w; ++v) at += Part(s, v).size();
    return at;
  }
  // Worker w's part of step s (shorter at the end of its shard, possibly empty).
  std::span<const uint32_t> Part(uint64_t s, int w) const {
    const std::span<const uint32_t> shard = shards_[w];
    const uint64_t begin = std::min<uint64_t>(s * share_[w], shard.size());
    return shard.subspan(begin, std::min<uint64_t>(share_[w], shard.size() - begin));
  }

 private:
  std::vector<std::span<const uint32_t>> shards_;
  std::vector<uint64_t> share_;
  uint64_t steps_ = 0;
};

}  // namespace parsgd
