#include "compare_runs.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "compare_optimum.hpp"
#include "data_memory.hpp"
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

struct Loaded {
  std::optional<Dataset> train, test, validation;
  std::string error;
};

Loaded LoadGroup(const RunArgs& a, std::vector<std::string>& notes) {
  Loaded d;
  try {
    auto executor = MakeTbbExecutor(0);
    // Held in memory where it fits (every run's order then reads it at memory speed); else read
    // from its binary cache under a page budget.
    const DataPlan plan = PlanDataMemory(a, 1, executor->threads());
    d.train = LoadRunData(a.train, a, *executor, nullptr, nullptr, plan.budget);
    notes.push_back(fmt::format("{}: {} rows x {} features ({} nonzeros)", a.train, d.train->rows(),
                                d.train->features(), d.train->nnz()));
    if (!a.test.empty()) {
      d.test = LoadRunData(a.test, a, *executor, &*d.train, nullptr, plan.budget);
      notes.push_back(fmt::format("{} (test): {} rows x {} features", a.test, d.test->rows(),
                                  d.test->features()));
    }
    if (!a.validation.empty()) {
      d.validation = LoadRunData(a.validation, a, *executor, &*d.train, nullptr, plan.budget);
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

  // Runs share the machine from now on (--jobs): each run's lines go to the buffer its caller
  // gives, its epochs carry no times, and a signal reaches the runs through RaiseStops.
  void Share() { shared_ = true; }
  // Every running run's stop flag raised (the scheduler, once a signal came).
  void RaiseStops() {
    std::lock_guard lock(mutex_);
    for (std::atomic<bool>* stop : stops_) stop->store(true, std::memory_order_relaxed);
  }

  // One run. `buffer`: where its runs.jsonl lines go (shared runs), else straight to runs.jsonl.
  // Its record where it is kept; nullopt where a signal came first (it is left out, and says so).
  // Kept or not is decided once, here, with its line on stderr: a run that said it was done (or
  // failed) has its lines in runs.jsonl and its record in the report; one left out has neither.
  std::optional<compare::RunRecord> Run(const PlannedConfig& pc, std::size_t index, int repeat,
                                        int repeats, const Loaded& data,
                                        std::string* buffer = nullptr) {
    compare::RunRecord rec;
    rec.config = index;
    rec.repeat = repeat;
    rec.seed = pc.args.config.seed + static_cast<uint64_t>(repeat);
    Progress(pc, index, repeat, repeats, rec.seed);
    const std::string prefix = fmt::format(R"({{"config":{},"label":{},"repeat":{},)", index + 1,
                                           JsonString(pc.config.label), repeat + 1);
    const auto start = Clock::now();
    std::string lines;  // its epochs' runs.jsonl lines, written once it is kept
    if (pc.ranks > 1) {
      Launch(pc, prefix, rec, lines);
    } else if (!data.error.empty()) {
      rec.error = data.error;
    } else {
      Train(pc, data, prefix, rec, lines);
    }
    std::lock_guard lock(mutex_);
    // (a shared run names itself: the lines of the runs at once interleave)
    const std::string which =
        shared_ ? fmt::format(" (config {}, repeat {})", index + 1, repeat + 1) : "";
    if (interrupted()) {
      std::fprintf(stderr, "    interrupted: this run is left out%s\n", which.c_str());
      return std::nullopt;
    }
    Emit(lines, buffer);
    if (!rec.finished()) {
      Emit(fmt::format(R"({}"seed":{},"epochs_done":{},"error":{}}})", prefix, rec.seed,
                       rec.epochs.size(), JsonString(rec.error)) +
               "\n",
           buffer);
      std::fprintf(stderr, "    failed%s: %s\n", which.c_str(), rec.error.c_str());
    } else {
      std::fprintf(stderr, "    done in %.2fs%s: objective %.6g\n", Since(start), which.c_str(),
                   rec.epochs.back().objective);
    }
    if (buffer == nullptr) jsonl_.Flush();
    ++done_;
    return rec;
  }

 private:
  void Progress(const PlannedConfig& pc, std::size_t index, int repeat, int repeats,
                uint64_t seed) {
    std::lock_guard lock(mutex_);
    const double elapsed = Since(start_);
    const std::string eta = done_ == 0 ? "unknown" : Duration(elapsed / done_ * (total_ - done_));
    std::fprintf(stderr, "[run %d of %d] config %zu: %s, repeat %d/%d (seed %llu); ETA %s\n",
                 ++started_, total_, index + 1, pc.config.label.c_str(), repeat + 1, repeats,
                 static_cast<unsigned long long>(seed), eta.c_str());
    std::fflush(stderr);
  }

  // A run's runs.jsonl lines: to its buffer, or straight to the file.
  void Emit(const std::string& lines, std::string* buffer) {
    if (buffer != nullptr) {
      *buffer += lines;
    } else {
      jsonl_.Write(lines);
    }
  }

  // The signal's way to a run's executor: the guard's watch (one run at a time), or the list
  // RaiseStops walks (shared runs).
  void Watch(std::atomic<bool>& stop) {
    if (!shared_) {
      guard_.Watch(stop);
      return;
    }
    std::lock_guard lock(mutex_);
    stops_.push_back(&stop);
    if (guard_.signal() != 0) stop.store(true, std::memory_order_relaxed);
  }
  void Unwatch(std::atomic<bool>& stop) {
    if (!shared_) {
      guard_.WatchOwn();
      return;
    }
    std::lock_guard lock(mutex_);
    std::erase(stops_, &stop);
  }

  // One `train` run: the same trainer, epochs and metrics as `parsgd train --metrics`.
  // Its runs.jsonl lines go to `lines`, written by Run once the run is kept (a failing write is
  // not the run's failure).
  void Train(const PlannedConfig& pc, const Loaded& data, const std::string& prefix,
             compare::RunRecord& rec, std::string& lines) {
    TrainConfig config = pc.args.config;
    config.seed = rec.seed;
    std::unique_ptr<Executor> executor;  // outlives the watch on its stop flag
    try {
      executor = MakeRunExecutor(config);
      Watch(executor->stop_flag());
      Trainer trainer(config, *data.train, data.test ? &*data.test : nullptr, *executor, nullptr,
                      data.validation ? &*data.validation : nullptr);
      const ResolvedSettings& s = trainer.settings();
      RunLoopOptions loop;
      loop.snapshots = RunLoopOptions::Snapshots::kNone;  // nothing resumes a compare run
      RunEpochs(trainer, loop, [&](const EpochReport& r, double elapsed) {
        // Under --deterministic the metrics carry no times; neither do the statistics, nor
        // those of runs that shared the machine (--jobs: not the time of a run alone).
        rec.epochs.push_back({r.epoch, r.objective, r.test_accuracy,
                              config.deterministic || shared_
                                  ? std::nullopt
                                  : std::optional<double>(r.train_seconds),
                              r.updates});
        lines.append(prefix).append(EpochJson(r, config, trainer.config(), s, elapsed), 1).append("\n");
      });
    } catch (const std::exception& e) {
      rec.error = ErrorText(e);
    }
    if (executor) Unwatch(executor->stop_flag());  // before the executor goes
  }

  // One run across ranks: `parsgd train` under the launcher, its metrics read back. Never shared:
  // the grid's runs across ranks run alone.
  void Launch(const PlannedConfig& pc, const std::string& prefix, compare::RunRecord& rec,
              std::string& lines) {
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
      const std::string metrics_lines = ReadText(metrics);
      rec.epochs = compare::ReadEpochRecords(metrics_lines);
      std::istringstream in(metrics_lines);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) lines += prefix + line.substr(1) + "\n";
      }
    } catch (const std::exception& e) {
      rec.error = e.what();
    }
  }

  int total_;
  int done_ = 0, started_ = 0;
  bool shared_ = false;
  std::mutex mutex_;  // the counts, stderr, runs.jsonl and stops_, between shared runs
  std::vector<std::atomic<bool>*> stops_;  // shared runs' executors' stop flags
  std::string mpirun_;
  std::string program_ = ThisProgram();
  std::optional<ScratchFolder> scratch_;
  AtomicFileWriter& jsonl_;
  InterruptGuard& guard_;
  int launcher_signal_ = 0;  // the signal that ended a launcher (mpirun) run
  Clock::time_point start_ = Clock::now();
};

