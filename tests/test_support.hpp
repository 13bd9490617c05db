// Helpers shared by the tests: scratch folders, small datasets built in memory, running the CLI.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/scheme/write_policy.hpp"

namespace parsgd::testing {

// A fresh folder under the system temp folder, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path()/name as a string.
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  // Writes `contents` to path()/name and returns its path.
  std::string Write(const std::string& name, const std::string& contents) const;

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::string& path);

// Whether `part` occurs in `text`; the lines of `text` (without their '\n').
bool Contains(const std::string& text, const std::string& part);
std::vector<std::string> Lines(const std::string& text);
// The number after `key` in `text` ("accuracy 91.50%" -> 91.5); a failure and -1 if `key` is
// not there.
double After(const std::string& text, const std::string& key);

// A dataset from rows of (column, value) pairs (0-based, ascending) and labels.
using Entries = std::vector<std::pair<uint32_t, float>>;
Dataset MakeDataset(const std::vector<Entries>& rows, const std::vector<float>& labels,
                    uint64_t features, const std::string& source = "memory");

// A small seeded classification problem: `rows` rows of about `nnz` nonzeros over `features`
// columns (column j drawn with probability ~ 1/(j+1), so low columns are hot, as in real sparse
// data), labels from a hidden weight vector with `noise` of them flipped. classes == 2 gives -1/+1
// labels; classes > 2 gives class ids from the argmax of `classes` hidden score functions.
Dataset MakeProblem(uint64_t rows, uint32_t features, uint32_t nnz, int classes, double noise,
                    uint64_t seed);

// `data` with row weights `weights` (one a row).
Dataset WithWeights(const Dataset& data, const std::vector<float>& weights);

// Three classes in 12 dimensions that no linear model separates (the MLP's tests): dense Gaussian
// rows, the class the index of the largest of |x_0|, |x_1|, |x_2|.
Dataset Blobs(int rows, uint64_t seed);

// MakeTargets(kind, data)'s values, as the reference solvers take them (binary kinds: -1/+1).
std::vector<float> TargetValues(ModelKind kind, const Dataset& data);

// `config` with every setting that does not apply to its run (Setting::applies) back at its
// default: for sweeps that set one field for every point of a grid, some of which ignore it.
TrainConfig OnlyApplied(TrainConfig config, int ranks = 1);

// ValidateConfig's refusal of `config` (SettingError::what(), keys bare); empty if it is accepted.
std::string Refusal(const TrainConfig& config);

// Plain SGD's rule context at step size `eta` (step 1), for tests that call the rules and steps.
RuleContext SgdContext(float eta);

// Runs `epochs` more epochs of `trainer`, each evaluated; returns the last one's report.
EpochReport TrainFor(Trainer& trainer, int epochs);
// Trains config.epochs epochs of OnlyApplied(config) (a config shared by several schemes may set
// what some of them ignore) and returns the model.
LinearModel TrainModel(const TrainConfig& config, const Dataset& data, Executor& executor);
// Whether two models hold the same weights, bit for bit.
bool SameBits(const LinearModel& a, const LinearModel& b);

// Runs the parsgd program with `args` (shell-quoted by the caller where needed); returns its exit
// status and what it wrote to stdout and stderr together.
struct CliResult {
  int status;
  std::string output;
};
CliResult RunCli(const std::string& args);
// The same for a whole shell command line.
CliResult RunShell(const std::string& command);

// Readable names for parameterised tests ("hogwild", "global", ...).
// gtest names take no '-' ("squared-hinge" reads "squared_hinge").
inline std::string Name(ModelKind v) {
  std::string name(NameOf<ModelKind>(kModelKinds, v));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}
inline std::string Name(SchemeKind v) { return NameOf<SchemeKind>(kSchemeKinds, v); }
inline std::string Name(OrderKind v) { return NameOf<OrderKind>(kOrderKinds, v); }
inline std::string Name(OptimizerKind v) { return NameOf<OptimizerKind>(kOptimizerKinds, v); }
inline std::string Name(int v) { return std::to_string(v).append("threads"); }
// A gtest name generator for tuples or single values of the above: joins the names with '_'.
struct ParamName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return Join(info.param);
  }
  template <class... T>
  static std::string Join(const std::tuple<T...>& t) {
    std::string out;
    std::apply(
        [&](const auto&... v) { ((out.append(out.empty() ? "" : "_").append(Name(v))), ...); }, t);
    return out;
  }
  template <class T>
  static std::string Join(const T& v) {
    return Name(v);
  }
};

// Runs fn(comm) on `ranks` threads, one rank of a MakeThreadGroup each (comm/communicator.hpp);
// returns each rank's error message (empty: none).
std::vector<std::string> RunRanks(int ranks, const std::function<void(Communicator&)>& fn);

// The repository's source folder (for fixtures under data/).
std::string SourcePath(const std::string& relative);

}  // namespace parsgd::testing
