// ParseCsv: the first line (header or not, the field count, the label column) serially, then the
// data lines in parallel chunks through the text readers' shared machinery; a gzip-compressed file
// parsed as it inflates.
#include "parsgd/data/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "data/format/csv_categorical.hpp"
#include "data/format/csv_chunk.hpp"
#include "data/format/csv_plan.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using csv_internal::CsvPlan;
using csv_internal::CsvSurvey;
using csv_internal::FieldKind;
using csv_internal::FieldRole;
using csv_internal::FindFirstLine;
using csv_internal::FirstLine;
using csv_internal::FirstLineIs;
using csv_internal::RowShape;
using data_internal::Chunk;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// The fields of a header line: trimmed, quotes ("a,b", "" for a quote) removed.
std::vector<std::string> SplitNames(std::string_view line, char delimiter, const std::string& name,
                                    uint64_t line_number) {
  std::vector<std::string> names(1);
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == delimiter) {
      names.emplace_back();
    } else if (c == '"' && Trim(names.back()).empty()) {
      const std::size_t open = i;
      names.back().clear();
      for (++i;; ++i) {
        if (i == line.size()) {
          throw DataError(name, line_number, open + 1, "unterminated quoted column name");
        }
        if (line[i] == '"' && (i + 1 == line.size() || line[i + 1] != '"')) break;
        if (line[i] == '"') ++i;  // "" is one quote
        names.back() += line[i];
      }
    } else {
      names.back() += c;
    }
  }
  for (std::string& n : names) n = std::string(Trim(n));
  return names;
}

bool IsNumber(std::string_view field) {
  field = Trim(field);
  float value;
  const char* end = field.data() + field.size();
  return !field.empty() && data_internal::ParseFloat(field.data(), end, &value) == end;
}

// A field of a line as written: its text (trimmed; inside the quotes, "" not undone, where quoted).
struct RawField {
  std::string_view text;
  bool quoted;
};

// The fields of a line: split at the delimiter outside double quotes. An unterminated quote runs
// to the line's end (SplitNames reports it).
std::vector<RawField> SplitFields(std::string_view line, char delimiter) {
  std::vector<RawField> fields;
  std::size_t at = 0;
  for (;;) {
    std::size_t begin = at;
    while (begin < line.size() && line[begin] != delimiter && IsBlank(line[begin]) &&
           !(delimiter == '\t' && line[begin] == '\t')) {
      ++begin;
    }
    std::size_t end = begin;
    bool quoted = begin < line.size() && line[begin] == '"';
    if (quoted) {
      for (end = begin + 1; end < line.size(); ++end) {
        if (line[end] != '"') continue;
        if (end + 1 < line.size() && line[end + 1] == '"') {
          ++end;
        } else {
          break;
        }
      }
      fields.push_back({line.substr(begin + 1, std::min(end, line.size()) - begin - 1), true});
      end = std::min(line.find(delimiter, std::min(end, line.size())), line.size());
    } else {
      end = std::min(line.find(delimiter, begin), line.size());
      fields.push_back({Trim(line.substr(begin, end - begin)), false});
    }
    if (end >= line.size()) return fields;
    at = end + 1;
  }
}

// The 0-based fields of a line that are not numbers (a quoted field is text).
std::vector<uint64_t> TextFields(const std::vector<RawField>& fields) {
  std::vector<uint64_t> text;
  for (uint64_t f = 0; f < fields.size(); ++f) {
    // A missing value stands where a number would: it makes no header.
    if (fields[f].quoted || !(IsNumber(fields[f].text) || IsMissingValue(fields[f].text))) {
      text.push_back(f);
    }
  }
  return text;
}

// Whether `column` (CsvOptions::label_column) names a column rather than giving its position.
bool IsColumnName(const std::string& column) {
  if (column.empty() || column == kNoLabelColumn) return false;
  long long position = 0;
  const char* end = column.data() + column.size();
  const auto [ptr, ec] = std::from_chars(column.data(), end, position);
  return ec != std::errc() || ptr != end;
}

