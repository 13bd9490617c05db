// Internal to the CSV readers (csv.cpp reads a text in memory, csv_stream.cpp streams files into
// a binary cache): how a CSV text is read, decided from its first line, and what only its whole
// text decides (a column of numbers and text is categorical; a first line whose only text is its
// label is a header when that label is no other row's; the categorical values), from a
// CsvSurvey of its rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "data/source/byte_stream.hpp"
#include "data/format/csv_categorical.hpp"
#include "data/format/csv_chunk.hpp"
#include "parsgd/data/csv.hpp"

namespace parsgd::csv_internal {

// The most features a CSV table may have (feature indices are 32-bit).
inline constexpr uint64_t kMaxCsvFeatures = uint64_t{1} << 31;

struct FirstLine {
  std::size_t begin = 0, end = 0;  // the line's content (without its line break)
  std::size_t next = 0;            // where the line after it starts
  uint64_t line = 0;               // 1-based
};

// The first line of `text` that is not blank; nullopt if there is none.
std::optional<FirstLine> FindFirstLine(std::string_view text);

// The start of a CSV stream's text: from its first byte, a UTF-8 byte order mark dropped (*bom
// says whether there was one), to the end of its first line that is not blank and the line break
// after it, at least (all of the text where it is shorter). Throws the stream's errors.
std::string ReadHead(data_internal::ByteStream& in, bool* bom);

// What the first line is: a header, data, or (with CsvHeader::kAuto) known once the other rows are
// read: when its only text is in the label's column, a header exactly when its label is no other
// row's; when it numbers the columns (pandas' header of an unnamed array), a header when its
// label is no other row's, else an ambiguity the user settles with --header.
enum class FirstLineIs { kHeader, kData, kHeaderIfLabelUnseen, kNumbered };

// How a CSV text is read, from its first line and the options.
struct CsvPlan {
  FirstLine first;
  FirstLineIs is = FirstLineIs::kHeader;
  RowShape shape;        // how each data line is split and read
  CsvSchema schema;      // the file's own columns (named as its first line would name them), or
                         // CsvOptions::schema's
  bool reorder = false;  // read by a schema whose columns are in another order
  // Whether the first line is parsed as a row (it is one, or may be).
  bool first_may_be_data() const { return is != FirstLineIs::kHeader; }
};

// The plan of the text that starts with `head` (at least its first line that is not blank, with
// the line break after it where there is more text). Throws DataError for a text without such a
// line, parsgd::Error for a label, weight or categorical column not in the file.
CsvPlan PlanCsv(std::string_view head, const std::string& name, const CsvOptions& options);

// A file read by itself with categorical_auto: marks its auto columns where `survey` met numbers
// and text categorical throughout (the rows must then be read again). Returns whether any.
bool MarkMixedColumns(CsvPlan& plan, const CsvSurvey& survey);

// Whether the first line is a header, once every row is surveyed. Throws DataError for a line
// that numbers the columns but whose label is another row's (--header must say).
bool FirstLineIsHeader(const CsvPlan& plan, const CsvSurvey& survey, const std::string& name);

// A file read by itself, once every row is surveyed (`survey` collecting values where one-hot):
// the schema's categorical columns, their hash bits or values, and no names where the first line
// is data. Throws DataError where the values make more than kMaxCsvFeatures features.
void FinishSchema(CsvPlan& plan, const CsvSurvey& survey, bool first_is_header,
                  const CsvOptions& options, const std::string& name);

}  // namespace parsgd::csv_internal
