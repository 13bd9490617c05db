#include "experiment_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "parsgd/util/error.hpp"

namespace parsgd::compare {
namespace {

using Json = nlohmann::json;

std::string Scalar(const std::string& where, const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  throw Error(
      fmt::format("{}: expected a string, a number, true or false, or a list of them, "
                  "got {}",
                  where, v.dump()));
}

Axis ReadAxis(const std::string& where, const std::string& key, const Json& v) {
  Axis axis{key, {}};
  if (!v.is_array()) {
    axis.values.push_back(Scalar(where, v));
    return axis;
  }
  if (v.empty()) throw Error(where + ": an empty list");
  for (const Json& item : v) axis.values.push_back(Scalar(where, item));
  return axis;
}

Block ReadBlock(const std::string& where, const Json& object, bool top) {
  Block block;
  for (const auto& [key, value] : object.items()) {
    if (top && key == "grid") continue;
    block.push_back(ReadAxis(where + ": " + key, key, value));
  }
  return block;
}

// "line L, column C" of byte offset `byte` (1-based, as the parser counts).
std::pair<std::size_t, std::size_t> LineColumn(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

Json Parse(const std::string& path, const std::string& text) {
  // Duplicate keys: nlohmann keeps the last silently; the callback sees every key as it is read.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end) keys.pop_back();
    if (event == Json::parse_event_t::key &&
        !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    Json json = Json::parse(text, callback);
    if (!duplicate.empty()) throw Error(fmt::format("{}: {}: given twice", path, duplicate));
    return json;
  } catch (const Json::parse_error& e) {
    const auto [line, column] = LineColumn(text, e.byte);
    std::string what = e.what();
    const std::size_t at = what.find(": ", what.find("parse error"));
    if (at != std::string::npos) what = what.substr(at + 2);
    throw DataError(path, line, column, "not valid JSON: " + what);
  }
}

}  // namespace

ExperimentFile ReadExperimentFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the experiment file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const Json json = Parse(path, buffer.str());
  if (!json.is_object()) throw Error(path + ": expected a JSON object ({\"flag\": value, ...})");
  ExperimentFile file;
  file.top = ReadBlock(path, json, true);
  if (!json.contains("grid")) return file;
  const Json& grid = json["grid"];
  if (!grid.is_array() || grid.empty()) {
    throw Error(path + ": grid: expected a non-empty list of objects");
  }
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::string where = fmt::format("{}: grid[{}]", path, i);
    if (!grid[i].is_object()) throw Error(where + ": expected an object ({\"flag\": value, ...})");
    file.blocks.push_back(ReadBlock(where, grid[i], false));
  }
  return file;
}

}  // namespace parsgd::compare
