#include "compare_runs.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

#include "compare_optimum.hpp"
#include "metrics_reader.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "report.hpp"

namespace parsgd::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string Duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

// The data sets of one group of configurations (same files, format and feature count).
std::string DataKey(const RunArgs& a) {
  return fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{} {} {} {}\n{}", a.train, a.test,
                     a.validation,
                     DataFormatName(a.format), a.features,
                     NameOf<ZeroBased>(kZeroBasedSettings, a.zero_based),
                     NameOf<CsvHeader>(kCsvHeaders, a.header), static_cast<int>(a.delimiter),
                     a.label_column, NameOf<CsvMissing>(kCsvMissings, a.missing),
                     a.weight_column, a.hash_bits,
                     a.ngrams, a.char_ngrams, a.interactions, a.categorical);
}

struct Loaded {
  std::optional<Dataset> train, test, validation;
  std::string error;
};

Loaded LoadGroup(const RunArgs& a, std::vector<std::string>& notes) {
  Loaded d;
  try {
    auto executor = MakeTbbExecutor(0);
    d.train = LoadRunData(a.train, a, *executor);
    notes.push_back(fmt::format("{}: {} rows x {} features ({} nonzeros)", a.train, d.train->rows(),
                                d.train->features(), d.train->nnz()));
    if (!a.test.empty()) {
      d.test = LoadRunData(a.test, a, *executor, &*d.train);
      notes.push_back(fmt::format("{} (test): {} rows x {} features", a.test, d.test->rows(),
                                  d.test->features()));
    }
    if (!a.validation.empty()) {
      d.validation = LoadRunData(a.validation, a, *executor, &*d.train);
      notes.push_back(fmt::format("{} (held out): {} rows x {} features", a.validation,
                                  d.validation->rows(), d.validation->features()));
    }
  } catch (const std::exception& e) {
    d.error = std::string("cannot load the data: ") + e.what();
  }
  return d;
}

// The path of this program, to launch it under mpirun.
std::string ThisProgram() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("parsgd") : self.string();
}

// A scratch folder for the files of the runs launched as processes, removed with its contents.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "parsgd-compare-XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) throw Error("cannot make a temporary folder: " + name);
    path_ = name;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What a failed process said: its "parsgd: error: ..." line without the prefix, or its last line.
std::string FailureOf(const std::string& output, int status) {
  std::string last;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const std::string prefix = "parsgd: error: ";
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    if (!line.empty()) last = line;
  }
  return last.empty() ? fmt::format("the run ended with status {}", status) : last;
}

class Runner {
 public:
  Runner(int total, const std::string& mpirun, AtomicFileWriter& jsonl, InterruptGuard& guard)
      : total_(total), mpirun_(mpirun), jsonl_(jsonl), guard_(guard) {}

  // The signal that ended the grid (the run it came in is not recorded), or 0.
  int signal() const { return launcher_signal_ != 0 ? launcher_signal_ : guard_.signal(); }
  bool interrupted() const { return signal() != 0; }

  compare::RunRecord Run(const PlannedConfig& pc, std::size_t index, int repeat, int repeats,
                         const Loaded& data) {
    compare::RunRecord rec;
    rec.config = index;
    rec.repeat = repeat;
    rec.seed = pc.args.config.seed + static_cast<uint64_t>(repeat);
    Progress(pc, index, repeat, repeats, rec.seed);
    const std::string prefix = fmt::format(R"({{"config":{},"label":{},"repeat":{},)", index + 1,
                                           JsonString(pc.config.label), repeat + 1);
    const auto start = Clock::now();
    if (pc.ranks > 1) {
      Launch(pc, prefix, rec);
    } else if (!data.error.empty()) {
      rec.error = data.error;
    } else {
      Train(pc, data, prefix, rec);
    }
    if (interrupted()) {
      std::fprintf(stderr, "    interrupted: this run is left out\n");
      return rec;
    }
    if (!rec.finished()) {
      jsonl_.Write(fmt::format(R"({}"seed":{},"epochs_done":{},"error":{}}})", prefix, rec.seed,
                               rec.epochs.size(), JsonString(rec.error)) +
                   "\n");
      std::fprintf(stderr, "    failed: %s\n", rec.error.c_str());
    } else {
      std::fprintf(stderr, "    done in %.2fs: objective %.6g\n", Since(start),
                   rec.epochs.back().objective);
    }
    jsonl_.Flush();
    ++done_;
    return rec;
  }

