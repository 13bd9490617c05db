// One entry point for every data source: the format is chosen by name or detected from the bytes.
// All functions here may be called from several threads at once (they share no state).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/hashing.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd {

enum class DataFormat { kAuto, kLibsvm, kIdx, kBinary, kCsv, kFasttext, kVw };

// One row per format: what the command line calls it, what it is in a sentence ("LIBSVM text"),
// whether a comma-separated list of files may hold it, and the help. How each is read is its
// reader's (src/data/format/format_readers.hpp); how it is told from its first bytes,
// DetectDataFormat's.
struct FormatInfo {
  DataFormat format;
  const char* name;
  const char* what;
  bool in_list;
  const char* help;
};

// clang-format off
inline constexpr FormatInfo kFormats[] = {
  {DataFormat::kAuto,     "auto",     "data of a format to detect", false,
   "detected from the file's first bytes (CSV: a name ending in .csv or .tsv, or a first line "
   "with commas, tabs or semicolons and no index:value pair; fasttext: a first line with a "
   "__label__ word; vw: a first line with a '|' and a space; csv too: one with '|' and no "
   "space)"},
  {DataFormat::kLibsvm,   "libsvm",   "LIBSVM text",             true,
   "LIBSVM/svmlight text: label idx:val ..."},
  {DataFormat::kIdx,      "idx",      "IDX images",              false,
   "IDX images (MNIST family, raw or gzip): IMAGES[,LABELS]"},
  {DataFormat::kBinary,   "bin",      "a binary cache",          true,
   "parsgd's binary cache (memory-mapped, checksummed)"},
  {DataFormat::kCsv,      "csv",      "CSV text",                true,
   "comma-, tab- or semicolon-separated fields, a header line or none, one label column "
   "(numbers or class names)"},
  {DataFormat::kFasttext, "fasttext", "fastText text",           true,
   "fastText's text: '__label__NAME word word ...' lines, the words hashed into features"},
  {DataFormat::kVw,       "vw",       "VW text",                 true,
   "Vowpal Wabbit's text: 'label [importance] |namespace feature[:value] ...', hashed"},
};
// clang-format on

namespace format_detail {
constexpr bool EveryFormatOnce() {
  for (std::size_t i = 0; i < std::size(kFormats); ++i) {
    if (static_cast<std::size_t>(kFormats[i].format) != i) return false;
  }
  return std::size(kFormats) == static_cast<std::size_t>(DataFormat::kVw) + 1;
}
static_assert(EveryFormatOnce(), "kFormats: one row per DataFormat, in the enum's order");
constexpr std::array<Named<DataFormat>, std::size(kFormats)> MakeNamed() {
  std::array<Named<DataFormat>, std::size(kFormats)> out{};
  for (std::size_t i = 0; i < std::size(kFormats); ++i) {
    out[i] = {kFormats[i].format, kFormats[i].name, kFormats[i].help};
  }
  return out;
}
}  // namespace format_detail

// The row of `format`.
constexpr const FormatInfo& FormatOf(DataFormat format) {
  return kFormats[static_cast<std::size_t>(format)];
}

// The rows as a name table (util/named.hpp), for --format and lookups by name.
inline constexpr std::array<Named<DataFormat>, std::size(kFormats)> kDataFormats =
    format_detail::MakeNamed();

inline constexpr Named<ZeroBased> kZeroBasedSettings[] = {
    {ZeroBased::kAuto, "auto", "zero-based if an index 0 appears in the file"},
    {ZeroBased::kYes, "yes", "indices start at 0 (scikit-learn's dump_svmlight_file)"},
    {ZeroBased::kNo, "no", "indices start at 1 (LIBSVM's convention)"},
};

inline constexpr Named<CsvMissing> kCsvMissings[] = {
    {CsvMissing::kError, "error", "a missing value is an error naming its place"},
    {CsvMissing::kZero, "zero", "a missing value is 0 (the feature absent from the row)"},
    {CsvMissing::kMean, "mean",
     "the mean of its column's values in the training rows (a categorical column's most frequent "
     "category)"},
    {CsvMissing::kMedian, "median",
     "the median of its column's values in the training rows (a categorical column's most "
     "frequent category)"},
    {CsvMissing::kMostFrequent, "most-frequent",
     "its column's most frequent value in the training rows (the smallest of a tie)"},
    {CsvMissing::kIndicator, "indicator",
     "0, and a feature of its own that is 1 where the column's value is missing (one for each "
     "column with missing values in the training rows)"},
};

