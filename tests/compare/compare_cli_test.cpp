// End-to-end tests of `parsgd compare`: the real program on a tiny generated set; its output
// folder, its refusals, failed runs, determinism, and the plots with and without gnuplot.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gnuplot.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::RunCli;
using testing::Contains;
using testing::Lines;

// Every file of a folder, by name.
std::vector<std::string> Names(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// `parsgd compare ARGS --out OUT` in the background, its stderr to ERR, sent SIGINT once its
// progress reaches run `run`; its exit status.
int InterruptedCompare(const std::string& args, const std::string& out, const std::string& err,
                       int run) {
  return testing::RunShell(std::string(PARSGD_CLI_PATH) + " compare" + args + " --out " + out +
                           " 2> " + err + " > /dev/null & pid=$!; until grep -q 'run " +
                           std::to_string(run) + " of' " + err +
                           " 2>/dev/null || ! kill -0 $pid 2>/dev/null; do sleep 0.02; done; "
                           "kill -INT $pid; wait $pid")
      .status;
}

class Compare : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto gen = RunCli("gen " + dir_.File("all.svm") +
                            " --rows 600 --features 200 --nnz 10 --noise 0.02 --seed 5");
    ASSERT_EQ(gen.status, 0) << gen.output;
    const auto lines = Lines(ReadFile(dir_.File("all.svm")));
    std::string train, test;
    for (std::size_t i = 0; i < lines.size(); ++i) (i < 500 ? train : test) += lines[i] + "\n";
    train_ = dir_.Write("train.svm", train);
    test_ = dir_.Write("test.svm", test);
    data_ = " --train " + train_ + " --test " + test_;
  }
  // Nothing but the inputs (and `also`) in the scratch folder: no output, no staging folder.
  void ExpectNothingWritten(const std::vector<std::string>& also = {}) {
    std::vector<std::string> expected = {"all.svm", "test.svm", "train.svm"};
    expected.insert(expected.end(), also.begin(), also.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(Names(dir_.path()), expected);
  }
  testing::TempDir dir_;
  std::string train_, test_, data_;
};

TEST_F(Compare, SmallGridWritesEveryFile) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare" + data_ + " --out " + out +
                        " --order random,global --scheme hogwild,sync --threads 1,2 --epochs 3 "
                        "--repeats 2 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(Names(out),
            (std::vector<std::string>{"objective.dat", "objective_epoch.gp", "objective_seconds.gp",
                                      "report.html", "report.md", "runs.csv", "runs.jsonl",
                                      "speedup.dat", "speedup.gp", "suboptimality_epoch.gp",
                                      "suboptimality_seconds.gp", "summary.csv"}));
  // The progress: one line per run on stderr, with its place, configuration and an ETA.
  EXPECT_TRUE(Contains(r.output,
                       "[run 1 of 16] config 1: scheme=hogwild order=random threads=1, "
                       "repeat 1/2 (seed 1); ETA unknown"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "[run 16 of 16] config 8: scheme=sync order=global threads=2, "
                       "repeat 2/2 (seed 2); ETA "))
      << r.output;
  // Every epoch of every run: 8 configurations x 2 repeats x 3 epochs.
  const auto jsonl = Lines(ReadFile(out + "/runs.jsonl"));
  ASSERT_EQ(jsonl.size(), 48u);
  EXPECT_EQ(jsonl[0].rfind(R"({"config":1,"label":"scheme=hogwild order=random threads=1",)"
                           R"("repeat":1,"epoch":1,)",
                           0),
            0u)
      << jsonl[0];
  for (const auto& line : jsonl) EXPECT_TRUE(Contains(line, "\"test_accuracy\":")) << line;
  EXPECT_EQ(Lines(ReadFile(out + "/summary.csv")).size(), 9u);
  EXPECT_EQ(Lines(ReadFile(out + "/runs.csv")).size(), 17u);
  const std::string report = ReadFile(out + "/report.md");
  for (const char* part :
       {"8 configurations x 2 repeats: 16 runs", "| 8 | scheme=sync order=global threads=2 | 2 |",
        "Welch's two-sample t-test", "threshold **p < 0.05**", "### `--order`", "### `--scheme`",
        "### `--threads`", "No images drawn (`--gnuplot none`)", "gnuplot objective_epoch.gp",
        "best final objective of all runs", "`parsgd train --train "}) {
    EXPECT_TRUE(Contains(report, part)) << part << "\n" << report;
  }
  ExpectNothingWritten({"out"});
}