 private:
  void Progress(const PlannedConfig& pc, std::size_t index, int repeat, int repeats,
                uint64_t seed) {
    const double elapsed = Since(start_);
    const std::string eta = done_ == 0 ? "unknown" : Duration(elapsed / done_ * (total_ - done_));
    std::fprintf(stderr, "[run %d of %d] config %zu: %s, repeat %d/%d (seed %llu); ETA %s\n",
                 done_ + 1, total_, index + 1, pc.config.label.c_str(), repeat + 1, repeats,
                 static_cast<unsigned long long>(seed), eta.c_str());
    std::fflush(stderr);
  }

  // One `train` run: the same trainer, epochs and metrics as `parsgd train --metrics`.
  void Train(const PlannedConfig& pc, const Loaded& data, const std::string& prefix,
             compare::RunRecord& rec) {
    TrainConfig config = pc.args.config;
    config.seed = rec.seed;
    std::string lines;  // written after the run: a failing write is not the run's failure
    std::unique_ptr<Executor> executor;  // outlives the watch on its stop flag
    try {
      executor = MakeRunExecutor(config);
      guard_.Watch(executor->stop_flag());
      Trainer trainer(config, *data.train, data.test ? &*data.test : nullptr, *executor, nullptr,
                      data.validation ? &*data.validation : nullptr);
      const ResolvedSettings& s = trainer.settings();
      RunLoopOptions loop;
      loop.snapshots = RunLoopOptions::Snapshots::kNone;  // nothing resumes a compare run
      RunEpochs(trainer, loop, [&](const EpochReport& r, double elapsed) {
        // Under --deterministic the metrics carry no times; neither do the statistics.
        rec.epochs.push_back(
            {r.epoch, r.objective, r.test_accuracy,
             config.deterministic ? std::nullopt : std::optional<double>(r.train_seconds),
             r.updates});
        lines.append(prefix).append(EpochJson(r, config, trainer.config(), s, elapsed), 1).append("\n");
      });
    } catch (const std::exception& e) {
      rec.error = ErrorText(e);
    }
    guard_.WatchOwn();  // before the executor goes
    if (!interrupted()) jsonl_.Write(lines);
  }

  // One run across ranks: `parsgd train` under the launcher, its metrics read back.
  void Launch(const PlannedConfig& pc, const std::string& prefix, compare::RunRecord& rec) {
    if (!scratch_) scratch_.emplace();
    const std::string metrics = scratch_->File("metrics.jsonl"), output = scratch_->File("output");
    std::filesystem::remove(metrics);
    const std::string command = TrainCommand(pc, rec.seed, ShellQuote(program_), mpirun_) +
                                " --quiet --metrics " + ShellQuote(metrics) + " > " +
                                ShellQuote(output) + " 2>&1";
    std::fflush(stderr);
    const int status = std::system(command.c_str());
    // system() ignores SIGINT in this process while the launcher runs; the launcher (a shell)
    // ends with 128 + the signal that ended it.
    if (status != -1 && WIFEXITED(status) &&
        (WEXITSTATUS(status) == 128 + SIGINT || WEXITSTATUS(status) == 128 + SIGTERM)) {
      launcher_signal_ = WEXITSTATUS(status) - 128;
      return;
    }
    try {
      if (status != 0) throw Error(FailureOf(ReadText(output), status));
      const std::string lines = ReadText(metrics);
      rec.epochs = compare::ReadEpochRecords(lines);
      std::istringstream in(lines);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) jsonl_.Write(prefix + line.substr(1) + "\n");
      }
    } catch (const std::exception& e) {
      rec.error = e.what();
    }
  }

  int total_;
  int done_ = 0;
  std::string mpirun_;
  std::string program_ = ThisProgram();
  std::optional<ScratchFolder> scratch_;
  AtomicFileWriter& jsonl_;
  InterruptGuard& guard_;
  int launcher_signal_ = 0;  // the signal that ended a launcher (mpirun) run
  Clock::time_point start_ = Clock::now();
};