inline constexpr Named<CsvCenter> kCsvCenters[] = {
    {CsvCenter::kAuto, "auto",
     "the number columns whose mean over the training rows is farther from 0 than their standard "
     "deviation have it subtracted (with the bias on and the data in memory)"},
    {CsvCenter::kNone, "none", "the cells as written"},
};

inline constexpr Named<CsvHeader> kCsvHeaders[] = {
    {CsvHeader::kAuto, "auto", "a header if the first line has a field that is not a number"},
    {CsvHeader::kYes, "yes", "the first line names the columns"},
    {CsvHeader::kNo, "no", "the first line is data"},
};

// "auto", "libsvm", "idx", "bin", "csv" (exact, lower case); nullopt for anything else.
inline std::optional<DataFormat> ParseDataFormat(std::string_view name) {
  return FindByName<DataFormat>(kDataFormats, name);
}
// The name ParseDataFormat accepts for `format`.
inline const char* DataFormatName(DataFormat format) {
  return NameOf<DataFormat>(kDataFormats, format);
}

// The read options: the flags of every command that reads data, in one table, with the formats
// each applies to (a flag given for a file of another format would be ignored, and is refused)
// and what it reads. Every one changes what is read, so `compare` counts each as part of a
// problem (configurations that differ in one do not share a target).
struct ReadOption {
  std::string_view key;  // the flag, without its dashes
  unsigned formats;      // FormatBit of each format it applies to; kEveryFormat: all
  std::string_view reads;
};
constexpr unsigned FormatBit(DataFormat format) { return 1u << static_cast<unsigned>(format); }
inline constexpr unsigned kEveryFormat = ~0u;
inline constexpr ReadOption kReadOptions[] = {
    {"format", kEveryFormat, "every format"},
    {"features", kEveryFormat, "every format"},
    {"zero-based", FormatBit(DataFormat::kLibsvm), "LIBSVM text"},
    {"header", FormatBit(DataFormat::kCsv), "CSV text"},
    {"delimiter", FormatBit(DataFormat::kCsv), "CSV text"},
    {"label-column", FormatBit(DataFormat::kCsv), "CSV text"},
    {"missing", FormatBit(DataFormat::kCsv), "CSV text"},
    {"weight-column", FormatBit(DataFormat::kCsv), "CSV text"},
    {"ignore-columns", FormatBit(DataFormat::kCsv), "CSV text"},
    {"categorical", FormatBit(DataFormat::kCsv), "CSV text"},
    {"center", FormatBit(DataFormat::kCsv) | FormatBit(DataFormat::kBinary),
     "CSV text and binary caches of it"},
    {"ngrams", FormatBit(DataFormat::kFasttext), "fastText text"},
    {"char-ngrams", FormatBit(DataFormat::kFasttext), "fastText text"},
    {"interactions", FormatBit(DataFormat::kVw), "VW text"},
    {"hash-bits",
     FormatBit(DataFormat::kFasttext) | FormatBit(DataFormat::kVw) | FormatBit(DataFormat::kCsv),
     "fastText and VW text and CSV categorical columns"},
};

struct LoadOptions {
  DataFormat format = DataFormat::kAuto;
  // 0: no limit. LIBSVM: passed to the reader (indices above it are errors). Other formats: a
  // dataset with more features is an error. Every format: features() == max_features when given.
  uint64_t max_features = 0;
  // LIBSVM text: see LibsvmOptions (zero_based, zero_based_note).
  ZeroBased zero_based = ZeroBased::kAuto;
  std::string zero_based_note = {};
  // CSV text: see CsvOptions (header, delimiter, label_column, label_column_note, missing,
  // ignore_columns, weight_column, weight_column_optional).
  // Data to predict, whose labels are not needed. IDX: images whose labels file is not found are
  // read with every label 0. fastText and VW text: see their options' labels_optional.
  bool labels_optional = false;
  // fastText and VW text: how their words become features (data/hashing.hpp; the format field is
  // the reader's).
  TextHashing hashing = {};
  CsvHeader header = CsvHeader::kAuto;
  char delimiter = 0;
  std::string label_column = {};
  std::string label_column_note = {};
  CsvMissing missing = CsvMissing::kError;
  // A table read as training data: its number columns centred under this rule (CsvCenter); a
  // file read by csv_schema is centred by its centres instead.
  CsvCenter center = CsvCenter::kNone;
  std::vector<std::string> ignore_columns = {};
  std::string weight_column = {};
  bool weight_column_optional = false;
  bool label_by_schema = false;  // CsvOptions::label_by_schema
  // CSV categorical columns and another file's schema: see CsvOptions (categorical_auto,
  // categorical, category_hash_bits, schema, schema_source).
  bool categorical_auto = true;
  std::vector<std::string> categorical = {};
  uint32_t category_hash_bits = 0;
  std::shared_ptr<const CsvSchema> csv_schema = nullptr;
  std::string csv_schema_source = "the training data";
  // The text readers' piece size, as LibsvmOptions::chunk_bytes (0: chosen; the result never
  // depends on it).
  uint64_t chunk_bytes = 0;
};

