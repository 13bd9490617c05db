// parsgd compare: runs a grid of `train` configurations, each repeated, one run after another,
// and writes an output folder: every epoch (runs.jsonl), one row per run and per configuration
// (runs.csv, summary.csv), a Markdown report with the statistics over repeats, and plots
// (gnuplot data and scripts, and their images when gnuplot is there).
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "build_info.hpp"
#include "commands.hpp"
#include "compare_grid.hpp"
#include "compare_runs.hpp"
#include "csv_writer.hpp"
#include "html_report.hpp"
#include "markdown_report.hpp"
#include "output_folder.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "plot_writer.hpp"
#include "text_format.hpp"

namespace parsgd::cli {
namespace {

constexpr const char* kSummary =
    "Compare training configurations: every flag of `parsgd train` may take a comma-separated "
    "list (or be repeated: --hidden 256,128 --hidden 64), and the grid is their Cartesian "
    "product (--experiment FILE for unions of grids). Each configuration runs --repeats times, "
    "one run after another, each a full `train` run with --seed SEED+r-1. The output folder gets "
    "report.md (mean and sample standard deviation over repeats, time to target, samples/s, "
    "speedup over 1 thread, Welch's t-test between configurations), summary.csv, runs.csv, "
    "runs.jsonl, plots (gnuplot) and report.html (the report as one self-contained page, "
    "its plots inline).\n\n"
    "example: parsgd compare --train data.svm --out cmp --order random,global,local "
    "--scheme hogwild,sync --threads 1,2 --epochs 10 --repeats 5";

void PrintStart(const Plan& plan, int repeats, const std::string& out) {
  int impossible = 0;
  for (const PlannedConfig& pc : plan.configs) impossible += !pc.config.impossible.empty();
  const int runs = static_cast<int>(plan.configs.size() - impossible) * repeats;
  std::fprintf(stderr, "parsgd compare: %zu configurations x %d repeats = %d runs, into %s\n",
               plan.configs.size(), repeats, runs, out.c_str());
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const auto& c = plan.configs[i].config;
    if (!c.impossible.empty()) {
      std::fprintf(stderr, "  config %zu (%s) is impossible and will be reported, not run: %s\n",
                   i + 1, c.label.c_str(), c.impossible.c_str());
    }
  }
}

void PrintEnd(const Plan& plan, const compare::Analysis& analysis, const compare::DrawResult& d,
              const std::string& out) {
  std::printf("%s", fmt::format("{:>4}  {:<40}  {:>6}  {}\n", "#", "configuration", "runs",
                                "final objective (mean ± std)")
                        .c_str());
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const auto& c = plan.configs[i].config;
    const auto& r = analysis.configs[i];
    const std::string result = !c.impossible.empty() ? "impossible"
                               : r.objective.n == 0
                                   ? "failed: " + r.error
                                   : compare::MeanStd(r.objective.mean, r.objective.std, 6);
    std::printf("%s", fmt::format("{:>4}  {:<40}  {:>6}  {}\n", i + 1, c.label,
                                  fmt::format("{}/{}", r.runs - r.failed, r.runs), result)
                          .c_str());
  }
  const char* plots = d.state == compare::DrawResult::State::kDrawn
                          ? "plots drawn"
                          : "plots as data and gnuplot scripts (not drawn: see the report)";
  std::printf("wrote %s/report.md, report.html, summary.csv, runs.csv, runs.jsonl; %s\n",
              out.c_str(), plots);
}

// What a comparison's runs are: the configurations' commands, the repeats and the base seed. An
// interrupted comparison writes it (kInterrupted), so that the same grid rerun into the same
// folder takes up the runs it finished.
constexpr const char* kInterrupted = "interrupted.txt";

std::string GridIdentity(const Plan& plan, int repeats, uint64_t seed, int jobs) {
  // (runs that shared the machine recorded no times: they are not taken up by runs alone)
  std::string out = fmt::format("parsgd compare, {} repeats from seed {}{}:\n", repeats, seed,
                                jobs > 1 ? fmt::format(", {} at a time", jobs) : "");
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const PlannedConfig& pc = plan.configs[i];
    out +=
        fmt::format("{}. {}\n", i + 1,
                    pc.config.impossible.empty() ? pc.command : "impossible: " + pc.config.label);
  }
  return out;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The finished runs of an interrupted comparison of the same grid in folder `out`; nullopt where
// it holds none (a folder that is not empty is then refused by StagedFolder). Throws where it
// holds an interrupted comparison of another grid.
std::optional<std::vector<compare::KeptRun>> Resumable(const std::string& out,
                                                       const std::string& identity) {
  std::error_code ec;
  const std::string marker = out + "/" + kInterrupted;
  if (!std::filesystem::exists(marker, ec)) return std::nullopt;
  if (Contents(marker) != identity) {
    throw Error(out + ": holds an interrupted comparison of another grid (" + kInterrupted +
                "; choose another --out, or remove it)");
  }
  return compare::ReadRuns(Contents(out + "/runs.jsonl"));
}