// Every run is a `train` run: under --deterministic its epochs are train's metrics, byte for byte.
TEST_F(Compare, EachRunIsTheTrainRunItNames) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare" + data_ + " --out " + out +
                        " --scheme sequential,sync --epochs 2 --repeats 2 --seed 7 "
                        "--deterministic --threads 2 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto jsonl = Lines(ReadFile(out + "/runs.jsonl"));
  const std::string metrics = dir_.File("m.jsonl");
  const auto t = RunCli("train" + data_ +
                        " --scheme sync --epochs 2 --seed 8 --deterministic "
                        "--threads 2 --quiet --metrics " +
                        metrics);
  ASSERT_EQ(t.status, 0) << t.output;
  const auto expected = Lines(ReadFile(metrics));
  ASSERT_EQ(expected.size(), 2u);
  // Runs go repeat by repeat: sequential r1, sync r1, sequential r2, sync r2 (seed 7 + 1).
  ASSERT_EQ(jsonl.size(), 8u);
  for (int e = 0; e < 2; ++e) {
    const std::string prefix = R"({"config":2,"label":"scheme=sync","repeat":2,)";
    ASSERT_EQ(jsonl[6 + e].rfind(prefix, 0), 0u) << jsonl[6 + e];
    EXPECT_EQ(std::string(1, '{').append(jsonl[6 + e], prefix.size()), expected[e]);
  }
  EXPECT_TRUE(Contains(ReadFile(out + "/report.md"),
                       "`parsgd train --train " + train_ + " --test " + test_ +
                           " --scheme sync --threads 2 --epochs 2 --deterministic --seed 7`"));
}

TEST_F(Compare, DeterministicComparisonRepeatsByteForByte) {
  const std::string experiment = dir_.Write("exp.json", R"({
    "train": ")" + train_ + R"(", "epochs": 2, "repeats": 2, "threads": 2, "deterministic": true,
    "optimizer": ["sgd", "momentum"],
    "grid": [{"scheme": "sync"},
             {"scheme": "average", "period": [1, "epoch"], "average-state": [false, true]}]
  })");
  const std::string out = dir_.File("out");
  std::vector<std::vector<std::string>> files(2);
  for (int run = 0; run < 2; ++run) {
    const auto r =
        RunCli("compare --experiment " + experiment + " --out " + out + " --gnuplot none");
    ASSERT_EQ(r.status, 0) << r.output;
    for (const std::string& name : Names(out))
      files[run].push_back(name + "\n" + ReadFile(out + "/" + name));
    fs::remove_all(out);
  }
  EXPECT_EQ(files[0], files[1]);
  ASSERT_FALSE(files[0].empty());
  const std::string report = files[0][3];
  ASSERT_EQ(report.rfind("report.md\n", 0), 0u);
  EXPECT_TRUE(Contains(files[0][2], "date: not written (<code>--deterministic</code>"))
      << files[0][2];
  // 2 optimisers x (sync + average x 2 periods x 2) = 10 configurations, no times.
  EXPECT_TRUE(Contains(report, "10 configurations x 2 repeats: 20 runs")) << report;
  EXPECT_TRUE(Contains(report, "record no wall-clock times")) << report;
  EXPECT_TRUE(Contains(report, "no objective-vs-seconds plot")) << report;
  EXPECT_TRUE(Contains(files[0][5], "\"train_seconds\":null"));  // runs.jsonl
}

TEST_F(Compare, FailingRunsAreReportedAndTheOthersGoOn) {
  const std::string out = dir_.File("out");
  // 1e6 diverges; hogwild with --batch 8 is impossible (refused before running, not run).
  const auto r = RunCli("compare --train " + train_ + " --out " + out +
                        " --model squared --l2 0 --normalize none --learning-rate 0.01,1e6 "
                        "--scheme sync,hogwild --batch 8 --epochs 2 --repeats 2 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string summary = ReadFile(out + "/summary.csv");
  const auto rows = Lines(summary);
  ASSERT_EQ(rows.size(), 5u) << summary;
  EXPECT_EQ(rows[1].rfind("1,scheme=sync learning-rate=0.01,sync,0.01,ok,2,0,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("2,scheme=sync learning-rate=1e6,sync,1e6,failed,2,2,", 0), 0u)
      << rows[2];
  EXPECT_TRUE(Contains(rows[2], "diverged")) << rows[2];
  EXPECT_TRUE(Contains(rows[3], ",hogwild,0.01,impossible,0,0,")) << rows[3];
  EXPECT_TRUE(Contains(rows[4], ",hogwild,1e6,impossible,0,0,")) << rows[4];
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "## Failures")) << report;
  EXPECT_TRUE(Contains(report, "impossible, not run: --batch 8 with --scheme hogwild")) << report;
  EXPECT_TRUE(Contains(report, "2 of 2 runs failed")) << report;
  EXPECT_TRUE(Contains(ReadFile(out + "/runs.jsonl"), "\"error\":\"epoch 1: the run diverged"));
  EXPECT_TRUE(Contains(r.output, "is impossible and will be reported, not run")) << r.output;
}

TEST_F(Compare, EveryRunFailingStillWritesTheReportAndExitsWith1) {
  // Every label 1: one class, which softmax refuses; squared diverges at this rate.
  std::string ones;
  for (const std::string& line : Lines(ReadFile(train_))) {
    ones.append("1").append(line, line.find(' ')).append("\n");  // (+ warns falsely in g++ 12)
  }
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare --train " + dir_.Write("ones.svm", ones) + " --out " + out +
                        " --model softmax,squared --learning-rate 1e9 --l2 0 --normalize none "
                        "--epochs 1 --repeats 1 --gnuplot none");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "every run failed")) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "every row has the label 1: model softmax needs at least two"))
      << report;
  EXPECT_TRUE(Contains(report, "no objective plots: no run finished")) << report;
}

