// Options that several commands take, declared once.
#pragma once

#include "options.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd::cli {

// --threads N|auto (auto, stored as 0: every core this process may use).
inline void ThreadsOption(OptionParser& p, int* threads, const std::string& what = "threads") {
  p.Int("threads", threads, what + " (auto: every core this process may use)", 1, 4096, 0);
}

// --format auto|libsvm|idx|bin|csv.
inline void FormatOption(OptionParser& p, DataFormat* format) {
  p.Choice<DataFormat>("format", format, kDataFormats, "data format");
}

// --zero-based auto|yes|no (LIBSVM text).
inline void ZeroBasedOption(OptionParser& p, ZeroBased* zero_based, const std::string& help) {
  p.Choice<ZeroBased>("zero-based", zero_based, kZeroBasedSettings, help);
}

// --header auto|yes|no, --delimiter and --label-column NAME|INDEX (CSV text).
// With `model_defaults` (predict, eval), the weight column and the missing-value rule default to
// the model's record of its training data.
inline void CsvReadOptions(OptionParser& p, CsvHeader* header, char* delimiter,
                           std::string* label_column, CsvMissing* missing,
                           std::string* weight_column, std::string* ignore_columns,
                           const std::string& label_help =
                               "csv: the label column, by header name or 0-based position (-1: "
                               "the last) [default: the first]",
                           bool model_defaults = false) {
  p.Choice<CsvHeader>("header", header, kCsvHeaders,
                      "csv: whether the first line names the columns");
  p.Delimiter("delimiter", delimiter,
              "csv: between the fields (auto: the most frequent of comma, tab, semicolon and | on "
              "the first line)");
  p.String("label-column", label_column, "NAME|INDEX", label_help);
  p.String("weight-column", weight_column, "NAME|INDEX",
           std::string("csv: a column of row weights (numbers >= 0), by header name or 0-based "
                       "position; not a feature [default: ") +
               (model_defaults ? "the model's training data's, else none]" : "none]"));
  p.String("ignore-columns", ignore_columns, "COLS",
           std::string("csv: columns left out, neither features nor read (an id, a free text), by "
                       "header name or 0-based position, comma-separated; the model records "
                       "them, and a file to predict may lack them [default: ") +
               (model_defaults ? "the model's training data's]" : "none]"));
  p.Choice<CsvMissing>("missing", missing, kCsvMissings,
                       std::string("csv: a missing feature value (an empty field, NA, N/A, ?, "
                                   "NaN, null, None)") +
                           (model_defaults ? "; unless given, as the model's training data" : ""));
}

}  // namespace parsgd::cli
