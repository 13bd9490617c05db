#include "html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <vector>

#include "profile.hpp"
#include "svg_chart.hpp"
#include "text_format.hpp"

namespace parsgd::compare {
namespace {

// **bold** and [text](href) in escaped text outside code spans.
std::string Emphasis(const std::string& text) {
  std::string out;
  bool bold = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "**") == 0) {
      out += bold ? "</strong>" : "<strong>";
      bold = !bold;
      ++i;
      continue;
    }
    if (text[i] == '[') {
      const std::size_t close = text.find("](", i);
      const std::size_t end = close == std::string::npos ? close : text.find(')', close);
      if (close != std::string::npos && end != std::string::npos && text.find('[', i + 1) > close) {
        out += fmt::format("<a href=\"{}\">{}</a>", text.substr(close + 2, end - close - 2),
                           text.substr(i + 1, close - i - 1));
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  if (bold) out += "</strong>";
  return out;
}

// One line of Markdown text as HTML: `code` spans kept as they are, the rest with its emphasis.
std::string Inline(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('`', at);
    const std::size_t close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) {
      out += Emphasis(MarkupEscape(text.substr(at)));
      break;
    }
    out += Emphasis(MarkupEscape(text.substr(at, open - at)));
    out += "<code>" + MarkupEscape(text.substr(open + 1, close - open - 1)) + "</code>";
    at = close + 1;
  }
  return out;
}

std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {  // after the leading '|'
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (row[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

std::string Slug(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// Per-epoch series of a problem's configurations: the mean and the lowest and highest run, as
// objective (or f - f* with `optimum`), against epochs or mean seconds.
Chart CurveChart(const ReportInput& in, const std::vector<std::size_t>& members, double optimum,
                 bool by_seconds, const std::string& problem) {
  const bool gap = !std::isnan(optimum);
  Chart c;
  c.title =
      (problem.empty() ? "" : problem + ": ") +
      (gap ? fmt::format("suboptimality f - f*, f* = {:.10g}", optimum) : std::string("objective"));
  c.x_label = by_seconds ? "training seconds (mean over repeats)" : "epoch";
  c.y_label = gap ? "suboptimality f - f* (log)" : "objective (log)";
  c.log_y = true;
  for (std::size_t i : members) {
    const ConfigResult& r = in.analysis->configs[i];
    if (r.curve.empty()) continue;
    ChartSeries s;
    s.label = (*in.configs)[i].label;
    const double shift = gap ? optimum : 0;
    for (const CurvePoint& p : r.curve) {
      s.x.push_back(by_seconds ? (p.seconds.n > 0 ? p.seconds.mean : NAN) : p.epoch);
      s.y.push_back(p.objective.mean - shift);
      s.low.push_back(p.objective.min - shift);
      s.high.push_back(p.objective.max - shift);
    }
    c.series.push_back(std::move(s));
  }
  if (gap) {
    for (double level : kSuboptimalityLevels) {
      c.y_lines.push_back({level * std::fabs(optimum), fmt::format("{:.0e} |f*|", level)});
    }
  }
  return c;
}

std::string Figure(const Chart& chart) {
  std::string legend;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    legend += fmt::format("<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>",
                          ChartColour(k), MarkupEscape(chart.series[k].label));
  }
  return "<figure>\n" + SvgChart(chart) + "<figcaption><ul class=\"legend\">" + legend +
         "</ul></figcaption>\n</figure>\n";
}

std::string PlotsSection(const ReportInput& in) {
  std::string out = "<h2 id=\"plots\">Plots</h2>\n";
  const auto& configs = *in.configs;
  const auto& targets = in.analysis->targets;
  for (const ProblemTarget& t : targets) {
    std::vector<std::size_t> members;
    bool timed = false;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].problem != t.problem || in.analysis->configs[i].curve.empty()) continue;
      members.push_back(i);
      timed = timed || in.analysis->configs[i].curve.front().seconds.n > 0;
    }
    if (members.empty()) continue;
    const std::string problem = targets.size() > 1 ? t.problem : "";
    for (const bool gap : {false, true}) {
      if (gap && std::isnan(t.optimum)) continue;
      for (const bool by_seconds : {false, true}) {
        if (by_seconds && !timed) continue;
        out += Figure(CurveChart(in, members, gap ? t.optimum : NAN, by_seconds, problem));
      }
    }
  }
  for (const Profile& p : PerformanceProfiles(configs, *in.analysis)) {
    const char* cost = p.cost_name();
    Chart c;
    c.title =
        fmt::format("performance profile: {} to a relative suboptimality of {:g}", cost, p.level);
    c.x_label = fmt::format("tau: times the best method's {} (log2)", cost);
    c.y_label = "share of problems solved within tau";
    c.log_x = true;
    c.steps = true;
    c.share_y = true;
    for (std::size_t m = 0; m < p.methods.size(); ++m) {
      ChartSeries s;
      s.label = p.methods[m].label;
      for (const auto& [tau, share] : p.Steps(m)) {
        s.x.push_back(tau);
        s.y.push_back(share);
      }
      c.series.push_back(std::move(s));
    }
    out += Figure(c);
  }
  if (out.find("<figure>") == std::string::npos)
    out += "<p>No run finished: nothing to plot.</p>\n";
  return out;
}

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222;
       line-height: 1.45; background: #fafafa; }