// The date and time now, in UTC ("YYYY-MM-DD HH:MM UTC").
std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

std::string CommandLine(std::span<const std::string> args) {
  std::string out = "parsgd compare";
  for (const std::string& a : args) out += " " + ShellQuote(a);
  return out;
}

}  // namespace

int Compare(std::span<const std::string> args) {
  CompareArgs a;
  OptionParser parser("compare", kSummary);
  DeclareCompareOptions(parser, a);
  if (!parser.Parse(args)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  // Everything is checked before the first run: the grid, the output folder, the data files.
  const Plan plan = BuildPlan(parser, a);
  const std::string identity = GridIdentity(plan, a.repeats, a.run.config.seed, a.jobs);
  const auto kept = Resumable(a.out, identity);
  compare::StagedFolder folder(a.out, /*replace=*/kept.has_value());
  CheckDataFiles(plan);
  PrintStart(plan, a.repeats, a.out);
  if (kept) {
    std::fprintf(stderr,
                 "parsgd compare: taking up the %zu finished runs of the interrupted "
                 "comparison in %s\n",
                 kept->size(), a.out.c_str());
  }

  AtomicFileWriter jsonl(folder.File("runs.jsonl"));
  RunOutcome outcome;
  {
    // A signal ends the grid, not the command: the finished runs are reported (RunAll).
    std::atomic<bool> before_the_first_run{false};
    InterruptGuard guard(before_the_first_run);
    outcome = RunAll(plan, a.repeats, a.mpirun, jsonl, guard,
                     kept.value_or(std::vector<compare::KeptRun>{}),
                     a.optimum == OptimumMode::kAuto, a.jobs);
  }
  jsonl.Commit();

  std::vector<compare::Configuration> configs;
  std::vector<std::string> commands;
  for (const PlannedConfig& pc : plan.configs) {
    configs.push_back(pc.config);
    commands.push_back(pc.command);
  }
  compare::AnalysisOptions options;
  if (a.target >= 0) options.target = a.target;
  if (a.target_accuracy >= 0) options.target_accuracy = a.target_accuracy / 100;
  options.alpha = a.alpha;
  options.optimum = a.optimum != OptimumMode::kNone;
  options.references = outcome.references;
  const compare::Analysis analysis = compare::Analyze(configs, outcome.runs, plan.varying, options);
  folder.Write("summary.csv", compare::SummaryCsv(configs, analysis, plan.varying));
  folder.Write("runs.csv", compare::RunsCsv(configs, outcome.runs, analysis));
  const compare::Plots plots = compare::MakePlots(configs, analysis, plan.varying, a.jobs);
  for (const compare::PlotFile& f : plots.files) folder.Write(f.name, f.contents);
  compare::DrawResult drawn;
  if (a.gnuplot == "none") {
    drawn.state = compare::DrawResult::State::kSkipped;
  } else if (!plots.scripts.empty()) {
    drawn = compare::DrawPlots(a.gnuplot, folder.staging(), plots.scripts);
  }

  compare::ReportInput report;
  report.command = CommandLine(args);
  report.configs = &configs;
  report.runs = &outcome.runs;
  report.analysis = &analysis;
  report.varying = plan.varying;
  report.fixed = plan.fixed;
  for (compare::Setting& s : report.fixed) {  // switches read as on the command line
    if (parser.IsSwitch(s.flag)) s.value = s.value == "true" ? "" : "(off)";
  }
  report.commands = commands;
  report.data = outcome.data;
  report.repeats = a.repeats;
  report.planned_runs = outcome.planned;
  report.interrupted = outcome.signal != 0;
  report.seed = a.run.config.seed;
  report.alpha = a.alpha;
  report.cores = AvailableCores();
  report.jobs = a.jobs;
  report.plots = &plots;
  report.drawn = drawn;
  report.cpu = CpuModel();
  report.program = ProgramVersion();
  if (!a.run.config.deterministic) report.date = UtcNow();
  const std::string markdown = compare::MarkdownReport(report);
  folder.Write("report.md", markdown);
  folder.Write("report.html", compare::HtmlReport(report, markdown));
  if (outcome.signal != 0) folder.Write(kInterrupted, identity);
  folder.Commit();

  PrintEnd(plan, analysis, drawn, a.out);
  if (outcome.signal != 0) {
    std::fprintf(stderr,
                 "parsgd compare: interrupted after %zu of %d runs; the report in %s is of those "
                 "(the same command again runs the rest)\n",
                 outcome.runs.size(), outcome.planned, a.out.c_str());
    return 128 + outcome.signal;
  }
  const bool any_finished = std::any_of(outcome.runs.begin(), outcome.runs.end(),
                                        [](const compare::RunRecord& r) { return r.finished(); });
  if (!any_finished) {
    std::fprintf(stderr, "parsgd compare: every run failed (see %s/report.md)\n", a.out.c_str());
    return 1;
  }
  return 0;
}

}  // namespace parsgd::cli
