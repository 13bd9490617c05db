#include "data/cache/cache_verify.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

namespace parsgd::cache_internal {
namespace {

constexpr uint64_t kNone = ~uint64_t{0};
constexpr uint64_t kOffsetChunk = uint64_t{1} << 16;

bool IsFinite(float x) { return (std::bit_cast<uint32_t>(x) & 0x7f800000u) != 0x7f800000u; }

// First k in [0, n) with v[k] not finite, else n. Each group is tested without branches first so
// that the common (all finite) case vectorises.
uint64_t FirstNonFinite(const float* v, uint64_t n) {
  constexpr uint64_t kGroup = 256;
  for (uint64_t base = 0; base < n; base += kGroup) {
    const uint64_t end = std::min(n, base + kGroup);
    bool all_finite = true;
    for (uint64_t k = base; k < end; ++k) all_finite &= IsFinite(v[k]);
    if (all_finite) continue;
    for (uint64_t k = base;; ++k) {
      if (!IsFinite(v[k])) return k;
    }
  }
  return n;
}

// True if v[0..n) are all below `limit` and strictly ascending (branch-free, vectorises).
bool SegmentOk(const uint32_t* v, uint64_t n, uint64_t limit) {
  bool ok = true;
  for (uint64_t k = 0; k < n; ++k) ok &= v[k] < limit;
  for (uint64_t k = 1; k < n; ++k) ok &= v[k] > v[k - 1];
  return ok;
}

class Verifier {
 public:
  explicit Verifier(const CacheView& v)
      : v_(v),
        offsets_(Array<uint64_t>(v.layout.offsets)),
        indices_(Array<uint32_t>(v.layout.indices)),
        values_(Array<float>(v.layout.values)),
        labels_(Array<float>(v.layout.labels)),
        weights_(Array<float>(v.layout.weights)) {}

  // The row offsets must start at 0, never decrease and end at nnz: the index checks rely on it.
  std::optional<std::string> CheckOffsets() const {
    if (offsets_[0] != 0)
      return fmt::format("invalid: row offsets start at {}, not 0", offsets_[0]);
    const uint64_t n = v_.rows + 1;
    std::vector<uint64_t> first_bad((n + kOffsetChunk - 1) / kOffsetChunk, kNone);
    tbb::parallel_for(uint64_t{0}, static_cast<uint64_t>(first_bad.size()), [&](uint64_t c) {
      const uint64_t end = std::min(n, (c + 1) * kOffsetChunk);
      for (uint64_t j = std::max<uint64_t>(1, c * kOffsetChunk); j < end; ++j) {
        if (offsets_[j] < offsets_[j - 1]) {
          first_bad[c] = j;
          break;
        }
      }
      Release(offsets_ + c * kOffsetChunk, (end - c * kOffsetChunk) * sizeof(uint64_t));
    });
    for (uint64_t j : first_bad) {
      if (j == kNone) continue;
      return fmt::format("invalid: row {} ends before it starts (row offsets {} then {})", j - 1,
                         offsets_[j - 1], offsets_[j]);
    }
    if (offsets_[v_.rows] != v_.nnz) {
      return fmt::format("invalid: row offsets end at {}, expected nnz = {}", offsets_[v_.rows],
                         v_.nnz);
    }
    return std::nullopt;
  }

  // Hashes payload block b and checks the entries and labels in it (the indices only if the row
  // offsets are valid); the first problem in file order goes to *problem.
  uint64_t CheckBlock(uint64_t b, bool offsets_valid, std::optional<std::string>* problem) const {
    const uint64_t from = kHeaderSize + b * kBlockSize;
    const uint64_t to = std::min(v_.file_size, from + kBlockSize);
    const uint64_t hash = BlockHash({v_.file + from, to - from});
    // Sections and blocks start at multiples of 64, so each overlap is whole elements.
    auto elements = [&](const Section& s, uint64_t size) {
      const uint64_t lo = std::max(from, s.at);
      const uint64_t hi = std::min(to, s.at + s.bytes);
      return lo < hi ? std::pair{(lo - s.at) / size, (hi - s.at) / size} : std::pair{0ul, 0ul};
    };
    const auto [index_begin, index_end] = elements(v_.layout.indices, sizeof(uint32_t));
    const auto [value_begin, value_end] = elements(v_.layout.values, sizeof(float));
    const auto [label_begin, label_end] = elements(v_.layout.labels, sizeof(float));
    const auto [weight_begin, weight_end] = elements(v_.layout.weights, sizeof(float));
    if (offsets_valid && index_begin < index_end) *problem = CheckIndices(index_begin, index_end);
    if (!*problem && value_begin < value_end) *problem = CheckValues(value_begin, value_end);
    if (!*problem && label_begin < label_end) *problem = CheckLabels(label_begin, label_end);
    if (!*problem && weight_begin < weight_end) *problem = CheckWeights(weight_begin, weight_end);
    Release(v_.file + from, to - from);
    if (offsets_valid && index_begin < index_end) {  // the offsets the index check read
      const uint64_t* first = std::upper_bound(offsets_, offsets_ + v_.rows + 1, index_begin) - 1;
      const uint64_t* last = std::upper_bound(offsets_, offsets_ + v_.rows + 1, index_end - 1);
      Release(first, static_cast<uint64_t>(last - first + 1) * sizeof(uint64_t));
    }
    return hash;
  }

