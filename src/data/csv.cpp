// ParseCsv: the first line (header or not, the field count, the label column) serially, then the
// data lines in parallel chunks through the text readers' shared machinery.
#include "parsgd/data/csv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <vector>

#include "csv_chunk.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

using csv_internal::RowShape;
using data_internal::Chunk;

struct FirstLine {
  std::size_t begin = 0, end = 0;  // the line's content (without its line break)
  std::size_t next = 0;            // where the line after it starts
  uint64_t line = 0;               // 1-based
};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

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

// The fields of a header line: trimmed, quotes ("a,b", "" for a quote) removed.
std::vector<std::string> SplitNames(std::string_view line, const std::string& name,
                                    uint64_t line_number) {
  std::vector<std::string> names(1);
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ',') {
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

bool IsHeader(std::string_view line, CsvHeader header) {
  if (header != CsvHeader::kAuto) return header == CsvHeader::kYes;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = std::min(line.find(',', at), line.size());
    if (!IsNumber(line.substr(at, comma - at))) return true;
    if (comma == line.size()) return false;
    at = comma + 1;
  }
}

// The label column's 0-based position among `fields` columns (`fields`: none).
uint64_t LabelColumn(const std::string& column, const std::vector<std::string>& names,
                     uint64_t fields, const std::string& name, const std::string& note) {
  const std::string why = note.empty() ? "" : " (" + note + ")";
  if (column.empty()) return 0;
  if (column == kNoLabelColumn) return fields;
  long long position = 0;
  const char* end = column.data() + column.size();
  if (auto [ptr, ec] = std::from_chars(column.data(), end, position);
      ec == std::errc() && ptr == end) {
    const long long from_end = position < 0 ? static_cast<long long>(fields) + position : position;
    if (from_end < 0 || from_end >= static_cast<long long>(fields)) {
      throw Error(
          fmt::format("{}: label column {}: the file has {} columns (0 to {}, or -1 to -{} "
                      "from the end){}",
                      name, column, fields, fields - 1, fields, why));
    }
    return static_cast<uint64_t>(from_end);
  }
  if (names.empty()) {
    throw Error(
        fmt::format("{}: label column '{}' is a name, but the file has no header line (its "
                    "first line is all numbers): give the column's 0-based position{}",
                    name, column, why));
  }
  std::optional<uint64_t> found;
  for (uint64_t i = 0; i < names.size(); ++i) {
    if (names[i] != column) continue;
    if (found) {
      throw Error(fmt::format("{}: label column '{}' appears twice in the header", name, column));
    }
    found = i;
  }
  if (!found) {
    std::string list;
    for (uint64_t i = 0; i < names.size() && i < 20; ++i) {
      list.append(i ? ", '" : "'").append(names[i]).append("'");
    }
    if (names.size() > 20) list += fmt::format(", ... ({} in all)", names.size());
    throw Error(fmt::format("{}: label column '{}' is not in the header; its columns are {}{}",
                            name, column, list, why));
  }
  return *found;
}

// ParseCsv, with the mapping `text` lies in when it is a file's (its pages given back as parsed).
Dataset Parse(std::string_view text, const std::string& name, const CsvOptions& options,
              const MappedFile* file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  const std::optional<FirstLine> first = FindFirstLine(text);
  if (!first) throw DataError(name, 0, 0, "empty file: expected rows of comma-separated numbers");
  const std::string_view line = text.substr(first->begin, first->end - first->begin);
  const bool header = IsHeader(line, options.header);
  std::vector<std::string> names;
  if (header) names = SplitNames(line, name, first->line);
  const uint64_t fields =
      header ? names.size() : csv_internal::CountFields(line.data(), line.data() + line.size());
  const RowShape shape{
      fields, LabelColumn(options.label_column, names, fields, name, options.label_column_note)};
  const std::string_view data = header ? text.substr(first->next) : text;
  std::vector<Chunk> chunks = data_internal::ParseChunks(
      data, options.chunk_bytes,
      [&](std::string_view piece, Chunk* c) { csv_internal::ParseChunk(piece, shape, c); }, file);
  data_internal::ThrowFirstError(chunks, name, header ? first->line + 1 : 1);
  bool any_row = false;
  for (const Chunk& chunk : chunks) any_row |= !chunk.labels.empty();
  if (!any_row) throw DataError(name, 0, 0, "no data rows: the file has only a header line");
  const uint64_t features = shape.label == fields ? fields : fields - 1;
  return data_internal::Assemble(std::move(chunks), features, name, 0, ZeroBased::kAuto);
}

}  // namespace

Dataset ParseCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
  return Parse(text, name, options, nullptr);
}

uint64_t CsvColumns(const std::string& path, CsvHeader header) {
  const std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  std::string_view text(file->chars(), file->size());
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::optional<FirstLine> first = FindFirstLine(text);
  if (!first) return 0;
  const std::string_view line = text.substr(first->begin, first->end - first->begin);
  return IsHeader(line, header) ? SplitNames(line, path, first->line).size()
                                : csv_internal::CountFields(line.data(), line.data() + line.size());
}

Dataset ReadCsv(const std::string& path, const CsvOptions& options) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  return Parse(std::string_view(file->chars(), file->size()), path, options, file.get());
}

}  // namespace parsgd