TEST_F(Compare, BadGridsAreRefusedBeforeAnythingIsWritten) {
  const std::string out = " --out " + dir_.File("out");
  const std::string bad_json =
      dir_.Write("bad.json", "{\"train\": \"x\",\n \"scheme\": [\"hogwild\",]}");
  const std::string unknown = dir_.Write("unknown.json", "{\"grid\": [{\"schem\": \"sync\"}]}");
  const std::string nested = dir_.Write("nested.json", "{\"grid\": [{\"repeats\": 2}]}");
  struct Case {
    std::string args, message;
    int status;
  };
  const std::vector<Case> cases = {
      {data_ + out + " --order random,bogus", "--order: expected one of random, global", 2},
      {data_ + out + " --threads 1,,2", "--threads: empty item in the list '1,,2'", 2},
      {data_ + out + " --threads 2,2", "--threads: '2' given twice", 2},
      {data_ + out + " --period 0,10", "--period: must be between 1", 2},
      {data_ + out + " --seed 1,2", "--seed: expected a non-negative integer", 2},
      {data_ + out + " --model mlp --hidden 16 --hidden 8,x", "--hidden: expected layer sizes", 2},
      {data_ + out + " --metrics m.jsonl", "unknown option --metrics", 2},
      {data_ + " --scheme sync", "--out is required", 2},
      {" --test " + test_ + out, "--train is required", 2},
      {out + " --experiment " + bad_json, "bad.json:2:23: not valid JSON", 2},
      {data_ + out + " --experiment " + unknown,
       "unknown.json: grid[0]: unknown option --schem (did you mean --scheme?)", 2},
      {data_ + out + " --experiment " + nested, "--repeats applies to the whole comparison", 2},
      {" --train " + dir_.File("nope.svm") + out, "nope.svm: cannot open", 1},
      {data_ + out + " --scheme hogwild,locked --batch 8", "every configuration is impossible", 2},
  };
  for (const Case& c : cases) {
    const auto r = RunCli("compare" + c.args);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, c.message)) << c.args << "\n" << r.output;
    EXPECT_FALSE(Contains(r.output, "[run 1 of")) << "a run started: " << c.args;
  }
  ExpectNothingWritten({"bad.json", "nested.json", "unknown.json"});
}

// Two training sets are two problems: shown by file name, compared by test accuracy only.
TEST_F(Compare, DataSetsAreAnAxisShownByFileName) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare --train " + train_ + " --train " + test_ + " --out " + out +
                        " --epochs 1 --repeats 2 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "| 1 | train=train.svm | 2 |")) << report;
  EXPECT_TRUE(Contains(report, "- **target** for train=test.svm: ")) << report;
  EXPECT_TRUE(Contains(report, "| – | #1 train.svm | #2 test.svm | – | – | – |")) << report;
  // The CSV keeps the paths as given.
  EXPECT_TRUE(Contains(ReadFile(out + "/summary.csv"), "," + train_ + ",")) << out;
}

// With and without a bias are two objectives: each gets its own target.
TEST_F(Compare, TheBiasIsPartOfTheProblem) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare" + data_ + " --bias on,off --out " + out +
                        " --epochs 1 --repeats 1 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "- **target** for bias=on: ")) << report;
  EXPECT_TRUE(Contains(report, "- **target** for bias=off: ")) << report;
}

// The solver is an axis of the same problem: SGD, primal and dual coordinate descent get one target
// and each run's metrics name its solver (the dual's with its dual objective).
TEST_F(Compare, SolversAreAnAxisOfOneProblem) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare" + data_ + " --model logistic --bias off --solver sgd,cd,dual-cd --out " +
                        out + " --epochs 3 --repeats 1 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  for (const char* solver : {"solver=sgd", "solver=cd", "solver=dual-cd"}) {
    EXPECT_TRUE(Contains(report, solver)) << solver << " missing in " << report;
  }
  std::size_t targets = 0;
  for (const std::string& line : Lines(report)) targets += Contains(line, "- **target**");
  EXPECT_EQ(targets, 1u) << report;
  int runs[3] = {0, 0, 0};
  for (const std::string& line : Lines(ReadFile(out + "/runs.jsonl"))) {
    const bool dual = Contains(line, R"("solver":"dual-cd")");
    runs[0] += Contains(line, R"("solver":"sgd")");
    runs[1] += Contains(line, R"("solver":"cd")");
    runs[2] += dual;
    EXPECT_EQ(Contains(line, "\"dual_objective\":"), dual) << line;
  }
  EXPECT_EQ(runs[0], 3);
  EXPECT_EQ(runs[1], 3);
  EXPECT_EQ(runs[2], 3);
}