// The reference optimum of every problem of data group `key` (its configurations' first of each
// problem), on the group's data (loaded here where its runs ran across ranks).
void SolveGroupOptima(const Plan& plan, const std::string& key, std::optional<Loaded>& data,
                      InterruptGuard& guard, std::vector<compare::Reference>& references) {
  for (const PlannedConfig& pc : plan.configs) {
    if (!pc.config.impossible.empty() || DataKey(pc.args) != key) continue;
    const std::string& problem = pc.config.problem;
    if (std::any_of(references.begin(), references.end(),
                    [&](const compare::Reference& r) { return r.problem == problem; })) {
      continue;
    }
    std::vector<std::string> notes;  // the runs' loading noted the data already
    if (!data) data = LoadGroup(pc.args, notes);
    compare::Reference ref;
    if (!data->error.empty()) {
      ref.problem = problem;
      ref.why_none = data->error;
    } else {
      std::fprintf(stderr, "[optimum] %s: solving for the reference f*\n",
                   problem.empty() ? "the problem" : problem.c_str());
      std::fflush(stderr);
      ref = SolveOptimum(problem, pc.args.config, *data->train, guard);
    }
    if (guard.signal() != 0) return;  // the grid ends: this problem has no reference
    if (ref.solver.empty()) {
      std::fprintf(stderr, "    no solver: %s (f* is the runs' lowest objective)\n",
                   ref.why_none.c_str());
    } else {
      std::fprintf(stderr, "    %s, %d epochs in %.2fs: f* = %.10g%s\n", ref.solver.c_str(),
                   ref.epochs, ref.seconds, ref.objective,
                   ref.gap ? fmt::format(", duality gap {:.2g}", *ref.gap).c_str() : "");
    }
    references.push_back(std::move(ref));
  }
}

}  // namespace

void CheckDataFiles(const Plan& plan) {
  auto check = [](const std::string& path) {
    std::vector<std::string> files = {path};
    if (!std::filesystem::exists(path) && path.find(',') != std::string::npos) {  // IDX pair
      files = {path.substr(0, path.find(',')), path.substr(path.find(',') + 1)};
    }
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) throw Error(file + ": cannot open: " + std::strerror(errno));
    }
    DetectDataFormat(path);
  };
  for (const PlannedConfig& pc : plan.configs) {
    if (!pc.config.impossible.empty()) continue;
    check(pc.args.train);
    if (!pc.args.test.empty()) check(pc.args.test);
    if (!pc.args.validation.empty()) check(pc.args.validation);
  }
}

RunOutcome RunAll(const Plan& plan, int repeats, const std::string& mpirun, AtomicFileWriter& jsonl,
                  InterruptGuard& guard, const std::vector<compare::KeptRun>& kept, bool optimum) {
  std::vector<std::string> keys;  // the data groups, in order of first appearance
  int possible = 0;
  for (const PlannedConfig& pc : plan.configs) {
    if (!pc.config.impossible.empty()) continue;
    ++possible;
    const std::string key = DataKey(pc.args);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  RunOutcome out;
  out.planned = possible * repeats;
  auto is_kept = [&](std::size_t config, int repeat) {
    return std::any_of(kept.begin(), kept.end(), [&](const compare::KeptRun& k) {
      return k.record.config == config && k.record.repeat == repeat;
    });
  };
  for (const compare::KeptRun& k : kept) {
    out.runs.push_back(k.record);
    jsonl.Write(k.lines);
  }
  Runner runner(out.planned - static_cast<int>(kept.size()), mpirun, jsonl, guard);
  const Loaded none;  // the data of a run across ranks: its ranks read their own shares
  for (const std::string& key : keys) {
    std::optional<Loaded> data;  // loaded when the group starts, freed when it ends
    for (int r = 0; r < repeats; ++r) {
      for (std::size_t i = 0; i < plan.configs.size(); ++i) {
        const PlannedConfig& pc = plan.configs[i];
        if (!pc.config.impossible.empty() || DataKey(pc.args) != key || is_kept(i, r)) continue;
        if (runner.interrupted()) {
          out.signal = runner.signal();
          return out;
        }
        if (!data && pc.ranks == 1) data = LoadGroup(pc.args, out.data);
        compare::RunRecord rec = runner.Run(pc, i, r, repeats, data ? *data : none);
        if (runner.interrupted()) {
          out.signal = runner.signal();
          return out;
        }
        out.runs.push_back(std::move(rec));
      }
    }
    if (optimum) {
      SolveGroupOptima(plan, key, data, guard, out.references);
      if (guard.signal() != 0) {
        out.signal = guard.signal();
        return out;
      }
    }
  }
  return out;
}

}  // namespace parsgd::cli
