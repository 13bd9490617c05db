#include "parsgd/data/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "data/format/csv_categorical.hpp"
#include "data/format/csv_centre.hpp"
#include "data/format/csv_impute.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/data/idx.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/data/vw.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"
#include "parsgd/util/split.hpp"
#include "data/format/format_readers.hpp"
#include "data/format/stream_readers.hpp"

namespace parsgd {
namespace {

namespace fs = std::filesystem;
using data_internal::ApplyMaxFeatures;
using data_internal::CommaParts;
using data_internal::IsCommaPair;

bool HasCsvName(const std::string& path) {
  std::string tail = path.substr(path.size() < 4 ? 0 : path.size() - 4);
  std::transform(tail.begin(), tail.end(), tail.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return tail == ".csv" || tail == ".tsv";
}

// The first line of `text` with more than spaces, tabs and a carriage return (empty if none).
std::string_view FirstNonBlankLine(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return {};
}

// Whether `line` has a token (between spaces or tabs) that starts with fastText's label prefix.
bool HasLabelToken(std::string_view line) {
  for (std::size_t at = line.find(kFasttextLabelPrefix); at != std::string_view::npos;
       at = line.find(kFasttextLabelPrefix, at + 1)) {
    if (at == 0 || line[at - 1] == ' ' || line[at - 1] == '\t') return true;
  }
  return false;
}

// The text format of `head` (a text's first bytes) named `name` (without a .gz ending): CSV for a
// .csv or .tsv name; fastText for a first line with a __label__ token; VW for one with a '|' and a
// space (which neither LIBSVM nor a numeric table has), CSV for one with '|' and no space or tab (a
// pipe-separated table); CSV for a first line with
// field separators and no index:value pair (which LIBSVM never is: a table saved as wine.txt);
// LIBSVM otherwise.
DataFormat DetectTextFormat(std::string_view head, const std::string& name) {
  if (HasCsvName(name)) return DataFormat::kCsv;
  const std::string_view first = FirstNonBlankLine(head);
  if (HasLabelToken(first)) return DataFormat::kFasttext;
  // A '|' with spaces is VW's (its features are space-separated); without any, a pipe-separated
  // table (a|b|c).
  if (first.find('|') != std::string_view::npos) {
    return first.find_first_of(" \t") != std::string_view::npos ? DataFormat::kVw
                                                                  : DataFormat::kCsv;
  }
  std::string_view line = head.substr(0, head.find('\n'));
  line = line.substr(0, line.find('#'));
  if (line.find_first_of(",\t;") != std::string_view::npos &&
      line.find(':') == std::string_view::npos) {
    return DataFormat::kCsv;
  }
  return DataFormat::kLibsvm;
}

// `in` (a gzip-compressed file or standard input, `head` what was read of it first) read as
// `format`: parsed as it streams where its reader can, else read whole and parsed.
Dataset ReadStream(data_internal::ByteStream& in, std::string head, const std::string& name,
                   DataFormat format, const LoadOptions& options) {
  LoadOptions read = options;
  read.format = format;
  const data_internal::FormatReader& reader = data_internal::ReaderOf(format);
  if (reader.stream != nullptr) {
    return ApplyMaxFeatures(reader.stream(in, std::move(head), name, read), options.max_features);
  }
  data_internal::ReadRest(in, head);
  return ApplyMaxFeatures(reader.parse(head, name, read), options.max_features);
}

// The format of standard input (`in`, just opened) as `given` says, or told from its first bytes,
// read into `head`.
DataFormat StdinFormat(data_internal::ByteStream& in, DataFormat given, std::string& head) {
  head.assign(std::size_t{1} << 16, '\0');
  head.resize(in.Read(head.data(), head.size()));
  if (given != DataFormat::kAuto) return given;
  return DetectTextFormat(std::string_view(head).substr(0, 4096), "");
}

// The rows of `parts` one after another, as one data set named `name`: the widest feature count
// (CSV parts must agree), class names the union of the parts' (a part's numbers named by their
// text, as NameClasses does), weights where any part has them. The parts were read alike (one
// format, one hashing, one index base).
Dataset Concatenate(const std::vector<Dataset>& parts, const std::string& name) {
  uint64_t rows = 0, nnz = 0, features = 0, unseen = 0;
  bool named = false, weighted = false;
  for (const Dataset& d : parts) {
    unseen += d.unseen_values();
    rows += d.rows();
    nnz += d.nnz();
    features = std::max(features, d.features());
    named |= !d.class_names().empty();
    weighted |= !d.weights().empty();
  }
  std::vector<std::string> names;
  if (named) {
    for (const Dataset& d : parts) {
      if (!d.class_names().empty()) {
        names.insert(names.end(), d.class_names().begin(), d.class_names().end());
      } else {
        for (uint64_t i = 0; i < d.rows(); ++i) names.push_back(ShortestText(d.label(i) + 0.f));
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  auto index_of = [&](const std::string& n) {
    return static_cast<float>(std::lower_bound(names.begin(), names.end(), n) - names.begin());
  };
  AlignedArray<uint64_t> offsets(rows + 1);
  AlignedArray<uint32_t> indices(nnz);
  AlignedArray<float> values(nnz), labels(rows), weights(weighted ? rows : 0);
  offsets[0] = 0;
  uint64_t row = 0, entry = 0;
  for (const Dataset& d : parts) {
    std::copy(d.indices().data(), d.indices().data() + d.nnz(), indices.data() + entry);
    std::copy(d.values().data(), d.values().data() + d.nnz(), values.data() + entry);
    for (uint64_t i = 0; i < d.rows(); ++i) {
      offsets[row + i + 1] = entry + d.offsets()[i + 1];
      const float y = d.label(i);
      labels[row + i] = !named                      ? y
                        : !d.class_names().empty() ? index_of(d.class_names()[static_cast<std::size_t>(y)])
                                                    : index_of(ShortestText(y + 0.f));
      if (weighted) weights[row + i] = d.weights().empty() ? 1.f : d.weights()[i];
    }
    row += d.rows();
    entry += d.nnz();
  }
  Dataset::Parts out = parts.front().parts();
  out.offsets = SharedArray<uint64_t>(std::move(offsets));
  out.indices = SharedArray<uint32_t>(std::move(indices));
  out.values = SharedArray<float>(std::move(values));
  out.labels = SharedArray<float>(std::move(labels));
  out.weights = weighted ? SharedArray<float>(std::move(weights)) : SharedArray<float>();
  out.features = features;
  out.source = name;
  out.mapping = nullptr;
  out.class_names = std::move(names);
  out.unseen_values = unseen;
  return Dataset(std::move(out));
}

// The CSV files of a list as parts of one table: the same feature columns (by count, and by name
// where they have a header), categorical in every file or in none, each part's one-hot features
// renumbered for the union of the parts' values (data/csv_schema.hpp), the merged schema theirs.
void AlignCsvParts(std::vector<Dataset>& parts) {
  std::vector<std::pair<std::string, const CsvSchema*>> schemas;
  for (const Dataset& d : parts) schemas.emplace_back(d.source(), d.csv_schema().get());
  const CsvSchema merged = csv_internal::MergeSchemas(schemas);
  if (!merged.HasCategorical() || merged.hash_bits != 0) return;
  const auto shared = std::make_shared<const CsvSchema>(merged);
  for (Dataset& d : parts) {
    // Feature f of the part -> feature of the merged layout (ascending: order is kept).
    const CsvSchema& own = *d.csv_schema();
    std::vector<uint32_t> map(own.Features());
    uint64_t next_own = own.columns.size(), next_merged = merged.columns.size();
    for (uint64_t c = 0; c < own.columns.size(); ++c) {
      map[c] = static_cast<uint32_t>(c);
      if (!own.columns[c].categorical) continue;
      const std::vector<std::string>& all = merged.columns[c].values;
      for (const std::string& value : own.columns[c].values) {
        map[next_own++] = static_cast<uint32_t>(
            next_merged + (std::lower_bound(all.begin(), all.end(), value) - all.begin()));
      }
      next_merged += all.size();
    }
    AlignedArray<uint32_t> indices(d.nnz());
    for (uint64_t e = 0; e < d.nnz(); ++e) indices[e] = map[d.indices()[e]];
    Dataset::Parts renumbered = d.parts();
    renumbered.indices = SharedArray<uint32_t>(std::move(indices));
    renumbered.features = merged.Features();
    renumbered.csv_schema = shared;
    d = Dataset(std::move(renumbered));
  }
}

// The format of a comma-separated list `name` of files: given, or each file's detected, which
// must agree; throws for standard input or IDX in a list.
DataFormat ListFormat(const std::vector<std::string>& files, const std::string& name,
                      const LoadOptions& options) {
  DataFormat format = options.format;
  for (const std::string& file : files) {
    if (file.empty() || file == data_internal::kStdin) {
      throw Error(fmt::format("{}: a list of files holds names of files ('{}' is not one)", name,
                              file));
    }
    const DataFormat detected =
        options.format != DataFormat::kAuto ? options.format : DetectDataFormat(file);
    if (!FormatOf(detected).in_list) {
      throw Error(fmt::format("{}: {} is {}; a list of files reads text or binary caches", name,
                              file, FormatOf(detected).what));
    }
    if (format == DataFormat::kAuto) format = detected;
    if (detected != format) {
      throw Error(fmt::format("{}: {} is {} but {} is {}: the files of a list share a format",
                              name, files.front(), DataFormatName(format), file,
                              DataFormatName(detected)));
    }
  }
  return format;
}

// LoadDataset of a comma-separated list of files: each read in the format given or detected
// (the same for all), LIBSVM's index base decided for the whole list, the rows concatenated.
Dataset LoadSeveral(const std::vector<std::string>& files, const std::string& name,
                    const LoadOptions& options);

// LoadDataset's data before a CSV table's missing values are filled in (each a NaN entry: a list's
// files are filled in once joined, as one table).
Dataset ReadData(const std::string& path, const LoadOptions& options) {
  if (path == data_internal::kStdin) {
    data_internal::ByteStream in(path);
    std::string head;
    const DataFormat format = StdinFormat(in, options.format, head);
    return ReadStream(in, std::move(head), "standard input", format, options);
  }
  if (const std::vector<std::string> files = SeveralFiles(path); !files.empty()) {
    return LoadSeveral(files, path, options);
  }
  LoadOptions read = options;
  if (read.format == DataFormat::kAuto) read.format = DetectDataFormat(path);
  return ApplyMaxFeatures(data_internal::ReaderOf(read.format).file(path, read),
                          options.max_features);
}

// `data` with a CSV table's missing values filled in under options.missing: by the fills of
// options.csv_schema (a file read as the training data was), else learnt from its rows.
Dataset Filled(const Dataset& data, const LoadOptions& options) {
  if (!Imputes(options.missing) || data.csv_schema() == nullptr) return data;
  return ApplyMaxFeatures(
      csv_internal::FillMissing(data, options.missing, options.csv_schema == nullptr),
      options.max_features);
}

// The centres of a CSV table's rows `data` (read, its missing values filled in): those of
// options.csv_schema (a file read as the training data was), else learnt under options.center
// from its rows, with every rank's where `ranks` is given (collective: `data` a rank's share).
std::vector<float> CentresFor(const Dataset& data, const LoadOptions& options,
                              Communicator* ranks = nullptr) {
  if (options.csv_schema != nullptr) return options.csv_schema->centres;
  if (options.center == CsvCenter::kNone) return {};
  std::vector<double> moments = csv_internal::ColumnMoments(data);
  if (ranks != nullptr) ranks->SumAll(moments);
  return csv_internal::CentresOf(moments, *data.csv_schema(), options.center);
}

// `data`, read and its missing values filled in, with its number columns centred (CentresFor).
Dataset Centred(const Dataset& data, const LoadOptions& options) {
  if (data.csv_schema() == nullptr) return data;
  return csv_internal::CentreColumns(data, CentresFor(data, options));
}

Dataset LoadSeveral(const std::vector<std::string>& files, const std::string& name,
                    const LoadOptions& options) {
  const DataFormat format = ListFormat(files, name, options);
  LoadOptions each = options;
  each.format = format;
  each.max_features = 0;  // applied to the whole
  std::vector<Dataset> parts;
  for (const std::string& file : files) parts.push_back(ReadData(file, each));
  if (format == DataFormat::kLibsvm && options.zero_based == ZeroBased::kAuto) {
    // One index base for the whole list: zero-based where any file has an index 0.
    const bool zero = std::any_of(parts.begin(), parts.end(), [](const Dataset& d) {
      return d.zero_based() == ZeroBased::kYes;
    });
    if (zero) {
      each.zero_based = ZeroBased::kYes;
      for (std::size_t i = 0; i < files.size(); ++i) {
        if (parts[i].zero_based() != ZeroBased::kYes) parts[i] = ReadData(files[i], each);
      }
    }
  }
  if (format == DataFormat::kCsv && !options.csv_schema) AlignCsvParts(parts);
  return ApplyMaxFeatures(Concatenate(parts, name), options.max_features);
}

}  // namespace

uint64_t data_internal::FeaturesGiven(const std::string& name, uint64_t features,
                                      uint64_t max_features) {
  if (max_features == 0) return features;
  if (features > max_features) {
    throw Error(
        fmt::format("{}: the dataset has {} features, more than the feature count given "
                    "(--features) {}",
                    name, features, max_features));
  }
  return max_features;
}

std::vector<std::string> SeveralFiles(const std::string& path) {
  if (IsCommaPair(path)) return {};
  return CommaParts(path);
}

bool IsSeveralFiles(const std::string& path) { return !SeveralFiles(path).empty(); }

DataFormat DetectDataFormat(const std::string& path) {
  if (path == data_internal::kStdin) return DataFormat::kAuto;  // known once read
  if (IsCommaPair(path)) return DataFormat::kIdx;
  if (const std::vector<std::string> files = SeveralFiles(path); !files.empty()) {
    return DetectDataFormat(files.front());  // LoadDataset checks the others agree
  }
  // A missing file, a folder, ...: the reader says what is wrong with it.
  if (!fs::is_regular_file(path)) return DataFormat::kLibsvm;
  if (HasBinaryCacheMagic(path)) return DataFormat::kBinary;
  if (HasIdxMagic(path)) return DataFormat::kIdx;
  data_internal::ByteStream stream(path);
  std::string head(4096, '\0');
  head.resize(stream.Read(head.data(), head.size()));
  // data.csv.gz is CSV text, compressed.
  const std::string name =
      stream.compressed() && path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
  return DetectTextFormat(head, name);
}

bool IsGzipFile(const std::string& path) { return data_internal::IsGzip(path); }

DataFormat FormatRead(const std::string& path, DataFormat given, const Dataset& data) {
  if (given != DataFormat::kAuto) return given;
  if (path != data_internal::kStdin) return DetectDataFormat(path);
  if (data.hashing()) {
    return IsVw(data.hashing()->format) ? DataFormat::kVw : DataFormat::kFasttext;
  }
  return data.zero_based() == ZeroBased::kAuto ? DataFormat::kCsv : DataFormat::kLibsvm;
}

Dataset LoadDataset(const std::string& path, const LoadOptions& options) {
  return Centred(Filled(ReadData(path, options), options), options);
}

CacheShape ConvertToCache(const std::string& input, const LoadOptions& options,
                          const std::string& output) {
  std::vector<std::string> inputs = SeveralFiles(input);
  std::unique_ptr<data_internal::ByteStream> begun;
  std::string head;
  DataFormat format = options.format;
  if (!inputs.empty()) {
    format = ListFormat(inputs, input, options);
  } else if (input == data_internal::kStdin) {
    begun = std::make_unique<data_internal::ByteStream>(input);
    format = StdinFormat(*begun, options.format, head);
    inputs = {input};
  } else {
    if (format == DataFormat::kAuto) format = DetectDataFormat(input);
    inputs = {input};
  }
  LoadOptions given = options;
  given.format = format;
  // Filling missing values in needs each column's values first: the table is read whole.
  if (const auto convert = data_internal::ReaderOf(format).convert;
      convert != nullptr && !Imputes(given.missing)) {
    return convert(inputs, input, given, output, begun.get(), std::move(head));
  }
  SaveDataset(begun ? Filled(ReadStream(*begun, std::move(head), "standard input", format, given),
                             given)
                    : LoadDataset(input, given),
              output);
  return ReadBinaryCacheShape(output);
}

Dataset RowRange(const Dataset& data, uint64_t first, uint64_t last) {
  AlignedArray<uint64_t> offsets(last - first + 1);
  const uint64_t base = data.offsets()[first];
  for (uint64_t r = first; r <= last; ++r) offsets[r - first] = data.offsets()[r] - base;
  const uint64_t entries = data.offsets()[last] - base;
  Dataset::Parts parts = data.parts();
  parts.offsets = SharedArray<uint64_t>(std::move(offsets));
  parts.indices = data.indices().Slice(base, entries);
  parts.values = data.values().Slice(base, entries);
  parts.labels = data.labels().Slice(first, last - first);
  if (!data.weights().empty()) parts.weights = data.weights().Slice(first, last - first);
  return Dataset(std::move(parts));
}

Dataset LoadShard(const std::string& path, const LoadOptions& options, Communicator& comm) {
  if (comm.size() == 1) return LoadDataset(path, options);
  if (path == data_internal::kStdin) {
    throw Error("standard input across ranks: each rank would read its own; give a file");
  }
  DataFormat format = options.format;
  comm.AgreeOn([&] {
    if (format == DataFormat::kAuto) format = DetectDataFormat(path);
  });
  LoadOptions whole = options;
  whole.format = format;
  if (const auto share = data_internal::ReaderOf(format).share;
      share != nullptr && !data_internal::IsGzip(path) && !IsSeveralFiles(path)) {
    const Dataset read = share(path, whole, comm);
    Dataset out;
    comm.AgreeOn([&] { out = ApplyMaxFeatures(read, options.max_features); });
    if (out.csv_schema() == nullptr) return out;
    // A table's centres are learnt from every rank's share (a binary cache of CSV text).
    const std::vector<float> centres = CentresFor(out, options, &comm);
    comm.AgreeOn([&] { out = csv_internal::CentreColumns(out, centres); });
    return out;
  }
  Dataset all;
  comm.AgreeOn([&] { all = LoadDataset(path, whole); });
  const auto [first, last] = ShardRange(all.rows(), comm.rank(), comm.size());
  return RowRange(all, first, last);
}

void SaveDataset(const Dataset& data, const std::string& path) {
  const bool cache = path.ends_with(".bin");
  if (data.csv_schema() && data.csv_schema()->HasCategorical() && !cache) {
    // A model trained from the columns would not know how to encode new rows' values.
    throw Error(
        fmt::format("{}: {} has categorical columns, whose values LIBSVM text does not "
                    "record: write the binary cache (a name ending in .bin)",
                    path, data.source()));
  }
  if (data.hashing() && !cache) {
    // A model trained from the columns would not know how to hash new text.
    throw Error(fmt::format(
        "{}: {} is hashed text ({}), whose hashing LIBSVM text does not "
        "record: write the binary cache (a name ending in .bin)",
        path, data.source(), IsVw(data.hashing()->format) ? "VW" : "fastText"));
  }
  if (!data.weights().empty() && !cache) {
    throw Error(
        fmt::format("{}: the rows of {} have weights, which LIBSVM text does not hold: "
                    "write the binary cache (a name ending in .bin)",
                    path, data.source()));
  }
  if (!data.class_names().empty() && !cache) {
    // LIBSVM text holds a number a label: the names would be lost, the classes renumbered.
    throw Error(fmt::format(
        "{}: the labels of {} are class names ({}{}{}), which LIBSVM text does not hold: write "
        "the binary cache (a name ending in .bin)",
        path, data.source(), data.class_names().front(),
        data.class_names().size() > 1 ? ", " + data.class_names()[1] : "",
        data.class_names().size() > 2 ? ", ..." : ""));
  }
  if (path.ends_with(".bin")) {
    WriteBinaryCache(data, path);
  } else {
    WriteLibsvm(data, path);
  }
}

}  // namespace parsgd
