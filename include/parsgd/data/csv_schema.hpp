// A CSV table's feature columns as training read them: their names, which are categorical, and
// the categorical columns' values. A model file records it, and predict, eval and a run's test
// file read other files of the table by it: columns matched by name where both files have a
// header, every categorical value encoded as in training.
//
// Feature layout of a table of C feature columns (the label and weight columns left out):
//   - numeric column j (0-based among the feature columns) is feature j;
//   - a categorical column's own feature j stays 0; its values are features after the columns:
//       one-hot (hash_bits 0): value v of categorical column c is feature C + start(c) + rank of v
//         among c's values (byte order), start(c) the value count of the categorical columns
//         before c; a value training never met is left out of the row;
//       hashed (hash_bits B): value v of column j is feature C + (h mod 2^B) with value +1 or -1,
//         h = Murmur3(v, seed 2 + j) and the sign its bit 31, as data/hashing.hpp hashes words
//         (values that collide in a row add up; a bucket whose signs cancel is not stored).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parsgd {

struct CsvColumn {
  std::string name;  // the header's name; empty where the file had none
  bool categorical = false;
  // One-hot categorical columns: the values training met, strictly ascending in byte order.
  std::vector<std::string> values = {};
  bool operator==(const CsvColumn&) const = default;
};

// A column of the training file left out (--ignore-columns): its header name (empty where the file
// had none) and its 0-based position among the file's fields.
struct CsvIgnored {
  std::string name;
  uint64_t field = 0;
  bool operator==(const CsvIgnored&) const = default;
};

// How a feature column's missing values are filled in under an imputing rule (CsvMissing kMean,
// kMedian, kMostFrequent, kIndicator), learnt from the training rows: the feature a missing cell
// sets and its value (a number column: its own feature and the training rows' mean, median or
// most frequent value; a one-hot categorical column: its most frequent value's feature and 1;
// kNoFill: nothing, as a 0), and whether an indicator feature (1 where the cell was missing)
// follows the table's features. The indicators are features Features() - k .. Features() - 1,
// one per column with `indicator`, in column order.
inline constexpr uint32_t kNoFill = ~uint32_t{0};
struct CsvFill {
  uint32_t feature = kNoFill;
  float value = 0;
  bool indicator = false;
  bool operator==(const CsvFill&) const = default;
};

struct CsvSchema {
  std::vector<CsvColumn> columns;  // the feature columns, in the training file's order
  // Under an imputing rule, one per column (its fill learnt from the training rows); else empty.
  std::vector<CsvFill> fills = {};
  // Where training centred the number columns (CsvCenter kAuto), one per column: the value
  // subtracted from its cells (a missing cell filled in first; 0: the column is not centred, as
  // every categorical column); else empty. Features, rows' layout and the record unchanged
  // otherwise: a binary cache holds the rows uncentred and records none.
  std::vector<float> centres = {};
  // The columns left out, in file order: other files of the table leave out the columns of these
  // names (by position where the files have no header), and may lack them.
  std::vector<CsvIgnored> ignored = {};
  bool named = false;              // the columns have the header's names
  std::string label_name = {};     // named: the label column's name (empty: none)
  uint32_t hash_bits = 0;          // 0: categorical values one-hot; else hashed into 2^hash_bits
  bool operator==(const CsvSchema&) const = default;

  bool HasCategorical() const {
    for (const CsvColumn& c : columns) {
      if (c.categorical) return true;
    }
    return false;
  }
  // The features of the layout above, before the missing values' indicators.
  uint64_t BaseFeatures() const {
    uint64_t features = columns.size();
    if (!HasCategorical()) return features;
    if (hash_bits != 0) return features + (uint64_t{1} << hash_bits);
    for (const CsvColumn& c : columns) features += c.values.size();
    return features;
  }
  uint64_t Indicators() const {
    uint64_t count = 0;
    for (const CsvFill& f : fills) count += f.indicator;
    return count;
  }
  // The features of the layout above, the indicators last.
  uint64_t Features() const { return BaseFeatures() + Indicators(); }
};

// What a missing feature value is (data/csv.hpp): an error; 0; or filled in by what the training
// rows' values of its column give (CsvFill): their mean, their median, their most frequent value
// (a categorical column's most frequent category under all three), or 0 and an indicator feature.
enum class CsvMissing { kError, kZero, kMean, kMedian, kMostFrequent, kIndicator };
inline constexpr CsvMissing kLastCsvMissing = CsvMissing::kIndicator;
// Whether `missing` fills missing values in from the training rows (CsvSchema::fills).
inline bool Imputes(CsvMissing missing) {
  return missing != CsvMissing::kError && missing != CsvMissing::kZero;
}

// Whether training centres a table's number columns (subtracts each column's mean over the
// training rows from its cells): kAuto those whose mean is farther from 0 than their standard
// deviation, where the column would move with the bias and slow SGD down; a column mostly of
// zeros (counts, pixels, 0/1 flags) keeps its rows sparse.
enum class CsvCenter { kNone, kAuto };

// How a CSV table was read beyond its columns, as given (CsvOptions: label_column, weight_column,
// missing): with its schema, what reads the table's other files the same way (a model file and a
// binary cache record it).
struct CsvReading {
  std::string label_column = {};   // empty: the first column
  std::string weight_column = {};  // empty: none
  CsvMissing missing = CsvMissing::kError;
  bool operator==(const CsvReading&) const = default;
};

// The seed of column j's categorical values' hash (seeds 0 and 1 are fastText's words and
// character n-grams).
inline uint32_t CategorySeed(uint64_t column) { return static_cast<uint32_t>(2 + column); }

}  // namespace parsgd