 private:
  void Release(const void* at, uint64_t bytes) const {
    if (v_.mapping != nullptr) v_.mapping->Release(at, bytes);
  }

  template <class T>
  const T* Array(const Section& s) const {
    return reinterpret_cast<const T*>(v_.file + s.at);
  }

  // Entries [begin, end), row by row (offsets valid: 0 = offsets[0] <= ... <= offsets[rows] = nnz).
  std::optional<std::string> CheckIndices(uint64_t begin, uint64_t end) const {
    // The row holding `begin`: the last r with offsets[r] <= begin.
    uint64_t r = std::upper_bound(offsets_, offsets_ + v_.rows + 1, begin) - offsets_ - 1;
    for (uint64_t k = begin; k < end;) {
      while (offsets_[r + 1] <= k) ++r;
      const uint64_t stop = std::min(end, offsets_[r + 1]);
      // A row that began in an earlier block continues from the entry before.
      const uint64_t first = k > offsets_[r] ? k - 1 : k;
      if (!SegmentOk(indices_ + first, stop - first, v_.features)) return Locate(r, first, stop);
      k = stop;
    }
    return std::nullopt;
  }

  std::string Locate(uint64_t row, uint64_t first, uint64_t stop) const {
    for (uint64_t k = first; k < stop; ++k) {
      if (indices_[k] >= v_.features) {
        return fmt::format("invalid: row {}: feature index {} >= features {}", row, indices_[k],
                           v_.features);
      }
      if (k > first && indices_[k] <= indices_[k - 1]) {
        return fmt::format("invalid: row {}: feature indices not strictly ascending ({} then {})",
                           row, indices_[k - 1], indices_[k]);
      }
    }
    return "invalid: row " + std::to_string(row);  // not reached
  }

  std::optional<std::string> CheckValues(uint64_t begin, uint64_t end) const {
    const uint64_t k = begin + FirstNonFinite(values_ + begin, end - begin);
    if (k == end) return std::nullopt;
    return fmt::format("invalid: entry {}: value {} is not finite", k, values_[k]);
  }

  std::optional<std::string> CheckLabels(uint64_t begin, uint64_t end) const {
    const uint64_t r = begin + FirstNonFinite(labels_ + begin, end - begin);
    if (r != end) return fmt::format("invalid: row {}: label {} is not finite", r, labels_[r]);
    if (v_.label_limit == 0) return std::nullopt;
    const auto limit = static_cast<float>(v_.label_limit);
    for (uint64_t k = begin; k < end; ++k) {
      const float y = labels_[k];
      if (!(y >= 0.f && y < limit && y == static_cast<float>(static_cast<uint32_t>(y)))) {
        return fmt::format("invalid: row {}: label {} is not a class of the {} named", k, y,
                           v_.label_limit);
      }
    }
    return std::nullopt;
  }

  // A row's weight: finite and not negative (as the readers give them).
  std::optional<std::string> CheckWeights(uint64_t begin, uint64_t end) const {
    for (uint64_t k = begin; k < end; ++k) {
      if (!IsFinite(weights_[k]) || weights_[k] < 0.f) {
        return fmt::format("invalid: row {}: weight {} is not a finite number >= 0", k,
                           weights_[k]);
      }
    }
    return std::nullopt;
  }

  const CacheView& v_;
  const uint64_t* offsets_;
  const uint32_t* indices_;
  const float* values_;
  const float* labels_;
  const float* weights_;
};

}  // namespace

PartCheck VerifyBlocks(const CacheView& view, uint64_t first, uint64_t last,
                       std::vector<uint64_t>& hashes) {
  const Verifier verifier(view);
  PartCheck out;
  out.offsets = verifier.CheckOffsets();
  std::vector<std::optional<std::string>> problems(last - first);
  tbb::parallel_for(first, last, [&](uint64_t b) {
    hashes[b] = verifier.CheckBlock(b, !out.offsets, &problems[b - first]);
  });
  for (std::optional<std::string>& problem : problems) {
    if (problem) {
      out.blocks = std::move(problem);
      break;
    }
  }
  return out;
}

std::string ChecksumMismatch(uint64_t expected, uint64_t actual) {
  return fmt::format(
      "corrupted: the payload checksum does not match (stored {:016x}, computed {:016x})",
      expected, actual);
}

std::optional<std::string> VerifyPayload(const CacheView& view, uint64_t expected_checksum) {
  const uint64_t blocks = BlockCount(view.file_size - kHeaderSize);
  std::vector<uint64_t> hashes(blocks);
  PartCheck check = VerifyBlocks(view, 0, blocks, hashes);
  const uint64_t actual = CombineBlockHashes(hashes);
  if (actual != expected_checksum) return ChecksumMismatch(expected_checksum, actual);
  if (check.offsets) return check.offsets;
  return check.blocks;
}

}  // namespace parsgd::cache_internal
