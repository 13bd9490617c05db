// Saved models. A model file holds everything `predict` and `eval` need, and the settings it was
// trained with (as text, for the record). Written atomically: complete or absent.
//
// Format version 7, little-endian. Every file starts with
//   offset  size  field
//        0     8  magic: 89 50 53 47 4D 0D 0A 1A ("\x89PSGM\r\n\x1A")
//        8     4  version (uint32) = 7
//       12     4  model kind (uint32): 0 logistic, 1 hinge, 2 squared, 3 softmax, 4 mlp,
//                 5 squared-hinge, 6 huber, 7 epsilon-insensitive
//       16     4  how the training data's LIBSVM indices were read (uint32): 0 not recorded
//                 (the data was not LIBSVM text), 1 zero-based, 2 one-based
//       20     4  N (uint32): 0 when the training data was not CSV text; else N - 1 bytes follow
//                 (at most 4096): its label column as `--label-column` named it (empty: the
//                 first), the default of predict and eval, then 8 bytes: its feature columns
//                 (uint64; the model may have more features, given by --features)
//  then 4 bytes H (uint32): how the features were hashed from text (data/hashing.hpp): 0 not
//                 hashed; 1 fastText's format, and 16 bytes follow (uint32 each: bits, word
//                 n-grams, character n-grams' min and max); 2 VW's format, and 4 bytes of bits,
//                 4 bytes of length I (at most 4096) and I bytes of --interactions follow
//  then the CSV record: 4 bytes, 0 where the training data was not CSV text, else the record's
//                 version (1 to 4, the lowest that holds it) and the table's columns, weight
//                 column, missing-value rule, left-out columns, missing values' fills and
//                 centred columns' means (src/io/csv_record.cpp lays them out)
// and, at the offset S where those end, linear models (kinds 0-3) continue with
//      S+0     8  features
//      S+8     4  outputs K (1 for binary models; one a class, 3 or more, for a binary loss's
//                 one-vs-rest model)
//     S+12    4C  class labels (float32, ascending): C = 2 for the binary models (negative,
//                 positive), K for softmax and one-vs-rest; how the training data wrote each class
//                 then the class names: 4 bytes, their count (0, or C where the training data
//                 wrote its labels as text), and per name 4 bytes of length (at most 4096) and
//                 its bytes, strictly ascending
//                 4  targets (uint32): 0 classes, 1 real values (a regression: binary kinds
//                    only; always 1 for huber and epsilon-insensitive)
//                 4  the loss's width (float32 above 0: --loss-epsilon; the other losses'
//                    is unused)
//                 4  settings length L (bytes), then L bytes of UTF-8 "key=value" lines
//                 8  parameter count = (features + 1) * K
//                    then the weights (float32, LinearModel's layout, bias block last)
// The MLP (kind 4) continues with
//      S+0     4  layer-size count C (2 to 64), then C uint32 sizes: input, hidden..., classes
//                 4 * classes: class labels (float32, ascending), then the class names as above
//                 4  settings length L, then L bytes of settings
//                    sizes[0] input scales (float32)
//                 8  parameter count (MlpModel's layout), then the parameters (float32)
// and every file ends with an 8-byte checksum: XXH64 of the parameter bytes, seeded with XXH64
// (seed 0) of every byte before them.
//
// Version 6 files (before the targets and the loss's width) still load: linear models then read
// as classifiers, of width 0.1. Version 5 files (before the CSV record) still load: the same
// without it (a CSV file is then read by position, every column a number). Version 4 files (before
// hashed text) still load: the same without the field H. Version 3 files (before class names) still
// load: the same without the class names. Version 2 files (before the CSV label column) still load:
// the same without the field at 20 (S = 20; the label column reads as not recorded). Version 1
// files (before class labels and the index base) too: they had no index base field (it reads as
// one-based, the only kind version 1 read), linear models kept the negative and positive label at
// offsets 28 and 32 after features (16) and outputs (24), and softmax and MLP classes were the
// labels 0 .. K-1.
#pragma once

#include <optional>
#include <string>

#include "parsgd/data/csv.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/reading.hpp"
#include "parsgd/model/model.hpp"

namespace parsgd {

class AtomicFileWriter;

// The longest CSV label column a model file records (bytes).
inline constexpr std::size_t kMaxRecordedLabelColumn = 4096;

// Throws parsgd::Error on I/O failure (the file at `path` is then unchanged), or on a CSV label
// column longer than kMaxRecordedLabelColumn.
void SaveModel(const LinearModel& model, const std::string& path, const std::string& settings,
               const DataReading& reading = {});
void SaveModel(const MlpModel& model, const std::string& path, const std::string& settings,
               const DataReading& reading = {});
// The same into a writer opened earlier (to fail on an unwritable path before training); commits.
void WriteModel(const LinearModel& model, const std::string& settings, AtomicFileWriter& out,
                const DataReading& reading = {});
void WriteModel(const MlpModel& model, const std::string& settings, AtomicFileWriter& out,
                const DataReading& reading = {});

struct LoadedModel {
  Model model;
  std::string settings;
  DataReading reading;  // as given to SaveModel
};

// Refuses, with a parsgd::DataError naming the file, anything but an intact model file of
// version 1 to 6: a foreign file, another version, an unknown model kind or index base, a shape
// that does not add up or a size that does not match the header (truncated or trailing bytes,
// checked before any allocation), a checksum mismatch, a non-finite parameter or class label, or
// class labels out of order.
LoadedModel LoadModel(const std::string& path);

}  // namespace parsgd