// The format `path` holds, read from its first bytes (after gunzip where it is compressed): the
// binary cache magic -> kBinary; an IDX magic -> kIdx; a name ending in ".csv" or ".tsv" (any
// case, before a ".gz") -> kCsv; a first non-blank line with a token that starts with "__label__"
// -> kFasttext; one with a '|' and a space or tab -> kVw, with '|' and neither -> kCsv (a
// pipe-separated table); a first line (before any '#') with a comma, tab or ';' and no ':' -> kCsv; anything else -> kLibsvm. A path that does not exist but contains a comma is
// an IDX pair -> kIdx when its first file is IDX (or missing), else a list of files -> its first
// file's format. "-" (standard input) -> kAuto: known only once read (LoadDataset).
DataFormat DetectDataFormat(const std::string& path);

// The format `data` was read in from `path` as `given` says: `given` itself unless kAuto, else
// DetectDataFormat(path); for standard input ("-", text) told from the data: LIBSVM text always
// records its index base (Dataset::zero_based), fastText and VW text their hashing, CSV neither.
DataFormat FormatRead(const std::string& path, DataFormat given, const Dataset& data);

// Whether `path` is a comma-separated list of data files (not an IDX pair IMAGES,LABELS, not the
// name of a file).
bool IsSeveralFiles(const std::string& path);
// The files of such a list, in order; empty where `path` is not one.
std::vector<std::string> SeveralFiles(const std::string& path);

// Whether the file at `path` is gzip-compressed (false for "-" and an unreadable path).
bool IsGzipFile(const std::string& path);

// Loads `path` in the given format (or the detected one). LIBSVM, CSV, fastText and VW text may be
// gzip-compressed (inflated whole, then parsed in parallel) or come from standard input ("-": read
// to its end, then parsed; its format detected from its first line). IDX paths are either "IMAGES,LABELS" or
// the images file alone, the labels file then being the same name with "images-idx3" replaced by
// "labels-idx1" (an error says what was looked for if it does not exist). A comma-separated list
// of other files ("a.svm,b.svm.gz") is one data set, the files' rows in order: one format (given,
// or each file's detected, which must agree), LIBSVM's index base decided over all of them, the
// widest feature count (CSV files must have the same columns), class names the union. Errors are
// those of the readers (DataError for malformed data, parsgd::Error otherwise). Cost: that of the reader.
Dataset LoadDataset(const std::string& path, const LoadOptions& options = {});

// `input` (what LoadDataset reads) written to `output` as a binary cache; returns its shape.
// Text (a file, gzip-compressed or not, a comma-separated list of files, or "-" for standard input,
// its format told from its first bytes) and IDX images are read holding a few pieces at a time,
// whatever their size: LIBSVM, fastText and VW text in one pass, CSV text in two (three where a
// column turns out to hold numbers and text; standard input is copied to a temporary file first),
// IDX in one; the rows go to unnamed temporary files in the folder of `output` (disk for the
// cache's size again, until it is written). What is held besides: the class names and, for CSV,
// the categorical columns' values (one-hot). A binary cache is read (mapped) and written by
// SaveDataset. The cache is the bytes SaveDataset writes for LoadDataset's Dataset of the input.
// Throws as the readers do (the first malformed line by its file and number; a gzip stream cut
// short) and as SaveDataset does, and leaves nothing at `output` (nor any temporary file).
CacheShape ConvertToCache(const std::string& input, const LoadOptions& options,
                          const std::string& output);

// Writes `data` to `path`: the binary cache if the name ends in ".bin", LIBSVM text otherwise.
// Atomic (the file appears complete or not at all); the same data always gives the same bytes.
// The cache holds class names, hashed text's hashing and row weights; LIBSVM text does not, and
// parsgd::Error is thrown for them there. Neither records CSV categorical columns' values: thrown
// for both.
void SaveDataset(const Dataset& data, const std::string& path);

}  // namespace parsgd