// The fewest fields a line numbering the columns needs to be taken for a header: a narrow table's
// first row may well read 1,2,3.
constexpr uint64_t kNumberedHeaderFields = 5;

// Whether `line` is the column numbers 0, 1, ..., n - 1 or 1, 2, ..., n, at least
// kNumberedHeaderFields of them.
bool NumbersTheColumns(const std::vector<RawField>& fields) {
  std::vector<long long> numbers;
  for (const RawField& field : fields) {
    long long n = 0;
    const char* end = field.text.data() + field.text.size();
    const auto [ptr, ec] = std::from_chars(field.text.data(), end, n);
    if (field.quoted || ec != std::errc() || ptr != end) return false;
    numbers.push_back(n);
  }
  if (numbers.size() < kNumberedHeaderFields || (numbers[0] != 0 && numbers[0] != 1)) return false;
  for (std::size_t i = 1; i < numbers.size(); ++i) {
    if (numbers[i] != numbers[0] + static_cast<long long>(i)) return false;
  }
  return true;
}

// The field a column given by position names, among `fields`: 0-based, counted from the end where
// negative; an empty text is the first (the label's default). The range is checked elsewhere
// (LabelColumn, the ignored columns' check).
long long FieldAt(std::string_view position, std::size_t fields) {
  long long at = 0;
  std::from_chars(position.data(), position.data() + position.size(), at);
  return at < 0 ? at + static_cast<long long>(fields) : at;
}

FirstLineIs ClassifyFirstLine(std::string_view line, char delimiter, const CsvOptions& options) {
  if (options.header != CsvHeader::kAuto) {
    return options.header == CsvHeader::kYes ? FirstLineIs::kHeader : FirstLineIs::kData;
  }
  const std::vector<RawField> fields_of_line = SplitFields(line, delimiter);
  std::vector<uint64_t> text = TextFields(fields_of_line);
  // A column left out may hold any text: its field says nothing of the line (by position; a
  // column left out by name implies a header).
  for (const std::string& column : options.ignore_columns) {
    if (IsColumnName(column)) return FirstLineIs::kHeader;
    std::erase(text, static_cast<uint64_t>(FieldAt(column, fields_of_line.size())));
  }
  if (options.schema && !options.schema->named) {
    for (const CsvIgnored& left_out : options.schema->ignored) std::erase(text, left_out.field);
  }
  const bool no_label = options.label_column == kNoLabelColumn;
  if (text.empty()) {
    // Without a label column no row's label can tell a numbered header from a row: a header.
    if (!NumbersTheColumns(fields_of_line)) return FirstLineIs::kData;
    return no_label ? FirstLineIs::kHeader : FirstLineIs::kNumbered;
  }
  if (IsColumnName(options.label_column) || no_label) return FirstLineIs::kHeader;
  const long long label = FieldAt(options.label_column, fields_of_line.size());
  return text.size() == 1 && static_cast<long long>(text[0]) == label
             ? FirstLineIs::kHeaderIfLabelUnseen
             : FirstLineIs::kHeader;
}