// A configuration whose every run failed takes no part in a test: the report says so, not that
// no two configurations differ in one flag; and a grid with no thread axis shows no speedup.
TEST_F(Compare, FailedConfigurationsAreNamedWhereNothingIsTested) {
  const std::string out = dir_.File("out");
  const auto r =
      RunCli("compare" + data_ + " --out " + out +
             " --model squared --normalize none --schedule constant "
             "--learning-rate 0.1,1e9 --threads 1 --epochs 2 --repeats 1 --gnuplot none");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "Nothing to test: 1 of the 2 configurations have no finished run"))
      << report;
  EXPECT_FALSE(Contains(report, "1×")) << report;  // no 1-thread run is its own speedup
  // Which to use: the one configuration that finished, the lowest objective and the fastest to
  // the target (its own best + 1%).
  EXPECT_TRUE(Contains(report, "## Which configuration to use")) << report;
  EXPECT_TRUE(Contains(report, "- **Lowest final objective**: #1 learning-rate=0.1 (")) << report;
  EXPECT_TRUE(Contains(report, "- **Fastest to the target**: #1 learning-rate=0.1 (")) << report;
  // A problem none of whose runs finished gets no reference optimum solved for it.
  const auto failed =
      RunCli("compare" + data_ + " --out " + dir_.File("failed") +
             " --model squared --normalize none --schedule constant --learning-rate 1e9 "
             "--threads 1 --epochs 2 --repeats 1 --gnuplot none --optimum auto");
  EXPECT_TRUE(Contains(failed.output, "no run of the problem finished")) << failed.output;
  EXPECT_FALSE(Contains(failed.output, "solving for the reference")) << failed.output;
}

// Ctrl-C (SIGINT) ends the grid, not the command's output: the runs finished before it are kept,
// the report says it is of those only, and the status is 130. The same command again takes them
// up and runs the rest: the same results as a run in one go; another grid is refused there.
TEST_F(Compare, AnInterruptKeepsTheFinishedRunsAndTheSameCommandRunsTheRest) {
  const std::string out = dir_.File("out"), err = dir_.File("err.txt");
  const std::string grid = data_ +
                           " --scheme sequential,sync --deterministic --epochs 20 "
                           "--repeats 40 --gnuplot none";
  EXPECT_EQ(InterruptedCompare(grid, out, err, 3), 130) << ReadFile(err);
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "**Interrupted** (a signal ended the grid): ")) << report;
  EXPECT_TRUE(Contains(report, " of its 80 runs finished before it")) << report;
  // The report's finished runs are those that said they were done: the signal lands in a run
  // (left out, and said so) or between two (runs of a few milliseconds here: both happen, by the
  // machine's load), never in the middle of one that is kept.
  const std::string said = ReadFile(err);
  std::size_t done = 0;
  for (std::size_t at = 0; (at = said.find("    done in ", at)) != std::string::npos; ++at) ++done;
  const std::size_t of = report.find(" of its 80 runs finished before it");
  ASSERT_NE(of, std::string::npos) << report;
  const std::size_t digits = report.find_last_not_of("0123456789", of - 1) + 1;
  EXPECT_EQ(report.substr(digits, of - digits), std::to_string(done)) << report << said;
  ExpectNothingWritten({"err.txt", "out"});  // no staging folder left

  const auto other = RunCli("compare" + data_ + " --epochs 3 --repeats 1 --out " + out);
  EXPECT_EQ(other.status, 1);
  EXPECT_TRUE(Contains(other.output, "holds an interrupted comparison of another grid"))
      << other.output;

  const auto rest = RunCli("compare" + grid + " --out " + out);
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_TRUE(Contains(rest.output, "taking up the ")) << rest.output;
  EXPECT_FALSE(fs::exists(out + "/interrupted.txt"));
  EXPECT_FALSE(Contains(ReadFile(out + "/report.md"), "Interrupted"));
  const auto straight = RunCli("compare" + grid + " --out " + dir_.File("straight"));
  ASSERT_EQ(straight.status, 0) << straight.output;
  EXPECT_EQ(ReadFile(out + "/summary.csv"), ReadFile(dir_.File("straight/summary.csv")));
  EXPECT_EQ(Lines(ReadFile(out + "/runs.jsonl")).size(),
            Lines(ReadFile(dir_.File("straight/runs.jsonl"))).size());
}

