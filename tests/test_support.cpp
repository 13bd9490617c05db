#include "test_support.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "parsgd-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::Write(const std::string& name, const std::string& contents) const {
  std::string file = File(name);
  std::ofstream out(file, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + file);
  return file;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

double After(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  EXPECT_NE(at, std::string::npos) << key << " not in " << text;
  return at == std::string::npos ? -1 : std::stod(text.substr(at + key.size()));
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

Dataset MakeDataset(const std::vector<Entries>& rows, const std::vector<float>& labels,
                    uint64_t features, const std::string& source) {
  uint64_t nnz = 0;
  for (const auto& r : rows) nnz += r.size();
  AlignedArray<uint64_t> offsets(rows.size() + 1);
  AlignedArray<uint32_t> indices(nnz);
  AlignedArray<float> values(nnz);
  AlignedArray<float> label_array(labels.size());
  offsets[0] = 0;
  uint64_t k = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (auto [j, v] : rows[i]) {
      indices[k] = j;
      values[k] = v;
      ++k;
    }
    offsets[i + 1] = k;
  }
  for (std::size_t i = 0; i < labels.size(); ++i) label_array[i] = labels[i];
  return Dataset::FromArrays(std::move(offsets), std::move(indices), std::move(values),
                             std::move(label_array), features, source);
}

Dataset MakeProblem(uint64_t rows, uint32_t features, uint32_t nnz, int classes, double noise,
                    uint64_t seed) {
  Rng rng(seed);
  const int scores = classes == 2 ? 1 : classes;
  std::vector<double> hidden(static_cast<std::size_t>(features) * scores);
  for (double& w : hidden) w = rng.Normal();
  std::vector<Entries> data(rows);
  std::vector<float> labels(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    std::vector<uint32_t> cols;
    while (cols.size() < std::min(nnz, features)) {
      // Inverse-CDF of a log-uniform draw: P(j) ~ 1/(j+1).
      auto j = static_cast<uint32_t>(std::exp(rng.UniformDouble() * std::log(features + 1.0)) - 1);
      j = std::min(j, features - 1);
      if (std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
    }
    std::sort(cols.begin(), cols.end());
    std::vector<double> z(scores, 0.0);
    for (uint32_t j : cols) {
      const float v = static_cast<float>(0.5 + rng.UniformDouble());
      data[i].push_back({j, v});
      for (int k = 0; k < scores; ++k) z[k] += v * hidden[static_cast<std::size_t>(j) * scores + k];
    }
    int label = classes == 2 ? (z[0] > 0 ? 1 : 0)
                             : static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
    if (rng.UniformDouble() < noise) label = static_cast<int>(rng.Uniform(classes));
    labels[i] = classes == 2 ? (label == 1 ? 1.f : -1.f) : static_cast<float>(label);
  }
  return MakeDataset(data, labels, features, "problem");
}

TrainConfig OnlyApplied(TrainConfig config, int ranks) {
  const TrainConfig defaults;
  for (const Setting& s : TrainSettings()) {
    if (!WhyNotApplied(s, config, ranks).empty()) s.put(config, s.get(defaults));
  }
  return config;
}

std::string Refusal(const TrainConfig& config) {
  try {
    ValidateConfig(config);
  } catch (const SettingError& e) {
    return e.what();
  }
  return "";
}

RuleContext SgdContext(float eta) {
  OptimizerConfig o;
  o.kind = OptimizerKind::kSgd;
  return MakeRuleContext(o, eta, 1);
}

EpochReport TrainFor(Trainer& trainer, int epochs) {
  EpochReport last;
  for (int e = 0; e < epochs; ++e) last = trainer.RunEpoch();
  return last;
}

LinearModel TrainModel(const TrainConfig& config, const Dataset& data, Executor& executor) {
  Trainer trainer(OnlyApplied(config), data, nullptr, executor);
  TrainFor(trainer, config.epochs);
  return trainer.model();
}

Dataset WithWeights(const Dataset& data, const std::vector<float>& weights) {
  Dataset::Parts parts = data.parts();
  AlignedArray<float> array(weights.size());
  std::copy(weights.begin(), weights.end(), array.begin());
  parts.weights = SharedArray<float>(std::move(array));
  return Dataset(std::move(parts));
}

Dataset Blobs(int rows, uint64_t seed) {
  Rng rng(seed);
  std::vector<Entries> data(rows);
  std::vector<float> labels(rows);
  for (int i = 0; i < rows; ++i) {
    float best = -1;
    for (uint32_t j = 0; j < 12; ++j) {
      const float v = static_cast<float>(rng.Normal());
      data[i].push_back({j, v});
      if (j < 3 && std::abs(v) > best) {
        best = std::abs(v);
        labels[i] = static_cast<float>(j);
      }
    }
  }
  return MakeDataset(data, labels, 12, "blobs");
}

std::vector<float> TargetValues(ModelKind kind, const Dataset& data) {
  const Targets t = MakeTargets(kind, data);
  return {t.values.begin(), t.values.end()};
}

bool SameBits(const LinearModel& a, const LinearModel& b) {
  return a.weights().size() == b.weights().size() &&
         std::memcmp(a.weights().data(), b.weights().data(), a.weights().size_bytes()) == 0;
}

CliResult RunCli(const std::string& args) {
  return RunShell(std::string(PARSGD_CLI_PATH) + " " + args);
}

CliResult RunShell(const std::string& line) {
  const std::string command = "(" + line + ") 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  std::string output;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), n);
  int status = ::pclose(pipe);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, output};
}

std::vector<std::string> RunRanks(int ranks, const std::function<void(Communicator&)>& fn) {
  auto group = MakeThreadGroup(ranks);
  std::vector<std::string> errors(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(*group[r]);
      } catch (const std::exception& e) {
        errors[r] = e.what();
        if (errors[r].empty()) errors[r] = "?";
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

std::string SourcePath(const std::string& relative) {
  return std::string(PARSGD_SOURCE_DIR) + "/" + relative;
}

}  // namespace parsgd::testing
