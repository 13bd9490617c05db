// Internal: the parameter store of the replica schemes (average, gossip): per worker a copy of the
// parameters and the optimiser state, and the replica's own optimiser step count. The schemes'
// combining steps (scheme/average.hpp, scheme/gossip.hpp) read and write it by coordinate range,
// one worker per range, every sum over replicas in replica order, so the result does not depend on
// timing. It is one of the two groups those steps combine (the other: the ranks of a run,
// scheme/rank_group.hpp), through Average (every member takes the mean), MeanInto, Assign and
// MixRing.
//
// Between epochs a TrainingState keeps what a replica has that the trainer's parameters do not
// (entries "replica<w>.steps", ".state0", ".state1", ".weights"): its step count always, its
// optimiser state unless the state is averaged, its weights when the scheme leaves replicas
// unequal at an epoch's end (gossip).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "parsgd/optim/optimizer.hpp"
#include "parsgd/run/training_state.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

// The gossip step's mix of a member with its ring neighbours, a third each, in this order of the
// additions (scheme/gossip.hpp; the ranks' too, scheme/rank_group.hpp).
inline float RingMix(float left, float self, float right) { return (left + self + right) / 3.f; }

// Worker w's share of n coordinates (or samples): [SplitAt(n, w, W), SplitAt(n, w + 1, W)).
inline uint64_t SplitAt(uint64_t n, int w, int workers) {
  return n * static_cast<uint64_t>(w) / static_cast<uint64_t>(workers);
}

class Replicas {
 public:
  // Which of a replica's arrays: the weights, the optimiser state arrays.
  enum Array { kWeights = 0, kState0 = 1, kState1 = 2 };

  Replicas(int count, uint64_t size) : size_(size), replicas_(count) {}

  int count() const { return static_cast<int>(replicas_.size()); }
  uint64_t size() const { return size_; }
  bool ready(int w) const { return !replicas_[w].arrays[kWeights].empty(); }
  // Whether the replicas have optimiser state array `a` (all or none do).
  bool has(Array a) const { return !replicas_[0].arrays[a].empty(); }
  uint64_t& steps(int w) { return replicas_[w].steps; }
  float* data(int w, Array a) { return replicas_[w].arrays[a].data(); }
  const float* data(int w, Array a) const { return replicas_[w].arrays[a].data(); }

  ParamArrays Arrays(int w) {
    Replica& r = replicas_[w];
    return {r.arrays[kWeights].data(),
            r.arrays[kState0].empty() ? nullptr : r.arrays[kState0].data(),
            r.arrays[kState1].empty() ? nullptr : r.arrays[kState1].data()};
  }

  // Replica w as a copy of the trainer's parameters and state; a replica restored from a checkpoint
  // (Load) keeps the optimiser state it had.
  void MakeFrom(int w, const ParamArrays& trainer) {
    Replica& r = replicas_[w];
    r.arrays[kWeights] = Copy(trainer.weights);
    if (trainer.state0 && r.arrays[kState0].empty()) r.arrays[kState0] = Copy(trainer.state0);
    if (trainer.state1 && r.arrays[kState1].empty()) r.arrays[kState1] = Copy(trainer.state1);
  }

  // Replica w's weights, and with `state` its optimiser state, replaced by the trainer's.
  void TakeFrom(int w, const ParamArrays& trainer, bool state) {
    Replica& r = replicas_[w];
    std::memcpy(r.arrays[kWeights].data(), trainer.weights, size_ * sizeof(float));
    if (!state) return;
    if (trainer.state0)
      std::memcpy(r.arrays[kState0].data(), trainer.state0, size_ * sizeof(float));
    if (trainer.state1)
      std::memcpy(r.arrays[kState1].data(), trainer.state1, size_ * sizeof(float));
  }

  // The mean over replicas of coordinates [begin, end) of array `a`, written to every replica. A
  // coordinate equal in every replica keeps its value (the mean of equal floats can differ from
  // them by rounding), so averaging a coordinate no replica moved changes nothing, and a combining
  // step may cover more coordinates than changed without changing the result.
  void Average(Array a, uint64_t begin, uint64_t end) {
    if (end - begin <= kShortRange) {  // one feature's outputs (the sparse combining steps)
      const float inv = 1.f / static_cast<float>(replicas_.size());
      for (uint64_t i = begin; i < end; ++i) {
        const float x0 = replicas_[0].arrays[a][i];
        float sum = x0;
        bool differ = false;
        for (std::size_t r = 1; r < replicas_.size(); ++r) {
          const float x = replicas_[r].arrays[a][i];
          sum += x;
          differ |= x != x0;
        }
        const float mean = differ ? sum * inv : x0;
        for (auto& replica : replicas_) replica.arrays[a][i] = mean;
      }
      return;
    }
    ForMeanBlocks(a, begin, end, [&](uint64_t b, uint64_t n, const float* mean) {
      for (auto& replica : replicas_)
        std::memcpy(replica.arrays[a].data() + b, mean, n * sizeof(float));
    });
  }
  // The same for every array that is averaged: the weights, and the state when `with_state`.
  void AverageAll(uint64_t begin, uint64_t end, bool with_state) {
    Average(kWeights, begin, end);
    if (!with_state) return;
    if (has(kState0)) Average(kState0, begin, end);
    if (has(kState1)) Average(kState1, begin, end);
  }