// The value of column `name` in row `row` (1-based) of a CSV without quoted commas.
std::string CsvCell(const std::string& csv, std::size_t row, const std::string& name) {
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    return cells;
  };
  const auto lines = Lines(csv);
  const auto header = split(lines.at(0));
  const auto at = std::find(header.begin(), header.end(), name);
  if (at == header.end()) return "no column " + name;
  const auto cells = split(lines.at(row));
  const auto k = static_cast<std::size_t>(at - header.begin());
  return k < cells.size() ? cells[k] : "";
}

// Distance to the optimum: with --bias off the reference is dual-cd's, certified by its duality
// gap, and every epoch of every run lies above it; the MLP has no solver, so f* is the runs'
// lowest, labelled as such; --optimum none leaves it out.
TEST_F(Compare, TheOptimumIsCertifiedWhereADualSolverApplies) {
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare" + data_ + " --out " + out +
                        " --bias off --scheme hogwild,sync --threads 2 --epochs 4 --repeats 2 "
                        "--gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "## Distance to the optimum")) << report;
  EXPECT_TRUE(Contains(report, "(dual-cd, ")) << report;
  EXPECT_TRUE(Contains(report, ": certified, the optimum is within the gap")) << report;
  EXPECT_TRUE(Contains(r.output, "[optimum] ")) << r.output;
  const std::string summary = ReadFile(out + "/summary.csv");
  EXPECT_EQ(CsvCell(summary, 1, "optimum_source"), "certified") << summary;
  const double optimum = std::stod(CsvCell(summary, 1, "optimum"));
  int epochs = 0;
  for (const std::string& line : Lines(ReadFile(out + "/runs.jsonl"))) {
    const auto at = line.find("\"objective\":");
    ASSERT_NE(at, std::string::npos) << line;
    EXPECT_GE(std::stod(line.substr(at + 12)), optimum - 1e-9) << line;
    ++epochs;
  }
  EXPECT_EQ(epochs, 2 * 2 * 4);
  // The suboptimality plots, on the log axis, with the levels.
  const std::string gp = ReadFile(out + "/suboptimality_epoch.gp");
  EXPECT_TRUE(Contains(gp, "set ylabel 'suboptimality f - f*'")) << gp;
  EXPECT_TRUE(Contains(gp, "using 1:9:10 with filledcurves")) << gp;
  const double relative = std::stod(CsvCell(summary, 1, "suboptimality_mean"));
  EXPECT_GT(relative, 0);
  EXPECT_LT(relative, 0.5);

  const std::string mlp = dir_.File("mlp");
  const auto m = RunCli("compare" + data_ + " --out " + mlp +
                        " --model mlp --hidden 8 --scheme sync --threads 1,2 --epochs 2 "
                        "--repeats 1 --gnuplot none");
  ASSERT_EQ(m.status, 0) << m.output;
  const std::string mlp_report = ReadFile(mlp + "/report.md");
  EXPECT_TRUE(Contains(mlp_report,
                       "the lowest objective of any epoch of the runs, **not "
                       "certified**"))
      << mlp_report;
  EXPECT_TRUE(Contains(mlp_report, "No solver ran: no solver certifies `model` mlp")) << mlp_report;
  EXPECT_EQ(CsvCell(ReadFile(mlp + "/summary.csv"), 1, "optimum_source"), "runs");

  const std::string none = dir_.File("none");
  const auto n = RunCli("compare" + data_ + " --out " + none +
                        " --scheme hogwild --epochs 2 --repeats 1 --optimum none --gnuplot none");
  ASSERT_EQ(n.status, 0) << n.output;
  EXPECT_FALSE(Contains(ReadFile(none + "/report.md"), "Distance to the optimum"));
  EXPECT_FALSE(fs::exists(none + "/suboptimality_epoch.gp"));
  EXPECT_FALSE(Contains(n.output, "[optimum]"));
}