// What the first line of a file read by a schema is (CsvHeader::kAuto): with a named schema, a
// header exactly when it has one of the schema's names (text in a categorical column is data);
// without, as ClassifyFirstLine says unless its only text is where the schema's categorical
// columns are by position.
FirstLineIs ClassifyBySchema(std::string_view line, char delimiter,
                             const std::vector<std::string>& names, const CsvOptions& options) {
  const CsvSchema& schema = *options.schema;
  if (schema.named) {
    for (const std::string& n : names) {
      if (n == schema.label_name) return FirstLineIs::kHeader;
      for (const CsvIgnored& left_out : schema.ignored) {
        if (!left_out.name.empty() && n == left_out.name) return FirstLineIs::kHeader;
      }
      for (const CsvColumn& column : schema.columns) {
        if (n == column.name) return FirstLineIs::kHeader;
      }
    }
    return FirstLineIs::kData;
  }
  const FirstLineIs is = ClassifyFirstLine(line, delimiter, options);
  if (is != FirstLineIs::kHeader ||
      names.size() != schema.columns.size() + 1 + schema.ignored.size()) {
    return is;
  }
  // Headerless training data, the label first or where given by position: the fields past it
  // are the columns in order.
  const std::vector<RawField> fields = SplitFields(line, delimiter);
  const long long label = FieldAt(options.label_column, fields.size());
  uint64_t column = 0;
  for (uint64_t f = 0; f < fields.size(); ++f) {
    if (static_cast<long long>(f) == label) continue;
    if (std::any_of(schema.ignored.begin(), schema.ignored.end(),
                    [&](const CsvIgnored& left_out) { return left_out.field == f; })) {
      continue;
    }
    if (column >= schema.columns.size()) return is;
    const bool text = fields[f].quoted ||
                      !(IsNumber(fields[f].text) || IsMissingValue(fields[f].text));
    if (text && !schema.columns[column].categorical) return is;
    ++column;
  }
  return FirstLineIs::kData;
}

// The 0-based position of the column `column` (a header name or a position) among `fields`
// columns; `what` names it in messages ("label column").
uint64_t ColumnPosition(const char* what, const std::string& column,
                        const std::vector<std::string>& names, uint64_t fields,
                        const std::string& name, const std::string& note) {
  const std::string why = note.empty() ? "" : " (" + note + ")";
  long long position = 0;
  const char* end = column.data() + column.size();
  if (auto [ptr, ec] = std::from_chars(column.data(), end, position);
      ec == std::errc() && ptr == end) {
    const long long from_end = position < 0 ? static_cast<long long>(fields) + position : position;
    if (from_end < 0 || from_end >= static_cast<long long>(fields)) {
      throw Error(
          fmt::format("{}: {} {}: the file has {} columns (0 to {}, or -1 to -{} "
                      "from the end){}",
                      name, what, column, fields, fields - 1, fields, why));
    }
    return static_cast<uint64_t>(from_end);
  }
  if (names.empty()) {
    throw Error(
        fmt::format("{}: {} '{}' is a name, but the file has no header line (its first line "
                    "is read as a row; --header yes reads it as the columns' names): give the "
                    "column's 0-based position{}",
                    name, what, column, why));
  }
  std::optional<uint64_t> found;
  for (uint64_t i = 0; i < names.size(); ++i) {
    if (names[i] != column) continue;
    if (found) {
      throw Error(fmt::format("{}: {} '{}' appears twice in the header", name, what, column));
    }
    found = i;
  }
  if (!found) {
    std::string list;
    for (uint64_t i = 0; i < names.size() && i < 20; ++i) {
      list.append(i ? ", '" : "'").append(names[i]).append("'");
    }
    if (names.size() > 20) list += fmt::format(", ... ({} in all)", names.size());
    throw Error(fmt::format("{}: {} '{}' is not in the header; its columns are {}{}", name,
                            what, column, list, why));
  }
  return *found;
}

// The label column's 0-based position among `fields` columns (`fields`: none).
uint64_t LabelColumn(const std::string& column, const std::vector<std::string>& names,
                     uint64_t fields, const std::string& name, const std::string& note) {
  if (column.empty()) return 0;
  if (column == kNoLabelColumn) return fields;
  return ColumnPosition("label column", column, names, fields, name, note);
}

// The weight column's position (kNoColumn: none), another than the label's. With `optional`, a
// name not in the header is none.
uint64_t WeightColumn(const std::string& column, uint64_t label,
                      const std::vector<std::string>& names, uint64_t fields,
                      const std::string& name, bool optional) {
  if (column.empty()) return csv_internal::kNoColumn;
  if (optional && IsColumnName(column) &&
      std::find(names.begin(), names.end(), column) == names.end()) {
    return csv_internal::kNoColumn;
  }
  const uint64_t at = ColumnPosition("weight column", column, names, fields, name, "");
  if (at == label) {
    throw Error(fmt::format("{}: weight column '{}' is the label column", name, column));
  }
  return at;
}