  // The mean over replicas of coordinates [begin, end) of array `a` (as Average takes it) into
  // out[begin, end).
  void MeanInto(Array a, uint64_t begin, uint64_t end, float* out) const {
    ForMeanBlocks(a, begin, end, [&](uint64_t b, uint64_t n, const float* mean) {
      std::memcpy(out + b, mean, n * sizeof(float));
    });
  }

  // The touched rule's mean (--average-rule touched, scheme/average.hpp) of coordinates [begin,
  // end) of array `a` into out[begin, end): each coordinate's mean over the replicas whose value
  // differs from anchor[i], summed in replica order; anchor[i] where none does. `out` may be
  // `anchor`.
  void TouchedMeanInto(Array a, uint64_t begin, uint64_t end, const float* anchor,
                       float* out) const {
    if (end - begin <= kShortRange) {  // one feature's outputs (the sparse combining steps)
      for (uint64_t i = begin; i < end; ++i) {
        const float base = anchor[i];
        float sum = 0.f, moved = 0.f;
        for (const Replica& r : replicas_) {
          const float x = r.arrays[a][i];
          if (x != base) {
            sum += x;
            moved += 1.f;
          }
        }
        out[i] = moved == 0.f ? base : sum / moved;
      }
      return;
    }
    constexpr uint64_t kBlock = 256;
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t n = std::min(kBlock, end - b);
      const float* base = anchor + b;
      float sum[kBlock], moved[kBlock];
      uint32_t any[kBlock];  // all ones where some replica moved the coordinate
      for (uint64_t i = 0; i < n; ++i) {
        sum[i] = moved[i] = 0.f;
        any[i] = 0;
      }
      // By bit masks, as ForMeanBlocks (g++ vectorises no ?: on floats): a replica that did not
      // move a coordinate adds +0 to its sum and its count.
      constexpr uint32_t kOne = std::bit_cast<uint32_t>(1.f);
      for (const Replica& r : replicas_) {
        const float* x = r.arrays[a].data() + b;
        for (uint64_t i = 0; i < n; ++i) {
          const uint32_t differs = 0u - static_cast<uint32_t>(x[i] != base[i]);
          sum[i] += std::bit_cast<float>(std::bit_cast<uint32_t>(x[i]) & differs);
          moved[i] += std::bit_cast<float>(kOne & differs);
          any[i] |= differs;
        }
      }
      for (uint64_t i = 0; i < n; ++i) {
        const float mean = sum[i] / (moved[i] + std::bit_cast<float>(kOne & ~any[i]));
        out[b + i] = std::bit_cast<float>((std::bit_cast<uint32_t>(base[i]) & ~any[i]) |
                                          (std::bit_cast<uint32_t>(mean) & any[i]));
      }
    }
  }

  // Coordinates [begin, end) of array `a` of every replica set to values[begin, end).
  void Assign(Array a, uint64_t begin, uint64_t end, const float* values) {
    for (auto& replica : replicas_) {
      std::memcpy(replica.arrays[a].data() + begin, values + begin, (end - begin) * sizeof(float));
    }
  }

  // The ring mix of array `a` on coordinates [begin, end) (the gossip step, scheme/gossip.hpp):
  // every replica r replaced by RingMix of replicas r - 1, r and r + 1 (mod count), each new value
  // computed from the old ones, in blocks copied out to `scratch` first. One replica: unchanged.
  void MixRing(Array a, uint64_t begin, uint64_t end, std::vector<float>& scratch) {
    const int n = count();
    if (n == 1) return;
    constexpr uint64_t kBlock = 512;
    scratch.resize(static_cast<std::size_t>(n) * kBlock);
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t len = std::min(kBlock, end - b);
      for (int r = 0; r < n; ++r) std::copy_n(data(r, a) + b, len, scratch.data() + r * kBlock);
      for (int r = 0; r < n; ++r) {
        const float* left = scratch.data() + ((r + n - 1) % n) * kBlock;
        const float* self = scratch.data() + r * kBlock;
        const float* right = scratch.data() + ((r + 1) % n) * kBlock;
        float* out = data(r, a) + b;
        for (uint64_t i = 0; i < len; ++i) out[i] = RingMix(left[i], self[i], right[i]);
      }
    }
  }

  // Replica 0's arrays into the trainer's (those the trainer has).
  void CopyTo(const ParamArrays& trainer) const {
    std::memcpy(trainer.weights, data(0, kWeights), size_ * sizeof(float));
    if (trainer.state0) std::memcpy(trainer.state0, data(0, kState0), size_ * sizeof(float));
    if (trainer.state1) std::memcpy(trainer.state1, data(0, kState1), size_ * sizeof(float));
  }

  // What the replicas have of their own (see the file's comment): the state when `own_state`, the
  // weights when `own_weights`.
  void Save(TrainingState& s, bool own_state, bool own_weights) const {
    for (std::size_t w = 0; w < replicas_.size(); ++w) {
      const Replica& r = replicas_[w];
      if (r.arrays[kWeights].empty()) continue;  // a run that had not started
      const std::string prefix = Prefix(w);
      s.Put(prefix + "steps", r.steps);
      if (own_weights) s.Put(prefix + "weights", r.arrays[kWeights].span());
      if (!own_state) continue;
      if (!r.arrays[kState0].empty()) s.Put(prefix + "state0", r.arrays[kState0].span());
      if (!r.arrays[kState1].empty()) s.Put(prefix + "state1", r.arrays[kState1].span());
    }
  }
  // Each replica's own part from `s` (step count 0 when `s` holds none); a replica whose weights
  // `s` does not hold is remade from the trainer's restored parameters at the next epoch
  // (MakeFrom). TrainingState::Get refuses arrays of another size.
  void Load(const TrainingState& s) {
    for (std::size_t w = 0; w < replicas_.size(); ++w) {
      Replica& r = replicas_[w];
      r = Replica{};
      const std::string prefix = Prefix(w);
      r.steps = s.Has(prefix + "steps") ? s.Counter(prefix + "steps") : 0;
      for (auto [name, a] : {std::pair{"weights", kWeights}, std::pair{"state0", kState0},
                             std::pair{"state1", kState1}}) {
        if (!s.Has(prefix + name)) continue;
        r.arrays[a] = AlignedArray<float>(size_);
        s.Get(prefix + name, r.arrays[a].span());
      }
    }
  }

 private:
  struct Replica {
    AlignedArray<float> arrays[3];
    uint64_t steps = 0;  // optimiser steps of this replica, over the whole run
  };

  static constexpr uint64_t kShortRange = 16;

  // fn(b, n, mean) for the blocks [b, b + n) of [begin, end): the mean over replicas, summed in
  // replica order, or the common value where all replicas hold the same.
  template <class Fn>
  void ForMeanBlocks(Array a, uint64_t begin, uint64_t end, Fn&& fn) const {
    constexpr uint64_t kBlock = 256;
    const float inv = 1.f / static_cast<float>(replicas_.size());
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t n = std::min(kBlock, end - b);
      const float* x0 = data(0, a) + b;
      float mean[kBlock];
      uint32_t differ[kBlock];
      for (uint64_t i = 0; i < n; ++i) {
        mean[i] = x0[i];
        differ[i] = 0;
      }
      for (std::size_t r = 1; r < replicas_.size(); ++r) {
        const float* x = replicas_[r].arrays[a].data() + b;
        for (uint64_t i = 0; i < n; ++i) {
          mean[i] += x[i];
          differ[i] |= x[i] != x0[i];
        }
      }
      // mean or x0 by a bit mask: g++ vectorises neither a ?: on floats nor one on a flag of
      // another type (it measured 14.6 instructions per coordinate, 5% of the MLP's epoch).
      for (uint64_t i = 0; i < n; ++i) {
        const uint32_t scaled = std::bit_cast<uint32_t>(mean[i] * inv);
        const uint32_t same = std::bit_cast<uint32_t>(x0[i]);
        const uint32_t mask = 0u - differ[i];
        mean[i] = std::bit_cast<float>((scaled & mask) | (same & ~mask));
      }
      fn(b, n, mean);
    }
  }

  static std::string Prefix(std::size_t w) { return "replica" + std::to_string(w) + "."; }

  AlignedArray<float> Copy(const float* from) const {
    AlignedArray<float> to(size_);
    std::memcpy(to.data(), from, size_ * sizeof(float));
    return to;
  }

  uint64_t size_;
  std::vector<Replica> replicas_;
};

}  // namespace parsgd
