#include "data/format/format_readers.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "parsgd/data/csv.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/data/idx.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/vw.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/split.hpp"
#include "data/format/stream_readers.hpp"

namespace parsgd::data_internal {
namespace fs = std::filesystem;

// The files of a comma-separated list that is not itself a file's name; empty for one path.
std::vector<std::string> CommaParts(const std::string& path) {
  if (path.find(',') == std::string::npos || fs::exists(path)) return {};
  return SplitAtCommas(path);
}

// Standard input is text, never IDX: "-,b.csv" is a list.
bool IsCommaPair(const std::string& path) {
  const std::vector<std::string> parts = CommaParts(path);
  return parts.size() == 2 && parts[0] != kStdin && parts[1] != kStdin &&
         (!fs::is_regular_file(parts[0]) || HasIdxMagic(parts[0]));
}

namespace {

// The images and labels files of `path`; with `labels_optional`, a labels file not found is "".
std::pair<std::string, std::string> IdxPaths(const std::string& path, bool labels_optional) {
  if (IsCommaPair(path)) {
    const std::size_t comma = path.find(',');
    return {path.substr(0, comma), path.substr(comma + 1)};
  }
  const fs::path images(path);
  std::string name = images.filename().string();
  const std::size_t at = name.find("images-idx3");
  if (labels_optional &&
      (at == std::string::npos ||
       !fs::exists(images.parent_path() / std::string(name).replace(at, 11, "labels-idx1")))) {
    return {path, ""};
  }
  if (at == std::string::npos) {
    throw Error(path +
                ": cannot derive the IDX labels file: the name has no 'images-idx3' to "
                "replace by 'labels-idx1'; give IMAGES,LABELS");
  }
  name.replace(at, 11, "labels-idx1");
  const std::string labels = (images.parent_path() / name).string();
  if (!fs::exists(labels)) {
    throw Error(path + ": IDX labels file not found: looked for '" + labels +
                "'; give IMAGES,LABELS");
  }
  return {path, labels};
}

// Same arrays, `features` columns (>= the dataset's).
Dataset WithFeatures(const Dataset& d, uint64_t features) {
  Dataset::Parts parts = d.parts();
  parts.features = features;
  return Dataset(std::move(parts));
}

}  // namespace

Dataset ApplyMaxFeatures(const Dataset& d, uint64_t max_features) {
  const uint64_t features = FeaturesGiven(d.source(), d.features(), max_features);
  return features == d.features() ? d : WithFeatures(d, features);
}

namespace {

// The text readers' options of `options`.
LibsvmOptions LibsvmOptionsOf(const LoadOptions& options) {
  return {.max_features = options.max_features,
          .zero_based = options.zero_based,
          .zero_based_note = options.zero_based_note,
          .chunk_bytes = options.chunk_bytes};
}
FasttextOptions FasttextOptionsOf(const LoadOptions& options) {
  return {.hashing = options.hashing,
          .labels_optional = options.labels_optional,
          .chunk_bytes = options.chunk_bytes};
}
VwOptions VwOptionsOf(const LoadOptions& options) {
  return {.hashing = options.hashing,
          .labels_optional = options.labels_optional,
          .chunk_bytes = options.chunk_bytes};
}
CsvOptions CsvOptionsOf(const LoadOptions& options) {
  return {.header = options.header,
          .delimiter = options.delimiter,
          .label_column = options.label_column,
          .label_column_note = options.label_column_note,
          .missing = options.missing,
          .weight_column = options.weight_column,
          .ignore_columns = options.ignore_columns,
          .weight_column_optional = options.weight_column_optional,
          .labels_optional = options.labels_optional,
          .label_by_schema = options.label_by_schema,
          .categorical_auto = options.categorical_auto,
          .categorical = options.categorical,
          .category_hash_bits = options.category_hash_bits,
          .schema = options.csv_schema,
          .schema_source = options.csv_schema_source,
          .chunk_bytes = options.chunk_bytes};
}


// Refused for the formats read from files only (IDX, the binary cache) on standard input.
Dataset NotText(std::string_view, const std::string& name, const LoadOptions& options) {
  throw Error(fmt::format("{}: the {} format is read from files only ({}): give a path", name,
                          FormatOf(options.format).name, FormatOf(options.format).what));
}

CacheShape ConvertText(const std::vector<std::string>& inputs, const LoadOptions& options,
                       const std::string& output, ByteStream* begun, std::string head,
                       CachedText text) {
  text.max_features = options.max_features;
  text.chunk_bytes = options.chunk_bytes;
  return StreamToCache(inputs, text, output, begun, std::move(head));
}

// The text formats that parse as they stream: `Stream` on a stream, and on a gzip-compressed file
// as it inflates; `File` on a plain file.
Dataset LibsvmStream(ByteStream& in, std::string head, const std::string& name,
                     const LoadOptions& o) {
  return ReadLibsvmFrom(in, std::move(head), name, LibsvmOptionsOf(o));
}
Dataset FasttextStream(ByteStream& in, std::string head, const std::string& name,
                       const LoadOptions& o) {
  return ReadFasttextFrom(in, std::move(head), name, FasttextOptionsOf(o));
}
Dataset VwStream(ByteStream& in, std::string head, const std::string& name,
                 const LoadOptions& o) {
  return ReadVwFrom(in, std::move(head), name, VwOptionsOf(o));
}
template <auto kStream, auto kFile>
Dataset TextFile(const std::string& path, const LoadOptions& options) {
  if (!IsGzip(path)) return kFile(path, options);
  ByteStream in(path);
  return kStream(in, {}, path, options);
}
Dataset LibsvmFile(const std::string& path, const LoadOptions& o) {
  return ReadLibsvm(path, LibsvmOptionsOf(o));
}
Dataset FasttextFile(const std::string& path, const LoadOptions& o) {
  return ReadFasttext(path, FasttextOptionsOf(o));
}
Dataset VwFile(const std::string& path, const LoadOptions& o) {
  return ReadVw(path, VwOptionsOf(o));
}

const FormatReader kLibsvmReader{
    .parse = [](std::string_view text, const std::string& name, const LoadOptions& o) {
      return ParseLibsvm(text, name, LibsvmOptionsOf(o));
    },
    .stream = LibsvmStream,
    .file = TextFile<LibsvmStream, LibsvmFile>,
    .share = [](const std::string& path, const LoadOptions& o, Communicator& comm) {
      return ReadLibsvmShard(path, LibsvmOptionsOf(o), comm);
    },
    .convert = [](const std::vector<std::string>& inputs, const std::string&,
                  const LoadOptions& o, const std::string& output, ByteStream* begun,
                  std::string head) {
      return ConvertText(inputs, o, output, begun, std::move(head),
                         CachedText{.libsvm = LibsvmOptionsOf(o), .lines = {}});
    }};

const FormatReader kCsvReader{
    .parse = [](std::string_view text, const std::string& name, const LoadOptions& o) {
      return ParseCsv(text, name, CsvOptionsOf(o));
    },
    // Read whole first: a column of numbers and text is read twice, and standard input cannot be
    // read again (a compressed CSV file is parsed as it inflates by ReadCsv, which opens it
    // again for that).
    .stream = nullptr,
    .file = [](const std::string& path, const LoadOptions& o) {
      return ReadCsv(path, CsvOptionsOf(o));
    },
    .share = nullptr,
    .convert = [](const std::vector<std::string>& inputs, const std::string&,
                  const LoadOptions& o, const std::string& output, ByteStream* begun,
                  std::string head) {
      CsvOptions csv = CsvOptionsOf(o);
      csv.chunk_bytes = o.chunk_bytes;
      return StreamCsvToCache(inputs, csv, o.max_features, o.chunk_bytes, output, begun, head);
    }};

const FormatReader kFasttextReader{
    .parse = [](std::string_view text, const std::string& name, const LoadOptions& o) {
      return ParseFasttext(text, name, FasttextOptionsOf(o));
    },
    .stream = FasttextStream,
    .file = TextFile<FasttextStream, FasttextFile>,
    .share = [](const std::string& path, const LoadOptions& o, Communicator& comm) {
      return ReadLinesShard(path, FasttextLines(FasttextOptionsOf(o)), o.chunk_bytes, comm);
    },
    .convert = [](const std::vector<std::string>& inputs, const std::string&,
                  const LoadOptions& o, const std::string& output, ByteStream* begun,
                  std::string head) {
      return ConvertText(inputs, o, output, begun, std::move(head),
                         CachedText{.libsvm = std::nullopt, .lines = FasttextLines(FasttextOptionsOf(o))});
    }};

const FormatReader kVwReader{
    .parse = [](std::string_view text, const std::string& name, const LoadOptions& o) {
      return ParseVw(text, name, VwOptionsOf(o));
    },
    .stream = VwStream,
    .file = TextFile<VwStream, VwFile>,
    .share = [](const std::string& path, const LoadOptions& o, Communicator& comm) {
      return ReadLinesShard(path, VwLines(VwOptionsOf(o)), o.chunk_bytes, comm);
    },
    .convert = [](const std::vector<std::string>& inputs, const std::string&,
                  const LoadOptions& o, const std::string& output, ByteStream* begun,
                  std::string head) {
      return ConvertText(inputs, o, output, begun, std::move(head),
                         CachedText{.libsvm = std::nullopt, .lines = VwLines(VwOptionsOf(o))});
    }};

const FormatReader kIdxReader{
    .parse = NotText,
    .stream = nullptr,
    .file = [](const std::string& path, const LoadOptions& o) {
      const auto [images, labels] = IdxPaths(path, o.labels_optional);
      return ReadIdx(images, labels);
    },
    .share = nullptr,
    .convert = [](const std::vector<std::string>&, const std::string& input,
                  const LoadOptions& o, const std::string& output, ByteStream*, std::string) {
      const auto [images, labels] = IdxPaths(input, o.labels_optional);
      return StreamIdxToCache(images, labels, o.max_features, output);
    }};

const FormatReader kBinaryReader{
    .parse = NotText,
    .stream = nullptr,
    .file = [](const std::string& path, const LoadOptions&) { return ReadBinaryCache(path); },
    .share = [](const std::string& path, const LoadOptions&, Communicator& comm) {
      return ReadBinaryCacheShard(path, comm);
    },
    .convert = nullptr};

}  // namespace

const FormatReader& ReaderOf(DataFormat format) {
  switch (format) {
    case DataFormat::kLibsvm:
      return kLibsvmReader;
    case DataFormat::kCsv:
      return kCsvReader;
    case DataFormat::kFasttext:
      return kFasttextReader;
    case DataFormat::kVw:
      return kVwReader;
    case DataFormat::kIdx:
      return kIdxReader;
    case DataFormat::kBinary:
      return kBinaryReader;
    case DataFormat::kAuto:
      break;
  }
  throw Error("no reader for the format auto: detect it first");
}

}  // namespace parsgd::data_internal
