#include "text_format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace parsgd::compare {

std::string Exact(double value) { return std::isnan(value) ? "" : fmt::format("{}", value); }

std::string Exact(const std::optional<double>& value) { return value ? Exact(*value) : ""; }

std::string MarkupEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Short(double value, int digits) {
  if (std::isnan(value)) return "–";
  return fmt::format("{:.{}g}", value, digits);
}

std::string MeanStd(double mean, double std, int digits) {
  if (std::isnan(mean)) return "–";
  if (std::isnan(std)) return Short(mean, digits);
  return Short(mean, digits) + " ± " + Short(std, 2);
}

std::string ShortCount(double value) {
  if (std::isnan(value)) return "–";
  if (value >= 1e9) return fmt::format("{:.3g}G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.3g}M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.3g}k", value / 1e3);
  return fmt::format("{:.3g}", value);
}

std::string MdCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace parsgd::compare