// Which of `fields` are left out: the columns options.ignore_columns names (by header name or
// position in this file), and those of options.schema's record (by name where both files have a
// header, a file lacking one leaving nothing out; else by position). Throws parsgd::Error for a
// column named that is not in the file, and for the label or weight column.
std::vector<bool> LeftOut(const CsvOptions& options, const std::vector<std::string>& names,
                          uint64_t fields, uint64_t label, uint64_t weight,
                          const std::string& name) {
  std::vector<bool> out(fields, false);
  auto leave_out = [&](uint64_t f, const std::string& column, const std::string& whose) {
    if (f == label || f == weight) {
      throw Error(fmt::format("{}: column '{}'{} is left out, but it is the {} column", name,
                              column, whose, f == label ? "label" : "weight"));
    }
    out[f] = true;
  };
  for (const std::string& column : options.ignore_columns) {
    leave_out(ColumnPosition("ignored column", column, names, fields, name, ""), column, "");
  }
  if (options.schema == nullptr) return out;
  const CsvSchema& schema = *options.schema;
  const std::string whose = fmt::format(" (left out of {})", options.schema_source);
  for (const CsvIgnored& recorded : schema.ignored) {
    if (schema.named && !names.empty() && !recorded.name.empty()) {
      const auto at = std::find(names.begin(), names.end(), recorded.name);
      if (at != names.end()) leave_out(static_cast<uint64_t>(at - names.begin()), recorded.name, whose);
    } else if (recorded.field < fields) {
      leave_out(recorded.field, std::to_string(recorded.field), whose);
    }
  }
  return out;
}

// The feature fields' roles and the schema's columns of a file read by itself: every feature field
// a column in file order (named where `names` holds a header), its kind auto, a number, or
// categorical where `options` names it.
std::vector<FieldRole> OwnRoles(const CsvOptions& options, const std::vector<std::string>& names,
                                uint64_t fields, uint64_t label, uint64_t weight,
                                const std::vector<bool>& left_out, const std::string& name,
                                CsvSchema& schema) {
  std::vector<FieldRole> roles(fields);
  const FieldKind kind = options.categorical_auto ? FieldKind::kAuto : FieldKind::kNumber;
  uint32_t column = 0;
  for (uint64_t f = 0; f < fields; ++f) {
    if (left_out[f]) {
      roles[f] = {FieldKind::kIgnored, 0};
      schema.ignored.push_back({.name = names.empty() ? std::string() : names[f], .field = f});
    }
    if (f == label || f == weight || left_out[f]) continue;
    roles[f] = {kind, column++};
    schema.columns.push_back({.name = names.empty() ? std::string() : names[f]});
  }
  schema.named = !names.empty();
  if (schema.named && label < fields) schema.label_name = names[label];
  for (const std::string& given : options.categorical) {
    const uint64_t f = ColumnPosition("categorical column", given, names, fields, name, "");
    if (f == label || f == weight) {
      throw Error(fmt::format("{}: categorical column '{}' is the {} column", name, given,
                              f == label ? "label" : "weight"));
    }
    if (left_out[f]) {
      throw Error(fmt::format("{}: categorical column '{}' is left out (--ignore-columns)", name,
                              given));
    }
    roles[f].kind = FieldKind::kCategory;
  }
  return roles;
}

