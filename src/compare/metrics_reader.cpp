#include "metrics_reader.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "parsgd/util/error.hpp"

namespace parsgd::compare {
namespace {

std::optional<double> Optional(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

std::vector<EpochRecord> ReadEpochRecords(const std::string& jsonl) {
  std::vector<EpochRecord> out;
  std::istringstream in(jsonl);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(line);
      EpochRecord e;
      e.epoch = j.at("epoch").get<int>();
      e.objective = j.at("objective").get<double>();
      e.updates = j.at("updates").get<uint64_t>();
      e.test_accuracy = Optional(j, "test_accuracy");
      e.train_seconds = Optional(j, "train_seconds");
      out.push_back(e);
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("metrics line {}: {}", number, e.what()));
    }
  }
  return out;
}

}  // namespace parsgd::compare
