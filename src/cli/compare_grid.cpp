#include "compare_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "experiment_file.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/exec/executor.hpp"

namespace parsgd::cli {
namespace {

using compare::Axis;
using compare::Block;
using compare::Point;

bool IsReadOption(const std::string& flag) {
  return std::any_of(std::begin(kReadOptions), std::end(kReadOptions),
                     [&](const ReadOption& o) { return flag == o.key; });
}

// The flags that change what the objective means: configurations that share them share a target.
// The training data, every read option (kReadOptions: how it is read), and these settings. (Not
// --normalize: for the linear models it is SGD's step scaling, a method's choice on the same
// objective.)
constexpr const char* kProblemSettings[] = {
    "model", "hidden", "l2", "l1", "loss-epsilon", "multiclass", "class-weight", "bias",
    "validation-fraction"};

bool DefinesProblem(const std::string& flag) {
  return flag == "train" || IsReadOption(flag) ||
         std::any_of(std::begin(kProblemSettings), std::end(kProblemSettings),
                     [&](const char* f) { return flag == f; });
}

// Whether `flag` changes the rows a configuration reads: its files, a read option (kReadOptions),
// or the bias (a table's number columns are centred only with one: LoadRunData).
bool ReadsData(const std::string& flag) {
  return flag == "train" || flag == "test" || flag == "validation" || flag == "bias" ||
         IsReadOption(flag);
}

bool Contains(const Block& block, const std::string& flag) {
  return std::any_of(block.begin(), block.end(), [&](const Axis& a) { return a.flag == flag; });
}

// Checks each value through the option's own rule; duplicates are refused.
void CheckAxis(OptionParser& parser, const Axis& axis, const std::string& where) {
  try {
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      parser.Set(axis.flag, axis.values[i]);
      if (std::find(axis.values.begin(), axis.values.begin() + i, axis.values[i]) !=
          axis.values.begin() + i) {
        throw UsageError(fmt::format("--{}: '{}' given twice", axis.flag, axis.values[i]));
      }
    }
  } catch (const UsageError& e) {
    throw UsageError(where + ": " + e.what());
  }
}

// The experiment file's flags join the command line's: the top level as common axes (or, for
// compare's own flags, as single values), the grid as blocks.
std::vector<Block> ReadExperiment(OptionParser& parser, const std::string& path, Block& common) {
  compare::ExperimentFile file;
  try {
    file = compare::ReadExperimentFile(path);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  for (const Axis& axis : file.top) {
    const std::string where = path + ": " + axis.flag;
    if (axis.flag == "out" || axis.flag == "experiment" || axis.flag == "grid") {
      throw UsageError(where + ": give --" + axis.flag + " on the command line");
    }
    if (parser.Given(axis.flag)) {
      throw UsageError(
          fmt::format("{}: --{} given both on the command line and in the file", where, axis.flag));
    }
    if (!parser.TakesLists(axis.flag) && axis.values.size() != 1) {
      throw UsageError(where + ": takes one value, not a list");
    }
    CheckAxis(parser, axis, path);
    if (parser.TakesLists(axis.flag)) common.push_back(axis);
  }
  const std::vector<std::string> names = parser.Names();
  for (std::size_t b = 0; b < file.blocks.size(); ++b) {
    const std::string where = fmt::format("{}: grid[{}]", path, b);
    for (const Axis& axis : file.blocks[b]) {
      const bool declared = std::find(names.begin(), names.end(), axis.flag) != names.end();
      if (declared && !parser.TakesLists(axis.flag)) {
        throw UsageError(
            fmt::format("{}: --{} applies to the whole comparison: give it at the "
                        "top level",
                        where, axis.flag));
      }
      if (Contains(common, axis.flag)) {
        throw UsageError(
            fmt::format("{}: --{} is also given for every configuration (on the "
                        "command line or at the top level)",
                        where, axis.flag));
      }
      CheckAxis(parser, axis, where);
    }
  }
  return file.blocks;
}

// The command line's list-taking flags, as common axes.
Block CommandLineAxes(const OptionParser& parser) {
  Block common;
  for (const std::string& name : parser.Names()) {
    if (!parser.TakesLists(name) || parser.Values(name).empty()) continue;
    common.push_back({name, parser.Values(name)});
  }
  return common;
}

// The point as the report shows it: data files by their names when those tell them apart.
Point Display(const Point& point, const std::vector<Point>& points) {
  Point shown = point;
  for (compare::Setting& s : shown) {
    if (s.flag != "train" && s.flag != "test") continue;
    std::vector<std::string> names;  // the file names of every value of the flag
    std::vector<std::string> paths;
    for (const Point& p : points) {
      const std::string* v = compare::ValueOf(p, s.flag);
      if (v == nullptr || std::find(paths.begin(), paths.end(), *v) != paths.end()) continue;
      paths.push_back(*v);
      names.push_back(std::filesystem::path(*v).filename().string());
    }
    std::sort(names.begin(), names.end());
    if (std::adjacent_find(names.begin(), names.end()) == names.end()) {
      s.value = std::filesystem::path(s.value).filename().string();
    }
  }
  return shown;
}

// " --flag value ..." of a point's train flags (switches as bare flags, values shell-quoted),
// without compare's --ranks.
std::string TrainFlags(const OptionParser& parser, const Point& point) {
  std::string out;
  for (const compare::Setting& s : point) {
    if (s.flag == "ranks") continue;
    if (parser.IsSwitch(s.flag)) {
      if (s.value == "true") out += " --" + s.flag;
      continue;
    }
    out += " --" + s.flag + " " + ShellQuote(s.value);
  }
  return out;
}

PlannedConfig PlanConfig(const OptionParser& parser, const Point& point,
                         const std::vector<Point>& points, const std::vector<std::string>& varying,
                         uint64_t seed, const std::string& mpirun) {
  PlannedConfig pc;
  pc.config.point = point;
  pc.config.display = Display(point, points);
  pc.config.label = compare::Label(pc.config.display, varying);
  // The method: the flags that vary but for the problem's and the data evaluated on (a test
  // set belongs to its problem, not to the method).
  std::vector<std::string> problem, method;
  for (const std::string& flag : varying) {
    if (DefinesProblem(flag)) {
      problem.push_back(flag);
    } else if (flag != "test" && flag != "validation") {
      method.push_back(flag);
    }
  }
  pc.config.problem = compare::Label(pc.config.display, problem);
  pc.config.method = compare::Label(pc.config.display, method);
  // The point's flags applied to train's declarations, as one `train` command line would be.
  OptionParser scratch("train", "");
  DeclareDataOptions(scratch, pc.args, false);
  DeclareTrainingOptions(scratch, pc.args);
  for (const compare::Setting& s : point) {
    if (s.flag == "ranks") {
      pc.ranks = std::stoi(s.value);  // checked by the parser's declaration
      continue;
    }
    scratch.Set(s.flag, s.value);
  }
  pc.args.config.seed = seed;
  pc.args.config.held_out_file = !pc.args.validation.empty();
  if (pc.args.train.empty()) {
    throw UsageError(
        "parsgd compare: --train is required (on the command line or in the "
        "experiment file)");
  }
  try {
    ValidateConfig(pc.args.config, pc.ranks);
  } catch (const Error& e) {
    pc.config.impossible = ErrorText(e);
  }
  for (const compare::Setting& s : point) {
    if (ReadsData(s.flag)) pc.data_key += s.flag + "=" + s.value + "\n";
  }
  pc.flags = TrainFlags(parser, point);
  pc.command = TrainCommand(pc, seed, "parsgd", mpirun);
  return pc;
}

// --jobs N above 1 is for grids judged by epochs: refused where the grid asks a question of time
// (it varies --threads: the speedups) and where no two runs fit at once (every configuration on
// every core, or across ranks): it would change nothing there.
void CheckJobs(const Plan& plan, int jobs) {
  if (std::find(plan.varying.begin(), plan.varying.end(), "threads") != plan.varying.end()) {
    throw UsageError(fmt::format(
        "--jobs {}: this grid varies --threads, a question of time (samples/s, speedups): its "
        "runs must run alone; give --jobs 1",
        jobs));
  }
  const int cores = AvailableCores();
  const bool fit =
      std::any_of(plan.configs.begin(), plan.configs.end(), [&](const PlannedConfig& c) {
        const int threads = c.args.config.threads;
        return c.config.impossible.empty() && c.ranks == 1 && threads > 0 && threads < cores;
      });
  if (!fit) {
    throw UsageError(fmt::format(
        "--jobs {}: every configuration takes all {} cores (--threads auto or more, or several "
        "ranks), so no two runs fit at once; give --threads below {}",
        jobs, cores, cores));
  }
}

}  // namespace

void DeclareCompareOptions(OptionParser& p, CompareArgs& a) {
  p.String("out", &a.out, "DIR",
           "output folder (created; must not exist or be empty): report.md, summary.csv, "
           "runs.csv, runs.jsonl, plots",
           true);
  p.Int("repeats", &a.repeats, "runs of each configuration, repeat r with --seed SEED+r-1", 1,
        100000);
  p.Double("target", &a.target,
           "objective to reach for time to target (auto: the best final objective of all runs "
           "on the same problem + 1%)",
           0, 1e300, -1.0);
  p.Double("target-accuracy", &a.target_accuracy,
           "test accuracy in percent to reach for time to accuracy (auto: the best final test "
           "accuracy of all runs on the same problem - 0.5)",
           0, 100, -1.0);
  p.Double("alpha", &a.alpha, "threshold of the two-sided Welch t-test between configurations", 0,
           0.5, {}, true);
  p.Int("jobs", &a.jobs,
        "runs at once, as long as their --threads fit in the cores, for grids judged by epochs "
        "(objective, accuracy): their times are not reported (not of a run alone); not with a "
        "--threads axis",
        1, 1024);
  p.Choice<OptimumMode>("optimum", &a.optimum, kOptimumModes,
                        "f*, for the suboptimality f - f* of every epoch (log plots, epochs and "
                        "seconds to 1e-2, 1e-3, 1e-4 of |f*|)");
  p.String("experiment", &a.experiment, "FILE",
           "JSON experiment file: flags as keys, values or lists, and \"grid\": [blocks]");
  p.String("gnuplot", &a.gnuplot, "PROGRAM",
           "gnuplot to draw the plots with ('none': only write their data and scripts)");
  p.String("mpirun", &a.mpirun, "COMMAND",
           "the launcher of runs of more than one rank, with any flags of its own "
           "('mpirun --hostfile hosts'): COMMAND -np RANKS parsgd train ...");
  // From here on, train's flags: each may repeat and take a comma-separated list (an axis).
  p.AllowLists(true);
  p.Int("ranks", &a.ranks,
        "processes of each run: above 1 a run is launched with --mpirun, each rank training its "
        "share of the rows (train's --ranks-scheme)",
        1, 4096);
  DeclareDataOptions(p, a.run, false);
  DeclareTrainingOptions(p, a.run);
  p.AllowLists(false);
  p.UInt64("seed", &a.run.config.seed,
           "seed of repeat 1; repeat r runs with SEED+r-1 in every configuration");
}

Plan BuildPlan(OptionParser& parser, CompareArgs& args) {
  Block common = CommandLineAxes(parser);
  std::vector<Block> blocks;
  if (!args.experiment.empty()) blocks = ReadExperiment(parser, args.experiment, common);
  const uint64_t seed = args.run.config.seed;
  const std::vector<Point> points = compare::ExpandGrid(common, blocks, parser.Names());
  Plan plan;
  plan.varying = compare::VaryingFlags(points);
  for (const compare::Setting& s : points.front()) {
    if (std::find(plan.varying.begin(), plan.varying.end(), s.flag) == plan.varying.end()) {
      plan.fixed.push_back(s);
    }
  }
  for (const Point& p : points) {
    plan.configs.push_back(PlanConfig(parser, p, points, plan.varying, seed, args.mpirun));
  }
  const bool any = std::any_of(plan.configs.begin(), plan.configs.end(),
                               [](const PlannedConfig& c) { return c.config.impossible.empty(); });
  if (!any) {
    throw UsageError("every configuration is impossible; the first: " + plan.configs[0].config.label +
                ": " + plan.configs[0].config.impossible);
  }
  if (args.jobs > 1) CheckJobs(plan, args.jobs);
  return plan;
}

std::string ShellQuote(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./,:=+-@%").find(c) != std::string_view::npos;
  });
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string TrainCommand(const PlannedConfig& pc, uint64_t seed, const std::string& program,
                         const std::string& mpirun) {
  const std::string launcher = pc.ranks > 1 ? fmt::format("{} -np {} ", mpirun, pc.ranks) : "";
  return fmt::format("{}{} train{} --seed {}", launcher, program, pc.flags, seed);
}

}  // namespace parsgd::cli
