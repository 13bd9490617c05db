// How a training set was read, where it matters to reading other files for its model: one record,
// made from the data as read (a binary cache keeps the same facts: the hashing, the CSV table's
// columns and reading, LIBSVM's index base) and written to the model file (io/model_file.hpp); and
// the rule by which another file (a test, validation or prediction file, or a cache of one) is
// read the way the training data was, or refused with both readings named.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "parsgd/data/csv.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/hashing.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd {

struct DataReading {
  // LIBSVM text: how its indices were read (kYes or kNo); kAuto: not recorded.
  ZeroBased zero_based = ZeroBased::kAuto;
  // CSV text: its label column as given (CsvOptions::label_column; empty: the first); none: the
  // data was not CSV text.
  std::optional<std::string> csv_label_column = std::nullopt;
  // With csv_label_column: the CSV text's feature columns (every column but the label's).
  uint64_t csv_feature_columns = 0;
  // Hashed text (fastText's or VW's format): how its words became features; none otherwise.
  std::optional<TextHashing> hashing = std::nullopt;
  // CSV text (model files of version 6 on): its feature columns (names, categorical values; the
  // model's features are laid out as data/csv_schema.hpp says), its weight column as given
  // (empty: none) and its missing-value rule, by which other files of the table are read; null:
  // not recorded.
  std::shared_ptr<const CsvSchema> csv_schema = nullptr;
  std::string csv_weight_column = {};
  CsvMissing csv_missing = CsvMissing::kError;

  bool csv() const { return csv_label_column.has_value() || csv_schema != nullptr; }
};

// The record of `train` as read: its hashing and CSV table where it has them, and its LIBSVM
// index base (train.zero_based(), or `zero_based` where the data recorded none).
DataReading ReadingOf(const Dataset& train, ZeroBased zero_based);

// The reading in a few words, for errors: "fastText text hashed into 2^12 features (word n-grams
// 1 to 2)", "CSV text of 4 feature columns", "LIBSVM text", "columns of numbers" (nothing
// recorded: IDX images, or a model file from before the record).
std::string DescribeReading(const DataReading& reading);

// `options` set to read `path` the way the data `reading` describes was read (`whose`: "the
// model's training data", "the training data a.bin"), for what the reading decides: the format
// (hashed text is read as text of its format, which a file to predict may not show by the
// __label__ words detection looks for, unless it is a binary cache; other readings keep
// options.format, given or detected), the hashing, and the CSV table's columns. The index base
// and the CSV table's label and weight columns stay the caller's (they may be given anew).
// Throws parsgd::Error (GivenFormatRefusal's words) where options.format names a format that
// cannot hold such data, and
// DataError for a file whose detected format cannot (a table's model and LIBSVM text, IDX images
// or hashed text; a hashed text's model and IDX images), both readings named.
// Why a file given in `format` (--format; kAuto: detected) cannot be read as `reading`
// describes: hashed text in another format than its own or a binary cache, a table in another
// than CSV or a binary cache; empty where it can. For a front end that refuses a flag before it
// reads anything.
std::string GivenFormatRefusal(const DataReading& reading, DataFormat format,
                               std::string_view whose);

void ReadAlike(const DataReading& reading, const std::string& path, std::string_view whose,
               LoadOptions& options);

// After reading `data` by ReadAlike's options: throws DataError naming its source and both
// readings where it was read otherwise than `reading`, which a binary cache (which records its
// own reading) or standard input can be: hashed where `reading` is not, not hashed where it is,
// hashed with other settings, or another CSV table.
void CheckReadAlike(const DataReading& reading, const Dataset& data, std::string_view whose);

}  // namespace parsgd