// A grid over a read option reads the data once for each value: --center auto and none train on
// other rows (a column far from 0, centred or not), and end at other objectives.
TEST_F(Compare, EachValueOfAReadOptionReadsTheDataItsWay) {
  std::string table = "y,year,b\n";
  for (int i = 0; i < 60; ++i) {
    const int year = 1970 + i % 13;
    table += fmt::format("{},{},{}\n", year + (i % 3) > 1977 ? 1 : 0, year, (i % 5) - 2);
  }
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare --train " + dir_.Write("t.csv", table) + " --out " + out +
                        " --center auto,none --threads 1 --epochs 3 --repeats 1 --gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rows = Lines(ReadFile(out + "/summary.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto objective = [](const std::string& row) {
    std::vector<std::string> fields;
    for (std::size_t at = 0;;) {
      const std::size_t comma = row.find(',', at);
      fields.push_back(row.substr(at, comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    return fields.at(6);  // objective_mean
  };
  EXPECT_TRUE(Contains(rows[1], "center=auto")) << rows[1];
  EXPECT_TRUE(Contains(rows[2], "center=none")) << rows[2];
  EXPECT_NE(objective(rows[1]), objective(rows[2])) << rows[1] << "\n" << rows[2];
}

// Over two data sets (two problems), the report gives each method's performance profile. A
// profile needs a problem some method solved (within 1e-2 of f*): sequential SGD solves train.svm
// in these 3 epochs whatever the threads do (4.2e-3); Hogwild!'s objective depends on how its two
// threads interleave, and comes near the level (6.5e-3, at times 9.7e-3).
TEST_F(Compare, TwoProblemsGetPerformanceProfiles) {
  const std::string other = dir_.Write("other.svm", ReadFile(test_) + ReadFile(test_));
  const std::string out = dir_.File("out");
  const auto r = RunCli("compare --train " + train_ + " --train " + other + " --out " + out +
                        " --scheme sequential,hogwild,sync --threads 2 --epochs 3 --repeats 1 "
                        "--gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, "## Performance profiles\n\nOver the 2 problems")) << report;
  EXPECT_TRUE(Contains(report, "| scheme=sequential | ")) << report;
  EXPECT_TRUE(Contains(report, "| scheme=hogwild | ")) << report;
  EXPECT_TRUE(Contains(report, "| scheme=sync | ")) << report;
  EXPECT_TRUE(Contains(report, "### By epochs")) << report;
  EXPECT_TRUE(fs::exists(out + "/profile_seconds.gp"));
  EXPECT_TRUE(fs::exists(out + "/profile_epochs.dat"));
}

// --jobs 2: two one-thread runs at once give the runs one at a time give (the same runs.jsonl and
// summary under --deterministic, in the same order), and the report says they shared the machine;
// an interrupt keeps the finished runs and the same command runs the rest. Refused for a grid
// asking about threads and where no two runs fit.
TEST_F(Compare, JobsRunSeveralAtOnceWithTheResultsOfOneAtATime) {
  const std::string grid = data_ +
                           " --scheme sequential,sync,average --threads 1 --workers 2 --epochs 3 "
                           "--repeats 3 --deterministic --gnuplot none";
  const auto one = RunCli("compare" + grid + " --out " + dir_.File("one"));
  ASSERT_EQ(one.status, 0) << one.output;
  const auto two = RunCli("compare" + grid + " --jobs 2 --out " + dir_.File("two"));
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_EQ(ReadFile(dir_.File("one/runs.jsonl")), ReadFile(dir_.File("two/runs.jsonl")));
  EXPECT_EQ(ReadFile(dir_.File("one/summary.csv")), ReadFile(dir_.File("two/summary.csv")));
  const std::string report = ReadFile(dir_.File("two/report.md"));
  EXPECT_TRUE(Contains(report, "executed up to 2 at a time (`--jobs 2`")) << report;
  EXPECT_TRUE(Contains(report, "**Judged by epochs**")) << report;

  // Timed runs at once: no time reported.
  const auto timed = RunCli("compare" + data_ +
                            " --scheme hogwild,sync --threads 1 --epochs 2 --repeats 2 --jobs 2 "
                            "--gnuplot none --out " +
                            dir_.File("timed"));
  ASSERT_EQ(timed.status, 0) << timed.output;
  const std::string summary = ReadFile(dir_.File("timed/summary.csv"));
  EXPECT_EQ(CsvCell(summary, 1, "samples_per_second_mean"), "") << summary;
  EXPECT_NE(CsvCell(summary, 1, "objective_mean"), "") << summary;
  // The plot left out is said to be for the shared machine, not for --deterministic.
  const std::string timed_report = ReadFile(dir_.File("timed/report.md"));
  EXPECT_TRUE(Contains(timed_report, "the runs shared the machine (--jobs 2)")) << timed_report;
  EXPECT_FALSE(Contains(timed_report, "(--deterministic)")) << timed_report;

  const std::string out = dir_.File("cut"), err = dir_.File("err.txt");
  const std::string many = data_ +
                           " --scheme sequential,sync --threads 1 --deterministic --epochs 20 "
                           "--repeats 40 --jobs 2 --gnuplot none";
  EXPECT_EQ(InterruptedCompare(many, out, err, 5), 130) << ReadFile(err);
  EXPECT_TRUE(Contains(ReadFile(out + "/report.md"), "**Interrupted**"));
  const auto rest = RunCli("compare" + many + " --out " + out);
  ASSERT_EQ(rest.status, 0) << rest.output;
  const auto straight = RunCli("compare" + many + " --out " + dir_.File("straight"));
  ASSERT_EQ(straight.status, 0) << straight.output;
  EXPECT_EQ(ReadFile(out + "/summary.csv"), ReadFile(dir_.File("straight/summary.csv")));

  const auto threads =
      RunCli("compare" + data_ + " --threads 1,2 --jobs 2 --out " + dir_.File("x"));
  EXPECT_EQ(threads.status, 2);
  EXPECT_TRUE(Contains(threads.output, "--jobs 2: this grid varies --threads")) << threads.output;
  const auto all = RunCli("compare" + data_ + " --scheme hogwild,sync --jobs 2 --out " +
                          dir_.File("x"));  // --threads auto: every core
  EXPECT_EQ(all.status, 2);
  EXPECT_TRUE(Contains(all.output, "so no two runs fit at once")) << all.output;
}

TEST_F(Compare, ExistingFolderIsRefusedUnlessEmpty) {
  const std::string out = dir_.File("out");
  fs::create_directory(out);
  const std::string kept = dir_.Write("out/mine.txt", "the user's file");
  const auto r = RunCli("compare" + data_ + " --out " + out + " --epochs 1 --repeats 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, "is a folder that is not empty")) << r.output;
  EXPECT_EQ(ReadFile(kept), "the user's file");
  const auto device = RunCli("compare" + data_ + " --out /dev/full --epochs 1 --repeats 1");
  EXPECT_EQ(device.status, 1);
  EXPECT_TRUE(Contains(device.output, "/dev/full: exists and is not a folder")) << device.output;
  fs::remove(kept);
  const auto ok =
      RunCli("compare" + data_ + " --out " + out + " --epochs 1 --repeats 1 --gnuplot none");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_TRUE(fs::exists(out + "/report.md"));
}

// gnuplot, when present, is an external program run in the output folder; its absence or its
// failure leaves the data and the scripts, and the report says how to draw them.
class ComparePlots : public Compare {
 protected:
  std::string RunWith(const std::string& gnuplot) {
    const auto r =
        RunCli("compare" + data_ + " --out " + dir_.File("out") +
               " --scheme hogwild --threads 1,2 --epochs 2 --repeats 2 --gnuplot " + gnuplot);
    EXPECT_EQ(r.status, 0) << r.output;
    return ReadFile(dir_.File("out/report.md"));
  }
  // A stand-in gnuplot: records its working folder's files and argument, warns on stderr (as
  // gnuplot does of a missing font), exits with `status`, and on success writes the two images
  // the script names.
  std::string FakeGnuplot(int status) {
    const std::string path = dir_.Write(
        "fake-gnuplot", "#!/bin/sh\necho \"$1 $(ls objective.dat)\" >> " + dir_.File("calls.log") +
                            "\necho 'warning: no font' >&2\n" +
                            (status == 0 ? ": > \"${1%.gp}.png\"; : > \"${1%.gp}.svg\"\n" : "") +
                            "exit " + std::to_string(status) + "\n");
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
};

TEST_F(ComparePlots, WithoutGnuplotTheReportSaysHowToDraw) {
  const std::string report = RunWith(dir_.File("no-such-gnuplot"));
  EXPECT_TRUE(Contains(report, "gnuplot was not found")) << report;
  EXPECT_TRUE(Contains(report,
                       "gnuplot objective_epoch.gp\ngnuplot objective_seconds.gp\n"
                       "gnuplot suboptimality_epoch.gp\ngnuplot suboptimality_seconds.gp\n"
                       "gnuplot speedup.gp\n"))
      << report;
  for (const char* file : {"objective.dat", "objective_epoch.gp", "speedup.dat", "speedup.gp"}) {
    EXPECT_TRUE(fs::exists(dir_.File("out/") + file)) << file;
  }
  EXPECT_FALSE(fs::exists(dir_.File("out/objective_epoch.png")));
}

TEST_F(ComparePlots, GnuplotRunsEachScriptInTheOutputFolder) {
  const std::string report = RunWith(FakeGnuplot(0));
  EXPECT_EQ(ReadFile(dir_.File("calls.log")),
            "objective_epoch.gp objective.dat\nobjective_seconds.gp objective.dat\n"
            "suboptimality_epoch.gp objective.dat\nsuboptimality_seconds.gp objective.dat\n"
            "speedup.gp objective.dat\n");
  EXPECT_TRUE(Contains(report, "![objective_epoch](objective_epoch.svg)")) << report;
  EXPECT_TRUE(Contains(report, "![speedup](speedup.svg)")) << report;
  EXPECT_FALSE(fs::exists(dir_.File("out/gnuplot.log")));  // drawn: its warnings are not kept
}

TEST_F(ComparePlots, AFailingGnuplotIsReportedAndTheDataKept) {
  const std::string report = RunWith(FakeGnuplot(3));
  EXPECT_TRUE(Contains(report, "Drawing failed:")) << report;
  EXPECT_TRUE(Contains(report, "objective_epoch.gp exited with status 3")) << report;
  EXPECT_TRUE(Contains(report, "gnuplot objective_epoch.gp")) << report;
  EXPECT_TRUE(fs::exists(dir_.File("out/objective.dat")));
  EXPECT_TRUE(Contains(ReadFile(dir_.File("out/gnuplot.log")), "warning: no font"));
}

TEST_F(ComparePlots, RealGnuplotDrawsPngAndSvg) {
  if (!compare::FindProgram("gnuplot")) GTEST_SKIP() << "gnuplot not installed";
  const std::string report = RunWith("gnuplot");
  EXPECT_TRUE(Contains(report, "![objective_seconds](objective_seconds.svg)")) << report;
  for (const char* stem : {"objective_epoch", "objective_seconds", "speedup"}) {
    const std::string png = ReadFile(dir_.File("out/") + stem + ".png");
    EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n") << stem;
    EXPECT_TRUE(Contains(ReadFile(dir_.File("out/") + stem + ".svg"), "<svg")) << stem;
  }
}

TEST(CompareHelp, ListsCompareAndItsListFlags) {
  const auto help = RunCli("compare --help");
  EXPECT_EQ(help.status, 0);
  for (const char* part : {"usage: parsgd compare", "--order NAME,...", "--threads N|auto,...",
                           "--average-state[=true,false]", "--train PATH", "--repeats N"}) {
    EXPECT_TRUE(Contains(help.output, part)) << part << "\n" << help.output;
  }
  EXPECT_TRUE(Contains(RunCli("--help").output, "compare"));
}

// --ranks is an axis: a run of 2 ranks is `parsgd train` under the launcher (--mpirun), its epochs
// read back from its metrics; a configuration the ranks cannot run is reported impossible, and a
// launcher that fails is the run's error.
TEST_F(Compare, RanksRunUnderTheLauncher) {
#ifndef PARSGD_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  const std::string env =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none ";
  const std::string out = dir_.File("out");
  const auto r = testing::RunShell(env + PARSGD_CLI_PATH + " compare" + data_ + " --out " + out +
                                   " --ranks 1,2 --threads 1 --epochs 3 --repeats 1 --gnuplot none" +
                                   " --mpirun " + PARSGD_MPIEXEC +
                                   " --ranks-scheme average,sync --scheme auto");
  ASSERT_EQ(r.status, 0) << r.output;
  // One process ignores --ranks-scheme sync: that configuration is impossible, by name.
  EXPECT_TRUE(Contains(r.output, "(ranks=1 ranks-scheme=sync) is impossible")) << r.output;
  EXPECT_TRUE(Contains(r.output, "--ranks-scheme sync would be ignored")) << r.output;
  const auto jsonl = Lines(ReadFile(out + "/runs.jsonl"));
  ASSERT_EQ(jsonl.size(), 9u) << ReadFile(out + "/runs.jsonl");  // 3 configurations x 3 epochs
  int across = 0;
  for (const std::string& line : jsonl) {
    if (!Contains(line, "ranks=2")) continue;
    ++across;
    EXPECT_TRUE(Contains(line, R"("ranks":2,)")) << line;
    EXPECT_TRUE(Contains(line, R"("updates":500,)")) << line;
  }
  EXPECT_EQ(across, 6);
  const std::string report = ReadFile(out + "/report.md");
  EXPECT_TRUE(Contains(report, std::string(PARSGD_MPIEXEC) + " -np 2 parsgd train")) << report;

  const std::string impossible = dir_.File("impossible");
  const auto refused = testing::RunShell(env + PARSGD_CLI_PATH + " compare" + data_ + " --out " +
                                         impossible + " --ranks 1,2 --solver sgd,cd --model logistic" +
                                         " --bias off --epochs 2 --repeats 1 --gnuplot none" +
                                         " --mpirun " + PARSGD_MPIEXEC);
  ASSERT_EQ(refused.status, 0) << refused.output;
  EXPECT_TRUE(Contains(refused.output, "(ranks=2 solver=cd) is impossible")) << refused.output;
  EXPECT_TRUE(Contains(refused.output, "--solver cd across ranks")) << refused.output;

  const std::string failing = dir_.File("failing");
  const auto failed = RunCli("compare" + data_ + " --out " + failing +
                             " --ranks 2 --epochs 2 --repeats 1 --gnuplot none --mpirun false");
  EXPECT_EQ(failed.status, 1) << failed.output;
  EXPECT_TRUE(Contains(ReadFile(failing + "/report.md"), "the run ended with status")) << failed.output;
#endif
}

}  // namespace
}  // namespace parsgd