// The reference optimum of every problem of data group `key` (its configurations' first of each
// problem), on the group's data (loaded here where its runs ran across ranks); none for a problem
// none of whose `runs` finished (nothing to measure against it).
void SolveGroupOptima(const Plan& plan, const std::string& key, std::optional<Loaded>& data,
                      InterruptGuard& guard, const std::vector<compare::RunRecord>& runs,
                      std::vector<compare::Reference>& references) {
  for (const PlannedConfig& pc : plan.configs) {
    if (!pc.config.impossible.empty() || pc.data_key != key) continue;
    const std::string& problem = pc.config.problem;
    if (std::any_of(references.begin(), references.end(),
                    [&](const compare::Reference& r) { return r.problem == problem; })) {
      continue;
    }
    const bool any_finished = std::any_of(runs.begin(), runs.end(), [&](const compare::RunRecord& r) {
      return r.finished() && r.config < plan.configs.size() &&
             plan.configs[r.config].config.problem == problem;
    });
    compare::Reference ref;
    if (!any_finished) {
      ref.problem = problem;
      ref.why_none = "no run of the problem finished: nothing to measure against an optimum";
      std::fprintf(stderr, "    no solver: %s\n", ref.why_none.c_str());
      references.push_back(std::move(ref));
      continue;
    }
    std::vector<std::string> notes;  // the runs' loading noted the data already
    if (!data) data = LoadGroup(pc.args, notes);
    if (!data->error.empty()) {
      ref.problem = problem;
      ref.why_none = data->error;
    } else {
      // (a grid of one problem labels it "all runs")
      std::fprintf(stderr, "[optimum] %s: solving for the reference f*\n",
                   problem.empty() || problem == "all runs" ? "the problem" : problem.c_str());
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

// The threads a configuration's run takes (auto: every core), at most `cores`.
int ThreadsOf(const PlannedConfig& pc, int cores) {
  const int threads = pc.args.config.threads;
  return threads <= 0 ? cores : std::min(threads, cores);
}

struct Task {
  std::size_t config = 0;
  int repeat = 0;
};

// `tasks` run up to `jobs` at a time, as long as their threads fit in `cores` (a run across ranks,
// or one on every core, runs alone); their records and runs.jsonl lines are kept in the tasks'
// order, so that the output does not depend on which finished first. A signal stops the runs in
// progress (left out, as the run in progress of a sequential grid).
void RunShared(const Plan& plan, const std::vector<Task>& tasks, int repeats, const Loaded& data,
               int jobs, int cores, Runner& runner, InterruptGuard& guard, AtomicFileWriter& jsonl,
               std::vector<compare::RunRecord>& runs) {
  struct Slot {
    std::optional<compare::RunRecord> rec;  // nullopt: left out (Runner::Run)
    std::string lines;
  };
  std::vector<Slot> slots(tasks.size());
  std::mutex mutex;
  std::condition_variable finished;
  int running = 0, used = 0;
  std::vector<std::thread> threads;
  auto wait = [&](std::unique_lock<std::mutex>& lock) {
    finished.wait_for(lock, std::chrono::milliseconds(50));
    if (guard.signal() != 0) runner.RaiseStops();
  };
  std::unique_lock lock(mutex);
  for (std::size_t next = 0; next < tasks.size() && !runner.interrupted();) {
    const PlannedConfig& pc = plan.configs[tasks[next].config];
    const bool alone = pc.ranks > 1 || ThreadsOf(pc, cores) >= cores;
    const int need = alone ? cores : ThreadsOf(pc, cores);
    if (running > 0 && (running >= jobs || used + need > cores)) {
      wait(lock);
      continue;
    }
    ++running;
    used += need;
    threads.emplace_back([&, k = next, need] {
      Slot& slot = slots[k];
      slot.rec = runner.Run(plan.configs[tasks[k].config], tasks[k].config, tasks[k].repeat,
                            repeats, data, &slot.lines);
      std::lock_guard done(mutex);
      --running;
      used -= need;
      finished.notify_all();
    });
    ++next;
  }
  while (running > 0) wait(lock);
  lock.unlock();
  for (std::thread& t : threads) t.join();
  for (Slot& slot : slots) {
    if (!slot.rec) continue;
    jsonl.Write(slot.lines);
    runs.push_back(std::move(*slot.rec));
  }
  jsonl.Flush();
}

RunOutcome RunAll(const Plan& plan, int repeats, const std::string& mpirun, AtomicFileWriter& jsonl,
                  InterruptGuard& guard, const std::vector<compare::KeptRun>& kept, bool optimum,
                  int jobs) {
  std::vector<std::string> keys;  // the data groups, in order of first appearance
  int possible = 0;
  for (const PlannedConfig& pc : plan.configs) {
    if (!pc.config.impossible.empty()) continue;
    ++possible;
    const std::string key = pc.data_key;
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
    // Runs that shared the machine carry no times (Runner::Share).
    if (jobs > 1) {
      for (compare::EpochRecord& e : out.runs.back().epochs) e.train_seconds.reset();
    }
    jsonl.Write(k.lines);
  }
  Runner runner(out.planned - static_cast<int>(kept.size()), mpirun, jsonl, guard);
  if (jobs > 1) runner.Share();
  const int cores = AvailableCores();
  const Loaded none;  // the data of a run across ranks: its ranks read their own shares
  for (const std::string& key : keys) {
    std::optional<Loaded> data;  // loaded when the group starts, freed when it ends
    if (jobs > 1) {
      std::vector<Task> tasks;  // repeat by repeat, as one at a time
      for (int r = 0; r < repeats; ++r) {
        for (std::size_t i = 0; i < plan.configs.size(); ++i) {
          const PlannedConfig& pc = plan.configs[i];
          if (!pc.config.impossible.empty() || pc.data_key != key || is_kept(i, r)) continue;
          tasks.push_back({i, r});
          if (!data && pc.ranks == 1) data = LoadGroup(pc.args, out.data);
        }
      }
      RunShared(plan, tasks, repeats, data ? *data : none, jobs, cores, runner, guard, jsonl,
                out.runs);
      if (runner.interrupted()) {
        out.signal = runner.signal();
        return out;
      }
    }
    for (int r = 0; r < repeats && jobs == 1; ++r) {
      for (std::size_t i = 0; i < plan.configs.size(); ++i) {
        const PlannedConfig& pc = plan.configs[i];
        if (!pc.config.impossible.empty() || pc.data_key != key || is_kept(i, r)) continue;
        if (runner.interrupted()) {
          out.signal = runner.signal();
          return out;
        }
        if (!data && pc.ranks == 1) data = LoadGroup(pc.args, out.data);
        auto rec = runner.Run(pc, i, r, repeats, data ? *data : none);  // nullopt: left out
        if (rec) out.runs.push_back(std::move(*rec));
        if (runner.interrupted()) {
          out.signal = runner.signal();
          return out;
        }
      }
    }
    if (optimum) {
      SolveGroupOptima(plan, key, data, guard, out.runs, out.references);
      if (guard.signal() != 0) {
        out.signal = guard.signal();
        return out;
      }
    }
  }
  return out;
}

}  // namespace parsgd::cli
