// Saved models. A model file holds everything `predict` and `eval` need, and the settings it was
// trained with (as text, for the record). Written atomically: complete or absent.
//
// Format version 1, little-endian:
//   offset  size  field
//        0     8  magic: 89 50 53 47 4D 0D 0A 1A ("\x89PSGM\r\n\x1A")
//        8     4  version (uint32) = 1
//       12     4  model kind (uint32): 0 logistic, 1 hinge, 2 squared, 3 softmax
//       16     8  features
//       24     4  outputs K (1 for binary models)
//       28     4  negative label (float32, binary models: how the training file wrote it)
//       32     4  positive label (float32)
//       36     4  settings length L (bytes)
//       40     L  settings: UTF-8 "key=value" lines
//     40+L     8  weight count = (features + 1) * K
//     48+L  4*wc  weights (float32), layout of LinearModel (bias block last)
//      end     8  checksum: XXH64 of the weights' bytes, seeded with XXH64 (seed 0) of every
//                 byte before the weights
#pragma once

#include <string>

#include "parsgd/model/linear_model.hpp"

namespace parsgd {

class AtomicFileWriter;

// Throws parsgd::Error on I/O failure; the file at `path` is then unchanged.
void SaveModel(const LinearModel& model, const std::string& path, const std::string& settings);
// The same into a writer opened earlier (to fail on an unwritable path before training); commits.
void WriteModel(const LinearModel& model, const std::string& settings, AtomicFileWriter& out);

struct LoadedModel {
  LinearModel model;
  std::string settings;
};

// Refuses, with a parsgd::DataError naming the file, anything but an intact model file of this
// version: a foreign file, another version, an unknown model kind, a size that does not match the
// header (truncated or trailing bytes, checked before any allocation), a checksum mismatch, or a
// non-finite weight.
LoadedModel LoadModel(const std::string& path);

}  // namespace parsgd