// The feature fields' roles of a file read by the schema of another (CsvOptions::schema): by name
// where both have a header, else by position. Sets *reorder where the columns are not in the
// schema's order.
std::vector<FieldRole> SchemaRoles(const CsvOptions& options, const std::vector<std::string>& names,
                                   uint64_t fields, uint64_t label, uint64_t weight,
                                   const std::vector<bool>& left_out, const std::string& name,
                                   bool* reorder) {
  const CsvSchema& schema = *options.schema;
  std::vector<FieldRole> roles(fields);
  std::vector<uint64_t> features;  // the feature fields
  for (uint64_t f = 0; f < fields; ++f) {
    if (left_out[f]) roles[f] = {FieldKind::kIgnored, 0};
    if (f != label && f != weight && !left_out[f]) features.push_back(f);
  }
  auto kind = [&](uint64_t c) {
    return schema.columns[c].categorical ? FieldKind::kCategory : FieldKind::kNumber;
  };
  auto distinct = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  std::vector<std::string> schema_names;
  for (const CsvColumn& c : schema.columns) schema_names.push_back(c.name);
  std::vector<std::string> file_names;
  for (uint64_t f : features) file_names.push_back(names.empty() ? std::string() : names[f]);
  if (schema.named && !names.empty() && distinct(schema_names) && distinct(file_names)) {
    std::vector<bool> found(schema.columns.size(), false);
    for (uint64_t i = 0; i < features.size(); ++i) {
      const uint64_t f = features[i];
      const auto at = std::find(schema_names.begin(), schema_names.end(), names[f]);
      if (at == schema_names.end() && names[f] == schema.label_name) {
        throw DataError(name, 0, 0,
                        fmt::format("column '{}' is the label column of {}, here read as a "
                                    "feature: name the label column with --label-column",
                                    names[f], options.schema_source));
      }
      if (at == schema_names.end()) {
        throw DataError(name, 0, 0,
                        fmt::format("column '{}' is not a column of {}: a file read for it has "
                                    "its columns (by name, in any order)",
                                    names[f], options.schema_source));
      }
      const auto c = static_cast<uint64_t>(at - schema_names.begin());
      found[c] = true;
      roles[f] = {kind(c), static_cast<uint32_t>(c)};
      *reorder |= c != i;
    }
    for (uint64_t c = 0; c < found.size(); ++c) {
      if (!found[c]) {
        throw DataError(name, 0, 0,
                        fmt::format("no column '{}', a feature column of {}", schema_names[c],
                                    options.schema_source));
      }
    }
    return roles;
  }
  if (features.size() != schema.columns.size()) {
    const bool unlabelled = label == fields;
    const std::string where =
        unlabelled ? "no label column"
        : options.label_column.empty() ? std::string("the label in the first column")
                                       : fmt::format("the label in column '{}'", options.label_column);
    std::string hint;
    if (!unlabelled && features.size() + 1 == schema.columns.size()) {
      hint = ": if the file has no label column, give --label-column none";
    } else if (unlabelled && features.size() == schema.columns.size() + 1) {
      hint = ": it seems to have a label column; name it with --label-column";
    }
    throw DataError(name, 0, 0,
                    fmt::format("{} feature columns ({}), but {} has {}{}", features.size(), where,
                                options.schema_source, schema.columns.size(), hint));
  }
  for (uint64_t c = 0; c < features.size(); ++c) {
    roles[features[c]] = {kind(c), static_cast<uint32_t>(c)};
  }
  return roles;
}

constexpr std::string_view kBom = "\xEF\xBB\xBF";  // a UTF-8 byte order mark, skipped

using ParseFn = std::function<void(std::string_view, Chunk*)>;

// Where a CSV file's text comes from: whole in memory (a mapped file, standard input read to its
// end), or a gzip-compressed file, parsed as it inflates (data_internal::ParseStream) and inflated
// again where its rows are read a second time (a column found to hold numbers and text).
class CsvText {
 public:
  // `file`: the mapping `text` lies in, if any (its pages given back as parsed).
  CsvText(std::string_view text, const MappedFile* file) : text_(text), file_(file) {
    if (text_.starts_with(kBom)) text_.remove_prefix(kBom.size());
  }
  // A gzip-compressed file: read as far as the end of its first line that is not blank.
  explicit CsvText(std::string path) : path_(std::move(path)) {
    stream_ = std::make_unique<data_internal::ByteStream>(path_);
    head_ = csv_internal::ReadHead(*stream_, &bom_);
    text_ = head_;
  }

