#include "parsgd/order/sample_order.hpp"

#include <numeric>

#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

// Stream identifiers keep the RNG streams of different purposes independent.
enum Stream : uint64_t { kRandomStream = 1, kGlobalStream = 2, kLocalStream = 3 };

}  // namespace

void Shuffle(std::span<uint32_t> values, uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = values.size(); i > 1; --i) {
    std::size_t j = rng.Uniform(i);
    std::swap(values[i - 1], values[j]);
  }
}

SampleOrder::SampleOrder(OrderKind kind, uint64_t rows, int workers, uint64_t seed)
    : kind_(kind), rows_(rows), workers_(workers), seed_(seed) {
  if (rows == 0) throw Error("sample order: no rows");
  if (rows > UINT32_MAX) throw Error("sample order: more than 2^32-1 rows");
  if (workers < 1) throw Error("sample order: need at least one worker");
}

uint64_t SampleOrder::ShardBegin(int worker) const {
  // Balanced split: sizes floor(n/W) or ceil(n/W); 128-bit product avoids overflow.
  return static_cast<uint64_t>(static_cast<Uint128>(rows_) * static_cast<uint64_t>(worker) /
                               static_cast<uint64_t>(workers_));
}

void SampleOrder::PrepareEpoch(uint64_t epoch) {
  if (kind_ != OrderKind::kGlobal || prepared_epoch_ == epoch) return;
  permutation_.resize(rows_);
  std::iota(permutation_.begin(), permutation_.end(), uint32_t{0});
  Shuffle(permutation_, DeriveSeed(seed_, {kGlobalStream, epoch}));
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
