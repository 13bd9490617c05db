// StreamCsvToCache: CSV files (gzip-compressed or not, a list, standard input) to a binary cache
// with bounded memory. A CSV table's reading is decided by its whole text (a column of numbers
// and text is categorical throughout, a first line whose only text is its label is a header when
// no other row has that label, the one-hot values are sorted), so each file is read in passes, a
// few pieces of text at a time: a survey of its column kinds, label and categorical values
// (again where a column turns out to mix numbers and text: its numbers are then values too), then
// the rows, encoded by the table's schema and spilled (cache_rows.hpp). What is held besides the
// pieces: the categorical values (one-hot; none where hashed) and the class names. Standard input
// cannot be read twice: it is copied first to an unnamed temporary file beside the output.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "data/cache/cache_rows.hpp"
#include "data/format/csv_categorical.hpp"
#include "data/format/csv_chunk.hpp"
#include "data/format/csv_plan.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "data/format/stream_readers.hpp"

namespace parsgd::data_internal {
namespace {

using csv_internal::CsvPlan;
using csv_internal::CsvSurvey;
using csv_internal::FirstLineIs;

// A file of the table: what to open for each pass, and its name in messages.
struct CsvFile {
  std::string open, name;
};

// A pass over a file: the stream, and the text read first (from its start, a byte order mark
// dropped, to the end of its first line that is not blank and the line break after it, at least).
struct Pass {
  std::unique_ptr<ByteStream> in;
  std::string head;
};

Pass Open(const CsvFile& file) {
  Pass pass{std::make_unique<ByteStream>(file.open), {}};
  bool bom = false;
  pass.head = csv_internal::ReadHead(*pass.in, &bom);
  return pass;
}

// A file's plan, the survey of its rows by it, and whether its first line is a header.
struct Surveyed {
  CsvPlan plan;
  bool is_header = false;
};

CsvSurvey Survey(const CsvFile& file, const CsvPlan& plan, bool collect, std::size_t step) {
  Pass pass = Open(file);
  CsvSurvey survey(plan.schema.columns.size(), collect);
  const auto parse = [&](std::string_view piece, Chunk* c) {
    csv_internal::ParseChunk(piece, plan.shape, c);
  };
  if (plan.first_may_be_data()) {
    Chunk head;
    parse(std::string_view(pass.head).substr(0, plan.first.next), &head);
    if (head.error) {
      throw DataError(file.name, 1 + head.error->line, head.error->column, head.error->message);
    }
    survey.AddHead(head, plan.is == FirstLineIs::kData);
  }
  StreamFile(*pass.in, pass.head.substr(plan.first.next), file.name, plan.first.line + 1, parse,
             step, [&](Chunk& chunk) { survey.Add(chunk); });
  return survey;
}

// A file read by itself (CsvOptions without a schema), surveyed to its end.
Surveyed SurveyFile(const CsvFile& file, const CsvOptions& options, std::size_t step) {
  Surveyed out{csv_internal::PlanCsv(Open(file).head, file.name, options)};
  const bool collect = options.category_hash_bits == 0;
  CsvSurvey survey = Survey(file, out.plan, collect, step);
  if (options.categorical_auto && csv_internal::MarkMixedColumns(out.plan, survey)) {
    survey = Survey(file, out.plan, collect, step);
  }
  out.is_header = csv_internal::FirstLineIsHeader(out.plan, survey, file.name);
  if (!survey.any_row() && (out.is_header || !survey.head_row())) {
    throw DataError(file.name, 0, 0, "no data rows: the file has only a header line");
  }
  csv_internal::FinishSchema(out.plan, survey, out.is_header, options, file.name);
  return out;
}

// Standard input (`in`, `head` read from it first) copied to `copy`, to be read again.
void CopyStandardInput(ByteStream& in, const std::string& head, Spill& copy) {
  copy.Append(std::vector<char>(head.begin(), head.end()));
  std::vector<char> buffer(kCopyBytes);
  for (;;) {
    buffer.resize(kCopyBytes);
    buffer.resize(in.Read(buffer.data(), buffer.size()));
    if (buffer.empty()) break;
    copy.Append(buffer);
  }
  if (in.cut_short()) {
    throw DataError("standard input", 0, 0,
                    "the gzip stream ends early, after " + std::to_string(in.offset()) +
                        " bytes: the stream is cut short");
  }
}

}  // namespace

CacheShape StreamCsvToCache(const std::vector<std::string>& inputs, const CsvOptions& options,
                            uint64_t max_features, std::size_t chunk_bytes, const std::string& path,
                            ByteStream* begun, const std::string& head) {
  if (inputs.empty()) throw Error(path + ": no input to convert");
  AtomicFileWriter out(path);  // an unwritable destination fails before any reading
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const std::size_t step = chunk_bytes != 0 ? chunk_bytes : std::size_t{2} << 20;
  std::optional<Spill> copy;  // of standard input
  std::vector<CsvFile> files;
  for (const std::string& input : inputs) {
    if (input != kStdin) {
      files.push_back({input, input});
      continue;
    }
    std::optional<ByteStream> own;
    ByteStream* in = begun;
    if (in == nullptr) in = &own.emplace(input);
    CopyStandardInput(*in, begun != nullptr ? head : std::string(), copy.emplace(folder.string()));
    files.push_back({copy->Reread(), "standard input"});
  }
  std::vector<Surveyed> surveyed;
  for (const CsvFile& file : files) surveyed.push_back(SurveyFile(file, options, step));
  std::vector<std::pair<std::string, const CsvSchema*>> parts;
  for (std::size_t i = 0; i < files.size(); ++i) {
    parts.emplace_back(files[i].name, &surveyed[i].plan.schema);
  }
  const auto schema = std::make_shared<const CsvSchema>(csv_internal::MergeSchemas(parts));
  const std::string name = files.size() == 1 ? files[0].name : inputs[0] + ",...";
  if (options.category_hash_bits != 0 && !schema->HasCategorical()) {
    throw Error(
        fmt::format("--hash-bits would be ignored: it hashes the values of categorical "
                    "columns, and {} has none (every feature column holds numbers)",
                    name));
  }
  const bool weighted = !options.weight_column.empty();
  CacheRows rows(folder.string(), weighted);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const CsvPlan& plan = surveyed[i].plan;
    const bool is_header = surveyed[i].is_header;
    Pass pass = Open(files[i]);
    const auto parse = [&](std::string_view piece, Chunk* c) {
      csv_internal::ParseChunk(piece, plan.shape, c);
      if (!c->error && schema->HasCategorical()) csv_internal::EncodeCategories(*c, *schema, false);
    };
    StreamFile(*pass.in, is_header ? pass.head.substr(plan.first.next) : std::move(pass.head),
               files[i].name, is_header ? plan.first.line + 1 : 1, parse, step,
               [&](Chunk& chunk) { rows.Take(chunk, files[i].name); });
  }
  rows.NameClasses(name);
  cache_internal::Record record;
  record.csv_schema = schema;
  record.csv_reading = {options.label_column, options.weight_column, options.missing};
  return WriteCache(rows, FeaturesGiven(name, schema->Features(), max_features), ZeroBased::kAuto,
                    0, std::move(record), out, path);
}

}  // namespace parsgd::data_internal
