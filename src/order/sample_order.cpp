#include "parsgd/order/sample_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

// Stream identifiers keep the RNG streams of different purposes independent.
enum Stream : uint64_t {
  kRandomStream = 1,
  kGlobalStream = 2,
  kLocalStream = 3,
  kBlockStream = 4,    // the permutation of the blocks
  kInBlockStream = 5,  // the rows within one block
};

}  // namespace

void Shuffle(std::span<uint32_t> values, uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = values.size(); i > 1; --i) {
    std::size_t j = rng.Uniform(i);
    std::swap(values[i - 1], values[j]);
  }
}

OrderKind ChooseOrder(OrderKind given, uint64_t data_bytes, bool mapped, uint64_t usable,
                      std::string* reason) {
  if (given != OrderKind::kAuto) return given;
  const double share = kBlockOrderShare * static_cast<double>(usable);
  if (!mapped || static_cast<double>(data_bytes) <= share) return OrderKind::kGlobal;
  constexpr double kMiB = double(uint64_t{1} << 20);
  if (reason != nullptr) {
    *reason = fmt::format(
        "the rows take {:.0f} MiB, more than half of the {:.0f} MiB this process may use: read a "
        "few blocks at a time",
        data_bytes / kMiB, usable / kMiB);
  }
  return OrderKind::kBlock;
}

uint64_t RowsPerBlock(uint64_t block_bytes, uint64_t rows, uint64_t data_bytes) {
  if (block_bytes == 0) block_bytes = kDefaultBlockBytes;
  if (rows == 0) return 1;
  const double row_bytes = std::max(1.0, static_cast<double>(data_bytes) / rows);
  const double per_block = std::floor(static_cast<double>(block_bytes) / row_bytes);
  return std::clamp<uint64_t>(static_cast<uint64_t>(std::min(per_block, double(rows))), 1, rows);
}

SampleOrder::SampleOrder(OrderKind kind, uint64_t rows, int workers, uint64_t seed,
                         uint64_t rows_per_block)
    : kind_(kind), rows_(rows), workers_(workers), seed_(seed) {
  if (rows == 0) throw Error("sample order: no rows");
  if (rows > UINT32_MAX) throw Error("sample order: more than 2^32-1 rows");
  if (workers < 1) throw Error("sample order: need at least one worker");
  if (kind == OrderKind::kAuto) throw Error("sample order: `auto` is resolved before training");
  if (kind == OrderKind::kBlock) {
    if (rows_per_block == 0) throw Error("sample order: a block holds at least one row");
    rows_per_block_ = std::min(rows_per_block, rows);
  }
}

uint64_t SampleOrder::blocks() const {
  return kind_ == OrderKind::kBlock ? (rows_ + rows_per_block_ - 1) / rows_per_block_ : 0;
}

uint64_t SampleOrder::ShardBegin(int worker) const {
  // Balanced split: sizes floor(n/W) or ceil(n/W); 128-bit product avoids overflow.
  return static_cast<uint64_t>(static_cast<Uint128>(rows_) * static_cast<uint64_t>(worker) /
                               static_cast<uint64_t>(workers_));
}

void SampleOrder::PrepareEpoch(uint64_t epoch) {
  if (prepared_epoch_ == epoch) return;
  if (kind_ == OrderKind::kGlobal) {
    permutation_.resize(rows_);
    std::iota(permutation_.begin(), permutation_.end(), uint32_t{0});
    Shuffle(permutation_, DeriveSeed(seed_, {kGlobalStream, epoch}));
  } else if (kind_ == OrderKind::kBlock) {
    const uint64_t n = blocks();
    permutation_.resize(n);
    std::iota(permutation_.begin(), permutation_.end(), uint32_t{0});
    Shuffle(permutation_, DeriveSeed(seed_, {kBlockStream, epoch}));
    block_starts_.resize(n + 1);
    block_starts_[0] = 0;
    for (uint64_t k = 0; k < n; ++k) {  // only the last block may be short
      const uint64_t b = permutation_[k];
      block_starts_[k + 1] =
          block_starts_[k] + std::min(rows_, (b + 1) * rows_per_block_) - b * rows_per_block_;
    }
  } else {
    return;
  }
  prepared_epoch_ = epoch;
}

std::span<const uint32_t> SampleOrder::Indices(uint64_t epoch, int worker,
                                               std::vector<uint32_t>& scratch) const {
  const uint64_t begin = ShardBegin(worker);
  const uint64_t size = ShardSize(worker);
  switch (kind_) {
    case OrderKind::kGlobal:
      if (prepared_epoch_ != epoch) throw Error("sample order: epoch not prepared");
      return {permutation_.data() + begin, size};
    case OrderKind::kRandom: {
      scratch.resize(size);
      Rng rng(DeriveSeed(seed_, {kRandomStream, epoch, static_cast<uint64_t>(worker)}));
      for (uint32_t& i : scratch) i = static_cast<uint32_t>(rng.Uniform(rows_));
      return scratch;
    }
    case OrderKind::kBlock: {
      if (prepared_epoch_ != epoch) throw Error("sample order: epoch not prepared");
      scratch.resize(size);
      // The blocks the shard [begin, begin + size) of the sequence overlaps, each shuffled whole
      // (its order is the block's, whichever workers share it) and the shard's part copied.
      uint64_t k = static_cast<uint64_t>(
          std::upper_bound(block_starts_.begin(), block_starts_.end(), begin) -
          block_starts_.begin() - 1);
      std::vector<uint32_t> block;
      for (uint64_t at = begin; at < begin + size; ++k) {
        const uint64_t b = permutation_[k];
        const uint64_t first = b * rows_per_block_;
        block.resize(block_starts_[k + 1] - block_starts_[k]);
        std::iota(block.begin(), block.end(), static_cast<uint32_t>(first));
        Shuffle(block, DeriveSeed(seed_, {kInBlockStream, epoch, b}));
        const uint64_t from = at - block_starts_[k];
        const uint64_t take = std::min<uint64_t>(block.size() - from, begin + size - at);
        std::copy_n(block.begin() + static_cast<std::ptrdiff_t>(from), take,
                    scratch.begin() + static_cast<std::ptrdiff_t>(at - begin));
        at += take;
      }
      return scratch;
    }
    case OrderKind::kAuto:
      break;
    case OrderKind::kLocal:
    case OrderKind::kSequential:
      scratch.resize(size);
      std::iota(scratch.begin(), scratch.end(), static_cast<uint32_t>(begin));
      if (kind_ == OrderKind::kLocal) {
        Shuffle(scratch, DeriveSeed(seed_, {kLocalStream, epoch, static_cast<uint64_t>(worker)}));
      }
      return scratch;
  }
  return {};
}

}  // namespace parsgd
