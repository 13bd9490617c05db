#include "train_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>

#include "parsgd/data/shard.hpp"
#include "parsgd/util/split.hpp"
#include "shared_options.hpp"

namespace parsgd::cli {

void DeclareDataOptions(OptionParser& p, RunArgs& a, bool train_required) {
  p.String("train", &a.train, "PATH",
           "training data (LIBSVM, CSV, fastText or VW text, .gz too, or - for standard input; "
           "IDX images[,labels]; or .bin; or several files as A,B,...: one data set, rows in "
           "file order)",
           train_required);
  p.Joins();
  p.String("test", &a.test, "PATH", "test data, evaluated after every epoch");
  p.String("validation", &a.validation, "PATH",
           "held-out data for early stopping: measured after every epoch, the run stops after "
           "--patience epochs without a better one and keeps the best epoch's model (read as "
           "--test is)");
  FormatOption(p, &a.format);
  p.UInt64("features", &a.features,
           "number of features; a LIBSVM index above it is an error (0: the largest index seen)");
  ZeroBasedOption(p, &a.zero_based,
                  "libsvm: whether feature indices start at 0 (auto: when an index 0 appears in "
                  "the training data; test data follows the training data's decision)");
  CsvReadOptions(p, &a.header, &a.delimiter, &a.label_column, &a.missing, &a.weight_column,
                 &a.ignore_columns);
  p.Choice<CsvCenter>("center", &a.center, kCsvCenters,
                      "csv: the training table's number columns centred, as the model records "
                      "(a reparametrisation that speeds SGD up; the bias absorbs the shift)");
  DeclareHashingOptions(p, a);
}

void DeclareHashingOptions(OptionParser& p, RunArgs& a) {
  p.String("categorical", &a.categorical, "auto|none|COLS",
           "csv: categorical feature columns, one feature per value (auto: the columns with a "
           "value that is not a number; COLS: these too, by header name or 0-based position, "
           "comma-separated; none: text in a feature column is an error)");
  p.Int("hash-bits", &a.hash_bits,
        "fasttext, vw: the words are hashed into 2^B features (B bits of MurmurHash3, signed; "
        "auto: 16); csv: the categorical values are (auto: one feature per value)",
        1, static_cast<int>(kMaxHashBits), 0);
  p.Int("ngrams", &a.ngrams,
        "fasttext: word n-grams of 1 to N words are features (fastText's -wordNgrams)", 1,
        static_cast<int>(kMaxWordNgrams));
  p.String("char-ngrams", &a.char_ngrams, "MIN,MAX",
           "fasttext: character n-grams of MIN to MAX characters of each word are features too "
           "(fastText's -minn, -maxn) [default: none]");
  p.String("interactions", &a.interactions, "TERMS",
           "vw: products of the features of namespaces, by their first letters: 'ab,abc' pairs "
           "every feature of a namespace starting 'a' with every one starting 'b' (VW's -q ab) "
           "and adds triples (--cubic abc) [default: none]");
}

void DropDuplicateInteractions(RunArgs& a, bool say) {
  std::vector<std::string> removed;
  const std::string kept = WithoutDuplicateInteractions(a.interactions, &removed);
  for (const std::string& term : say ? removed : std::vector<std::string>{}) {
    std::fprintf(stderr, "parsgd: warning: --interactions %s\n",
                 DuplicateInteractionWarning(a.interactions, term).c_str());
  }
  a.interactions = kept;
}

TextHashing RunHashing(const RunArgs& a) {
  TextHashing h{.bits = a.hash_bits == 0 ? TextHashing{}.bits : static_cast<uint32_t>(a.hash_bits),
                .ngrams = static_cast<uint32_t>(a.ngrams),
                .interactions = a.interactions};
  try {
    CheckTextHashing(h);  // the interactions (the rest is checked as parsed)
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (a.char_ngrams.empty()) return h;
  const std::size_t comma = a.char_ngrams.find(',');
  auto number = [&](std::string_view text) {
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxCharNgram) {
      throw UsageError(fmt::format(
          "--char-ngrams '{}': expected MIN,MAX, two integers with 1 <= MIN <= MAX <= {}",
          a.char_ngrams, kMaxCharNgram));
    }
    return v;
  };
  if (comma == std::string::npos) number("");  // throws
  h.char_min = number(std::string_view(a.char_ngrams).substr(0, comma));
  h.char_max = number(std::string_view(a.char_ngrams).substr(comma + 1));
  if (h.char_min > h.char_max) number("");  // throws
  return h;
}

void SetHashingOptions(const RunArgs& a, LoadOptions& options) {
  options.hashing = RunHashing(a);
  options.category_hash_bits = static_cast<uint32_t>(a.hash_bits);
  if (a.categorical == "none") {
    options.categorical_auto = false;
  } else if (a.categorical != "auto") {
    options.categorical = SplitAtCommas(a.categorical);
  }
}

void DeclareTrainingOptions(OptionParser& p, RunArgs& a) {
  for (const Setting& s : TrainSettings()) {
    if (s.key != "seed") p.TableSetting(s, &a.config);  // each command declares its seed itself
  }
}

ZeroBased RunZeroBased(const RunArgs& a, const Dataset& train) {
  return train.zero_based() != ZeroBased::kAuto ? train.zero_based() : a.zero_based;
}

DataReading RunReading(const RunArgs& a, const Dataset& train) {
  return ReadingOf(train, a.zero_based);
}

Dataset LoadRunData(const std::string& path, const RunArgs& a, Executor& executor,
                    const Dataset* train, Communicator* ranks, uint64_t page_budget,
                    const DataReading* start) {
  if (a.label_column.size() > kMaxRecordedLabelColumn) {
    throw UsageError(fmt::format("--label-column: {} bytes; at most {} (a saved model records it)",
                                 a.label_column.size(), kMaxRecordedLabelColumn));
  }
  if (a.label_column == kNoLabelColumn) {
    throw UsageError(
        "--label-column none: training and testing need the labels; name their "
        "column");
  }
  LoadOptions options;
  options.format = a.format;
  options.max_features = a.features;
  options.zero_based = a.zero_based;
  options.header = a.header;
  options.delimiter = a.delimiter;
  options.label_column = a.label_column;
  options.missing = a.missing;
  // Centring needs the bias to absorb the shift, and a copy of the rows: not where the run pages
  // a binary cache larger than memory.
  if (train == nullptr && a.config.bias == Bias::kOn &&
      (page_budget == 0 || FormatRead(path, a.format, Dataset{}) != DataFormat::kBinary)) {
    options.center = a.center;
  }
  options.weight_column = a.weight_column;
  if (!a.ignore_columns.empty()) options.ignore_columns = SplitAtCommas(a.ignore_columns);
  SetHashingOptions(a, options);
  // Another file of the run (test, validation) is read as the training data was; the training
  // data of a run started from a model, as that model's was.
  const std::string whose = train != nullptr ? "the training data " + train->source()
                            : start != nullptr ? "the --init model's training data"
                                               : "";
  const std::optional<DataReading> reading =
      train != nullptr   ? std::optional(RunReading(a, *train))
      : start != nullptr ? std::optional(*start)
                         : std::nullopt;
  if (reading && reading->csv_schema) {
    // The table's other files are read as its training data was (a binary cache records it).
    options.label_column = reading->csv_label_column.value_or("");
    options.weight_column = reading->csv_weight_column;
    options.missing = reading->csv_missing;
    options.ignore_columns = {};  // the schema's, by name where the files have a header
  }
  if (reading) {
    ReadAlike(*reading, path, whose, options);
    options.csv_schema_source = whose;
    options.label_by_schema = true;
    options.zero_based =
        reading->zero_based != ZeroBased::kAuto ? reading->zero_based : a.zero_based;
    if (a.zero_based == ZeroBased::kAuto && options.zero_based == ZeroBased::kNo) {
      options.zero_based_note = fmt::format(
          "indices are 1-based here, as {} was read (it has no index 0): if both files' indices "
          "start at 0, read them with zero-based yes",
          whose);
    }
  }
  Dataset data;
  executor.Execute([&] {
    Dataset read = ranks != nullptr && ranks->size() > 1 ? LoadShard(path, options, *ranks)
                                                         : LoadDataset(path, options);
    data = page_budget > 0 ? PagedView(read, page_budget) : ResidentCopy(read);
  });
  if (reading) CheckReadAlike(*reading, data, whose);
  if (train == nullptr && a.hash_bits != 0 && FormatRead(path, a.format, data) == DataFormat::kCsv &&
      (data.csv_schema() == nullptr || !data.csv_schema()->HasCategorical())) {
    throw UsageError(fmt::format(
        "--hash-bits would be ignored: it hashes the values of categorical columns, and {} has "
        "none (every feature column holds numbers)",
        data.source()));
  }
  if (train != nullptr && data.features() != train->features() &&
      FormatRead(path, a.format, data) == DataFormat::kCsv) {
    // A CSV file's columns are the features by position: another count is another table.
    throw DataError(path, 0, 0,
                    fmt::format("{} feature columns, but the training data {} has {}: the test "
                                "file's columns must be the training file's",
                                data.features(), train->source(), train->features()));
  }
  return data;
}

void RefuseIgnoredDataOptions(const std::function<bool(std::string_view)>& given,
                              const std::string& path, DataFormat format) {
  if (format == DataFormat::kAuto) return;  // standard input: its format is known once read
  for (const ReadOption& option : kReadOptions) {
    if (given(option.key) && !(option.formats & FormatBit(format))) {
      throw UsageError(fmt::format("--{} would be ignored: it reads {}; {} is {}", option.key,
                                   option.reads, path, FormatOf(format).what));
    }
  }
}

void RefuseIgnoredDataOptions(const OptionParser& p, const RunArgs& a) {
  const auto given = [&](std::string_view key) { return p.Given(key); };
  if (std::none_of(std::begin(kReadOptions), std::end(kReadOptions), [&](const ReadOption& o) {
        return o.formats != kEveryFormat && given(o.key);
      })) {
    return;
  }
  RefuseIgnoredDataOptions(given, a.train,
                           a.format == DataFormat::kAuto ? DetectDataFormat(a.train) : a.format);
}

std::unique_ptr<Executor> MakeRunExecutor(const TrainConfig& config) {
  return MakeTbbExecutor(config.backend == Backend::kOffload ? 0 : config.threads);
}

}  // namespace parsgd::cli
