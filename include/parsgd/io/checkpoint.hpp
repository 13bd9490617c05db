// Checkpoint files: a run's state between two epochs (train/training_state.hpp) with what it may be
// restored into. Written to a temporary file, flushed, fsynced and renamed: a crash never leaves a
// half-written checkpoint under the final name.
//
// Format version 1, little-endian:
//   offset  size  field
//        0     8  magic: 89 50 53 47 43 0D 0A 1A ("\x89PSGC\r\n\x1A")
//        8     4  version (uint32) = 1
//       12     4  run identity length R, then R bytes (Trainer::RunIdentity: key=value lines)
//              4  data identity length D, then D bytes (Trainer::DataIdentity)
//              4  counter count C; each: uint16 name length, the name, uint64 value
//              4  array count A; each: uint16 name length, the name, uint64 count N, N float32
//   and the file ends with an 8-byte XXH64 (seed 0) of every byte before it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "parsgd/run/training_state.hpp"

namespace parsgd {

struct Checkpoint {
  std::string run;   // Trainer::RunIdentity() of the run that wrote it
  std::string data;  // Trainer::DataIdentity()
  TrainingState state;
};

// Throws parsgd::Error on I/O failure; the file at `path` is then unchanged.
void SaveCheckpoint(const Checkpoint& checkpoint, const std::string& path);

// Refuses, with a parsgd::DataError naming the file, anything but an intact checkpoint of this
// version: a foreign file, another version, a truncated or corrupted one (checksum), sizes that do
// not add up (checked against the file size before any allocation), a non-finite value.
Checkpoint LoadCheckpoint(const std::string& path);

// Empty when `expected` (this run) and `found` (a checkpoint's) agree on every key but the
// `ignored` ones; else the differing keys as "key: checkpoint X, this run Y" lines.
std::string IdentityDifferences(const std::string& found, const std::string& expected,
                                std::span<const std::string_view> ignored = {});

// The value of `key` in an identity ("key=value" lines); empty when it has none.
std::string IdentityValue(const std::string& identity, std::string_view key);

}  // namespace parsgd
