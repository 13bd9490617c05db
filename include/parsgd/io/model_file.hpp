// Saved models. A model file holds everything `predict` and `eval` need, and the settings it was
// trained with (as text, for the record). Written atomically: complete or absent.
//
// Format version 1, little-endian. Every file starts with
//   offset  size  field
//        0     8  magic: 89 50 53 47 4D 0D 0A 1A ("\x89PSGM\r\n\x1A")
//        8     4  version (uint32) = 1
//       12     4  model kind (uint32): 0 logistic, 1 hinge, 2 squared, 3 softmax, 4 mlp
// Linear models (kinds 0-3) continue with
//       16     8  features
//       24     4  outputs K (1 for binary models)
//       28     4  negative label (float32, binary models: how the training file wrote it)
//       32     4  positive label (float32)
//       36     4  settings length L (bytes), then L bytes of UTF-8 "key=value" lines
//     40+L     8  parameter count = (features + 1) * K
//        then the weights (float32, LinearModel's layout, bias block last)
// The MLP (kind 4) continues with
//       16     4  layer-size count C (2 to 64), then C uint32 sizes: input, hidden..., classes
//                 4  settings length L, then L bytes of settings
//                    sizes[0] input scales (float32)
//                 8  parameter count (MlpModel's layout), then the parameters (float32)
// and every file ends with an 8-byte checksum: XXH64 of the parameter bytes, seeded with XXH64
// (seed 0) of every byte before them.
#pragma once

#include <string>
#include <variant>

#include "parsgd/model/linear_model.hpp"
#include "parsgd/model/mlp_model.hpp"

namespace parsgd {

class AtomicFileWriter;

// Throws parsgd::Error on I/O failure; the file at `path` is then unchanged.
void SaveModel(const LinearModel& model, const std::string& path, const std::string& settings);
void SaveModel(const MlpModel& model, const std::string& path, const std::string& settings);
// The same into a writer opened earlier (to fail on an unwritable path before training); commits.
void WriteModel(const LinearModel& model, const std::string& settings, AtomicFileWriter& out);
void WriteModel(const MlpModel& model, const std::string& settings, AtomicFileWriter& out);

struct LoadedModel {
  std::variant<LinearModel, MlpModel> model;
  std::string settings;
};

// Refuses, with a parsgd::DataError naming the file, anything but an intact model file of this
// version: a foreign file, another version, an unknown model kind, a shape that does not add up or
// a size that does not match the header (truncated or trailing bytes, checked before any
// allocation), a checksum mismatch, or a non-finite parameter or binary label.
LoadedModel LoadModel(const std::string& path);

}  // namespace parsgd