  // The text from its start (after a byte order mark) to the end of its first line that is not
  // blank, at least; all of it when it is whole.
  std::string_view head() const { return text_; }
  const MappedFile* file() const { return file_; }

  // The lines from byte `from` of the text (at most head().size()) in chunks, each parsed by
  // `parse`; may be called again (a stream is then opened again).
  std::vector<Chunk> Parse(std::size_t from, const std::string& name, uint64_t chunk_bytes,
                           const ParseFn& parse) {
    if (path_.empty()) return data_internal::ParseChunks(text_.substr(from), chunk_bytes, parse, file_);
    if (!stream_) {  // read before: from the start again, past what head() holds
      stream_ = std::make_unique<data_internal::ByteStream>(path_);
      std::string skip(head_.size() + (bom_ ? kBom.size() : 0), '\0');
      stream_->Read(skip.data(), skip.size());
    }
    const std::unique_ptr<data_internal::ByteStream> in = std::move(stream_);
    return data_internal::ParseStream(*in, name, chunk_bytes, parse, head_.substr(from));
  }

 private:
  std::string_view text_;
  const MappedFile* file_ = nullptr;
  std::string path_, head_;  // a compressed file: its path, the text read first
  bool bom_ = false;
  std::unique_ptr<data_internal::ByteStream> stream_;  // where it is read next
};

// ParseCsv of `source`.
Dataset Parse(CsvText& source, const std::string& name, const CsvOptions& options) {
  const std::string_view text = source.head();
  CsvPlan plan = csv_internal::PlanCsv(text, name, options);
  const FirstLine& first = plan.first;
  const ParseFn parse = [&](std::string_view piece, Chunk* c) {
    csv_internal::ParseChunk(piece, plan.shape, c);
  };
  const uint64_t columns = plan.schema.columns.size();
  const bool collect = !options.schema && options.category_hash_bits == 0;
  // The first line (and any blank lines before it) apart from the rest: a header, or a data row.
  std::vector<Chunk> head, chunks;
  std::optional<CsvSurvey> survey;
  auto parse_all = [&] {
    head.clear();
    survey.emplace(columns, collect);
    if (plan.first_may_be_data()) {
      head = data_internal::ParseChunks(text.substr(0, first.next), first.next + 1, parse,
                                        source.file());
      data_internal::ThrowFirstError(head, name, 1);
      for (const Chunk& chunk : head) survey->AddHead(chunk, plan.is == FirstLineIs::kData);
    }
    chunks = source.Parse(first.next, name, options.chunk_bytes, parse);
    data_internal::ThrowFirstError(chunks, name, first.line + 1);
    for (const Chunk& chunk : chunks) survey->Add(chunk);
  };
  parse_all();
  if (!options.schema && options.categorical_auto &&
      csv_internal::MarkMixedColumns(plan, *survey)) {
    parse_all();
  }
  const bool is_header = csv_internal::FirstLineIsHeader(plan, *survey, name);
  if (!is_header) {
    chunks.insert(chunks.begin(), std::make_move_iterator(head.begin()),
                  std::make_move_iterator(head.end()));
  }
  if (!survey->any_row() && (is_header || !survey->head_row())) {
    throw DataError(name, 0, 0, "no data rows: the file has only a header line");
  }
  std::vector<std::string> classes;
  try {
    classes = NameClasses(chunks);
  } catch (const Error& e) {
    throw DataError(name, 0, 0, e.what());
  }
  if (!options.schema) csv_internal::FinishSchema(plan, *survey, is_header, options, name);
  CsvSchema& schema = plan.schema;
  const uint64_t unseen = schema.HasCategorical() || plan.reorder
                              ? csv_internal::EncodeCategories(chunks, schema, plan.reorder)
                              : 0;
  Dataset data =
      data_internal::Assemble(std::move(chunks), schema.Features(), name, 0, ZeroBased::kAuto);
  Dataset::Parts parts = data.parts();
  if (!classes.empty()) parts.class_names = std::move(classes);
  parts.csv_schema = std::make_shared<const CsvSchema>(std::move(schema));
  parts.csv_reading = {options.label_column, options.weight_column, options.missing};
  parts.unseen_values = unseen;
  return Dataset(std::move(parts));
}

}  // namespace