main { max-width: 1000px; margin: 0 auto; padding: 12px 16px 40px; background: #fff; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ddd; margin-top: 1.6em; }
h3 { font-size: 1.1em; }
.table { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0.6em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } tr:nth-child(even) td { background: #fafafa; }
pre { overflow-x: auto; background: #f4f4f4; padding: 8px; white-space: pre; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; }
figure { margin: 1em 0; } svg.chart { width: 100%; height: auto; display: block; }
ul.legend { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap;
            gap: 4px 16px; font-size: 0.85em; }
.swatch { display: inline-block; width: 14px; height: 4px; margin-right: 6px;
          vertical-align: middle; }
)";

}  // namespace

std::string MarkdownToHtml(const std::string& markdown) {
  std::istringstream in(markdown);
  std::string out, paragraph;
  std::vector<std::string> table;
  int list_depth = 0;    // open <ul>/<ol> levels (0, 1 or 2)
  bool ordered = false;  // the outer list's kind
  bool in_code = false;
  auto close_paragraph = [&] {
    if (!paragraph.empty()) out += "<p>" + Inline(paragraph) + "</p>\n";
    paragraph.clear();
  };
  auto close_lists = [&] {
    if (list_depth == 2) out += "</li></ul>";
    if (list_depth >= 1) out += ordered ? "</li></ol>\n" : "</li></ul>\n";
    list_depth = 0;
  };
  auto close_table = [&] {
    if (table.empty()) return;
    out += "<div class=\"table\"><table>\n";
    for (std::size_t r = 0; r < table.size(); ++r) {
      if (r == 1) continue;  // the |---| separator
      const char* cell = r == 0 ? "th" : "td";
      out += r == 0 ? "<thead><tr>" : "<tr>";
      for (const std::string& c : Cells(table[r])) {
        out += fmt::format("<{0}>{1}</{0}>", cell, Inline(c));
      }
      out += r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n";
    }
    out += "</tbody></table></div>\n";
    table.clear();
  };
  auto close_all = [&] {
    close_paragraph();
    close_lists();
    close_table();
  };
  for (std::string line; std::getline(in, line);) {
    if (in_code) {
      if (line.rfind("```", 0) == 0) {
        out += "</code></pre>\n";
        in_code = false;
      } else {
        out += MarkupEscape(line) + "\n";
      }
      continue;
    }
    if (line.rfind("```", 0) == 0) {
      close_all();
      out += "<pre><code>";
      in_code = true;
    } else if (line.empty()) {
      close_all();
    } else if (line.rfind("#", 0) == 0) {
      close_all();
      const std::size_t level = line.find_first_not_of('#');
      const std::string text = line.substr(level + 1);
      out += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", level, Slug(text), Inline(text));
    } else if (line[0] == '|') {
      close_paragraph();
      close_lists();
      table.push_back(line);
    } else if (line.rfind("  - ", 0) == 0 && list_depth >= 1) {
      out += list_depth == 1 ? "<ul><li>" : "</li><li>";
      out += Inline(line.substr(4));
      list_depth = 2;
    } else if (line.rfind("- ", 0) == 0 ||
               (std::isdigit(static_cast<unsigned char>(line[0])) &&
                line.find(". ") != std::string::npos &&
                line.find_first_not_of("0123456789") == line.find(". "))) {
      close_paragraph();
      close_table();
      const bool numbered = line[0] != '-';
      if (list_depth == 2) {
        out += "</li></ul>";
        list_depth = 1;
      }
      if (list_depth == 0) {
        ordered = numbered;
        out += ordered ? "<ol>\n<li>" : "<ul>\n<li>";
        list_depth = 1;
      } else {
        out += "</li>\n<li>";
      }
      out += Inline(line.substr(line.find(' ') + 1));
    } else if (list_depth > 0) {
      out += " " + Inline(line);  // a list item's continued line
    } else {
      close_table();
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  if (in_code) out += "</code></pre>\n";
  close_all();
  return out;
}

std::string HtmlReport(const ReportInput& in, const std::string& markdown) {
  // The plots section of report.md names gnuplot's images: the page draws its own.
  std::string md = markdown;
  const std::size_t plots = md.find("\n## Plots\n");
  std::string before = md, after;
  if (plots != std::string::npos) {
    const std::size_t next = md.find("\n## ", plots + 1);
    before = md.substr(0, plots + 1);
    after = next == std::string::npos ? "" : md.substr(next + 1);
  }
  std::string machine = "\n## Machine\n\n";
  machine +=
      fmt::format("- CPU: {} ({} usable cores)\n", in.cpu.empty() ? "unknown" : in.cpu, in.cores);
  machine += fmt::format("- program: {}\n", in.program.empty() ? "parsgd" : in.program);
  machine += in.date.empty()
                 ? "- date: not written (`--deterministic`: the folder repeats byte for byte)\n"
                 : fmt::format("- date: {}\n", in.date);
  return std::string(
             "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<title>parsgd compare</title>\n<style>") +
         kStyle + "</style>\n</head>\n<body>\n<main>\n" + MarkdownToHtml(before) +
         PlotsSection(in) + MarkdownToHtml(after + machine) + "</main>\n</body>\n</html>\n";
}

}  // namespace parsgd::compare
