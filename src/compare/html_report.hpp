// report.html: the report of report.md as one self-contained page (no script, no request to
// anywhere: the plots are inline SVG drawn from the analysis, the style inline), readable on a
// phone (the page reflows, wide tables scroll on their own), with the machine the runs ran on.
#pragma once

#include <string>

#include "markdown_report.hpp"

namespace parsgd::compare {

// `markdown`: MarkdownReport(in). Its sections become the page's, but for its plots section,
// whose gnuplot images become the inline charts.
std::string HtmlReport(const ReportInput& in, const std::string& markdown);

// The Markdown that MarkdownReport writes (headings, paragraphs, lists one level deep, pipe
// tables, fenced code, `code`, **bold**, [links](...)) as HTML, every character of text escaped.
std::string MarkdownToHtml(const std::string& markdown);

}  // namespace parsgd::compare