namespace csv_internal {

// The first line that is not blank; nullopt if there is none.
std::optional<FirstLine> FindFirstLine(std::string_view text) {
  FirstLine first;
  for (std::size_t at = 0; at < text.size(); at = first.next) {
    ++first.line;
    const std::size_t newline = text.find('\n', at);
    first.begin = at;
    first.next = newline == std::string_view::npos ? text.size() : newline + 1;
    first.end = newline == std::string_view::npos ? text.size() : newline;
    if (first.end > at && text[first.end - 1] == '\r') --first.end;
    if (!Trim(text.substr(at, first.end - at)).empty()) return first;
  }
  return std::nullopt;
}

std::string ReadHead(data_internal::ByteStream& in, bool* bom) {
  constexpr std::size_t kStep = std::size_t{1} << 16;
  std::string head;
  *bom = false;
  for (bool more = true; more;) {
    const std::size_t at = head.size();
    head.resize(at + kStep);
    const std::size_t n = in.Read(head.data() + at, kStep);
    head.resize(at + n);
    more = n == kStep;
    if (at == 0 && head.starts_with(kBom)) {
      *bom = true;
      head.erase(0, kBom.size());
    }
    const std::optional<FirstLine> first = FindFirstLine(head);
    if (first && first->next > first->end) break;  // the line and its line break are in
  }
  return head;
}

CsvPlan PlanCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
  const std::optional<FirstLine> first = FindFirstLine(text);
  if (!first)
    throw DataError(name, 0, 0,
                    "empty file: expected rows of comma-, tab- or semicolon-separated fields");
  CsvPlan plan;
  plan.first = *first;
  const std::string_view line = text.substr(first->begin, first->end - first->begin);
  const char delimiter =
      options.delimiter != 0 ? options.delimiter : csv_internal::DetectDelimiter(line);
  std::vector<std::string> names = SplitNames(line, delimiter, name, first->line);
  plan.is = options.schema && options.header == CsvHeader::kAuto
                ? ClassifyBySchema(line, delimiter, names, options)
                : ClassifyFirstLine(line, delimiter, options);
  const uint64_t fields = names.size();
  if (plan.is == FirstLineIs::kData) names.clear();  // a row, not names
  // A file with a header read by a named schema finds its label by the schema's label name where
  // its label column is not given; a label column named but not in the header of data to predict
  // is none.
  const bool by_name = options.label_by_schema && options.schema && options.schema->named &&
                       plan.is != FirstLineIs::kData && !options.schema->label_name.empty();
  const std::string& label_column = by_name ? options.schema->label_name : options.label_column;
  const bool label_absent = options.labels_optional && plan.is != FirstLineIs::kData &&
                            IsColumnName(label_column) &&
                            std::find(names.begin(), names.end(), label_column) == names.end();
  const uint64_t label =
      label_absent ? fields
                   : LabelColumn(label_column, names, fields, name, options.label_column_note);
  // The label by default, the first column, unnamed in a header that names others: the index
  // pandas' to_csv writes (unless index=False), not a label.
  if (label_column.empty() && !options.schema && plan.is == FirstLineIs::kHeader && fields > 1 &&
      names.front().empty() &&
      std::any_of(names.begin() + 1, names.end(), [](const std::string& n) { return !n.empty(); })) {
    throw Error(fmt::format(
        "{}: the first column, the label unless --label-column names another, has no name in the "
        "header: the row index pandas' to_csv writes (unless index=False)? Name the label column "
        "with --label-column, and leave the index out with --ignore-columns 0",
        name));
  }
  RowShape& shape = plan.shape;
  shape = RowShape{fields, label, delimiter, options.missing,
                   WeightColumn(options.weight_column, label, names, fields, name,
                                options.weight_column_optional)};
  // A first line that may be a header or a row is a row here: its names are the header's if it
  // turns out one.
  const std::vector<std::string> header =
      plan.is == FirstLineIs::kData ? std::vector<std::string>() : names;
  const std::vector<bool> left_out = LeftOut(options, header, fields, label, shape.weight, name);
  shape.roles = options.schema ? SchemaRoles(options, header, fields, label, shape.weight,
                                             left_out, name, &plan.reorder)
                               : OwnRoles(options, header, fields, label, shape.weight, left_out,
                                          name, plan.schema);
  if (options.schema) plan.schema = *options.schema;
  shape.feature_columns = static_cast<uint32_t>(plan.schema.columns.size());
  return plan;
}

