#include "metrics_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// An epoch line's fields.
EpochRecord EpochOf(const nlohmann::json& j) {
  EpochRecord e;
  e.epoch = j.at("epoch").get<int>();
  e.objective = j.at("objective").get<double>();
  e.updates = j.at("updates").get<uint64_t>();
  e.test_accuracy = Optional(j, "test_accuracy");
  e.train_seconds = Optional(j, "train_seconds");
  return e;
}

}  // namespace

std::vector<EpochRecord> ReadEpochRecords(const std::string& jsonl) {
  std::vector<EpochRecord> out;
  std::istringstream in(jsonl);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      out.push_back(EpochOf(nlohmann::json::parse(line)));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("metrics line {}: {}", number, e.what()));
    }
  }
  return out;
}

std::vector<KeptRun> ReadRuns(const std::string& jsonl) {
  std::vector<KeptRun> out;
  std::istringstream in(jsonl);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(line);
      const auto config = j.at("config").get<std::size_t>();
      const int repeat = j.at("repeat").get<int>();
      if (config < 1 || repeat < 1) throw Error("config and repeat count from 1");
      auto run = std::find_if(out.begin(), out.end(), [&](const KeptRun& k) {
        return k.record.config == config - 1 && k.record.repeat == repeat - 1;
      });
      if (run == out.end()) {
        out.push_back({});
        run = out.end() - 1;
        run->record.config = config - 1;
        run->record.repeat = repeat - 1;
      }
      run->lines += line + "\n";
      run->record.seed = j.at("seed").get<uint64_t>();
      if (const auto e = j.find("error"); e != j.end()) {
        run->record.error = e->get<std::string>();
      } else {
        run->record.epochs.push_back(EpochOf(j));
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("runs.jsonl line {}: {}", number, e.what()));
    } catch (const Error& e) {
      throw Error(fmt::format("runs.jsonl line {}: {}", number, e.what()));
    }
  }
  return out;
}

}  // namespace parsgd::compare
