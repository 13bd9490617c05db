// The data of a run over several processes (ranks): each rank reads its share of the rows, the
// shares in rank order being the file's rows in order, each row in exactly one share.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd {

// Part `part` of `parts` of [0, count): [count * part / parts, count * (part + 1) / parts), the
// parts in order covering it once, their sizes differing by at most one.
inline std::pair<uint64_t, uint64_t> ShardRange(uint64_t count, int part, int parts) {
  const auto p = static_cast<uint64_t>(parts);
  // count * k / p without overflow: count = q p + rem, so it is q k + rem k / p (rem k < p^2).
  auto cut = [&](uint64_t k) { return count / p * k + count % p * k / p; };
  return {cut(static_cast<uint64_t>(part)), cut(static_cast<uint64_t>(part) + 1)};
}

// Rows [first, last) of `data` (the entries and labels shared, the row offsets copied).
Dataset RowRange(const Dataset& data, uint64_t first, uint64_t last);

// Rank comm.rank()'s share of `path` (LoadDataset's formats and options). Collective. LIBSVM,
// fastText and VW text by byte range at line starts (ReadLibsvmShard, ReadLinesShard), the binary
// cache by row range (ReadBinaryCacheShard): each rank reads only its share. CSV, IDX, gzip files
// and lists are read whole by every rank and cut by row range (ShardRange). The feature count,
// the index base, the class names and the first error are the whole file's, and an error on one
// rank is thrown on every rank. One rank: LoadDataset.
Dataset LoadShard(const std::string& path, const LoadOptions& options, Communicator& comm);

}  // namespace parsgd