bool MarkMixedColumns(CsvPlan& plan, const CsvSurvey& survey) {
  bool any = false;
  for (FieldRole& role : plan.shape.roles) {
    if (role.kind != FieldKind::kAuto) continue;
    if (survey.text_in()[role.column] && survey.numbers_in()[role.column]) {
      role.kind = FieldKind::kCategory;
      any = true;
    }
  }
  return any;
}

bool FirstLineIsHeader(const CsvPlan& plan, const CsvSurvey& survey, const std::string& name) {
  if (plan.is == FirstLineIs::kNumbered && survey.label_seen()) {
    throw DataError(name, plan.first.line, 1,
                    "the first line numbers the columns (a header?), but its label is a label of "
                    "other rows (a row?): say which with --header yes or --header no");
  }
  return plan.is == FirstLineIs::kHeader ||
         ((plan.is == FirstLineIs::kHeaderIfLabelUnseen || plan.is == FirstLineIs::kNumbered) &&
          !survey.label_seen());
}

void FinishSchema(CsvPlan& plan, const CsvSurvey& survey, bool first_is_header,
                  const CsvOptions& options, const std::string& name) {
  CsvSchema& schema = plan.schema;
  if (!first_is_header) {
    for (CsvColumn& column : schema.columns) column.name.clear();
    for (CsvIgnored& left_out : schema.ignored) left_out.name.clear();
    schema.named = false;
    schema.label_name.clear();
  }
  const uint64_t columns = schema.columns.size();
  for (const FieldRole& role : plan.shape.roles) {
    if (role.column < columns &&
        (role.kind == FieldKind::kCategory ||
         (role.kind == FieldKind::kAuto && survey.text_in()[role.column]))) {
      schema.columns[role.column].categorical = true;
    }
  }
  if (!schema.HasCategorical()) return;
  schema.hash_bits = options.category_hash_bits;
  if (schema.hash_bits == 0) {
    for (uint64_t c = 0; c < columns; ++c) {
      if (schema.columns[c].categorical) schema.columns[c].values = survey.Values(c);
    }
  }
  if (schema.Features() > kMaxCsvFeatures) {
    throw DataError(name, 0, 0,
                    fmt::format("the categorical columns' values make {} features, more than "
                                "{}: hash them (--hash-bits B) or leave the column out",
                                schema.Features(), kMaxCsvFeatures));
  }
}

}  // namespace csv_internal

namespace {}  // namespace

Dataset ParseCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
  CsvText source(text, nullptr);
  return Parse(source, name, options);
}

uint64_t CsvColumns(const std::string& path, char delimiter) {
  const std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  std::string_view text(file->chars(), file->size());
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::optional<FirstLine> first = FindFirstLine(text);
  if (!first) return 0;
  const std::string_view line = text.substr(first->begin, first->end - first->begin);
  if (delimiter == 0) delimiter = csv_internal::DetectDelimiter(line);
  return SplitNames(line, delimiter, path, first->line).size();  // a header or a row alike
}

Dataset ReadCsv(const std::string& path, const CsvOptions& options) {
  if (data_internal::IsGzip(path)) {
    CsvText source(path);
    return Parse(source, path, options);
  }
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  CsvText source(std::string_view(file->chars(), file->size()), file.get());
  return Parse(source, path, options);
}

}  // namespace parsgd
