// Internal: what a replica of the average scheme keeps as its own between epochs, in a
// TrainingState. At an epoch's end every replica holds the averaged weights (the trainer's), and
// with --average-state the averaged optimiser state too; its own are its optimiser step count
// and, without --average-state, its optimiser state. Entries "replica<w>.steps", ".state0",
// ".state1". Shared by the linear (average_runner.cpp) and dense (dense_runner.cpp) runners.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "parsgd/train/training_state.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

inline std::string ReplicaPrefix(std::size_t w) { return "replica" + std::to_string(w) + "."; }

// Replica w's own state; `own_state` is false with --average-state.
inline void SaveReplica(TrainingState& s, std::size_t w, uint64_t steps,
                        const AlignedArray<float>& state0, const AlignedArray<float>& state1,
                        bool own_state) {
  const std::string prefix = ReplicaPrefix(w);
  s.Put(prefix + "steps", steps);
  if (!own_state) return;
  if (!state0.empty()) s.Put(prefix + "state0", state0.span());
  if (!state1.empty()) s.Put(prefix + "state1", state1.span());
}

// Replica w's own state from `s`: its step count (0 when `s` holds none: a replica of a run that
// had not started) and the state arrays `s` holds, each of `size` values (TrainingState::Get
// refuses another size); the arrays it does not hold are left empty.
inline void LoadReplica(const TrainingState& s, std::size_t w, uint64_t size, uint64_t& steps,
                        AlignedArray<float>& state0, AlignedArray<float>& state1) {
  const std::string prefix = ReplicaPrefix(w);
  steps = s.Has(prefix + "steps") ? s.Counter(prefix + "steps") : 0;
  for (auto [name, array] : {std::pair{"state0", &state0}, std::pair{"state1", &state1}}) {
    *array = {};
    if (!s.Has(prefix + name)) continue;
    *array = AlignedArray<float>(size);
    s.Get(prefix + name, array->span());
  }
}

}  // namespace parsgd
