// Number and field formatting shared by the comparison's writers.
#pragma once

#include <optional>
#include <string>

namespace parsgd::compare {

// Shortest text that reads back to the same double; "" for NaN (an empty CSV cell).
std::string Exact(double value);
std::string Exact(const std::optional<double>& value);

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& text);

// "0.1235 ± 0.0012" (4 significant figures; "0.1235" when the spread is NaN); "–" for NaN.
std::string MeanStd(double mean, double std, int digits = 4);

// 4 significant figures, "–" for NaN; "1.23M"-style for counts when `human` is set.
std::string Short(double value, int digits = 4);
std::string ShortCount(double value);

// Text for HTML and SVG (element content and quoted attributes): & < > " as entities.
std::string MarkupEscape(const std::string& text);

// Markdown table cell: '|' escaped, line breaks as spaces.
std::string MdCell(const std::string& text);

}  // namespace parsgd::compare
