// End-to-end tests of the `parsgd` program: real processes, real files, exit codes and messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <variant>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parsgd/io/model_file.hpp"
#include "parsgd/kernel/isa.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::RunCli;
using testing::RunShell;
using testing::TempDir;
using testing::Contains;
using testing::Lines;

// A small generated problem, split into train and test files.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto gen = RunCli("gen " + dir_.File("all.svm") +
                            " --rows 1200 --features 300 --nnz 12 --noise 0.02 --seed 5");
    ASSERT_EQ(gen.status, 0) << gen.output;
    const auto lines = Lines(testing::ReadFile(dir_.File("all.svm")));
    std::string train, test;
    for (std::size_t i = 0; i < lines.size(); ++i) (i < 1000 ? train : test) += lines[i] + "\n";
    train_ = dir_.Write("train.svm", train);
    test_ = dir_.Write("test.svm", test);
  }
  TempDir dir_;
  std::string train_, test_;
};

TEST_F(Cli, TrainPrintsOneAlignedLinePerEpochAndTheTestAccuracy) {
  const auto r = RunCli("train --train " + train_ + " --test " + test_ +
                        " --epochs 4 --threads 2 --scheme hogwild");
  ASSERT_EQ(r.status, 0) << r.output;
  int epoch_lines = 0;
  std::size_t width = 0;
  for (const std::string& line : Lines(r.output)) {
    if (line.find("/4 ") == std::string::npos) continue;
    ++epoch_lines;
    if (width == 0) width = line.size();
    EXPECT_EQ(line.size(), width) << line;  // aligned columns
  }
  EXPECT_EQ(epoch_lines, 4) << r.output;
  EXPECT_TRUE(Contains(r.output, "test accuracy")) << r.output;
  EXPECT_TRUE(Contains(r.output, "scheme hogwild")) << r.output;
}

// PARSGD_ISA forces the kernels' vector path: `device` and train's setup name it, a run on the
// scalar path ends where one on the CPU's widest path does, and a name that is not a path is
// refused before any work.
TEST_F(Cli, TheKernelsPathIsNamedForcedAndRefusedWhenUnknown) {
  const std::string cli = std::string(PARSGD_CLI_PATH);
  const auto device = RunShell("PARSGD_ISA=scalar " + cli + " device");
  ASSERT_EQ(device.status, 0) << device.output;
  EXPECT_TRUE(Contains(device.output, "cpu kernels:     scalar")) << device.output;
  // One thread: the scheme (sequential) does not depend on the machine's timing.
  const std::string run =
      " train --train " + train_ + " --test " + test_ + " --epochs 3 --threads 1";
  std::vector<double> accuracy;
  for (const std::string isa : {std::string("scalar"), std::string(IsaName(CpuIsa()))}) {
    const auto r = RunShell("PARSGD_ISA=" + isa + " " + cli + run);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, ", " + isa + " kernels")) << r.output;
    const std::size_t at = r.output.find("test accuracy ");
    ASSERT_NE(at, std::string::npos) << r.output;
    accuracy.push_back(std::stod(r.output.substr(at + 14)));
  }
  EXPECT_NEAR(accuracy[0], accuracy[1], 0.5);  // percent: one row of the 200 flips at most
  const auto bad = RunShell("PARSGD_ISA=sse9 " + cli + run);
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(
      Contains(bad.output, "PARSGD_ISA='sse9' is not a path; choose scalar, avx2 or avx512"))
      << bad.output;
  EXPECT_FALSE(Contains(bad.output, "epoch")) << bad.output;
}

// --workers W with --deterministic: the same model and metrics bytes on 1, 2 and 4 threads.
TEST_F(Cli, TheSameWorkersWriteTheSameBytesOnAnyThreadCount) {
  std::string model_bytes, metrics_bytes;
  for (int threads : {1, 2, 4}) {
    const std::string t = std::to_string(threads);
    const auto r = RunCli("train --train " + train_ + " --test " + test_ +
                          " --scheme average --workers 4 --deterministic --epochs 3 --threads " +
                          t + " --save " + dir_.File("w" + t + ".bin") + " --metrics " +
                          dir_.File("w" + t + ".jsonl"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "4 workers on " + t + " thread")) << r.output;
    const std::string model = testing::ReadFile(dir_.File("w" + t + ".bin"));
    const std::string metrics = testing::ReadFile(dir_.File("w" + t + ".jsonl"));
    if (threads == 1) {
      model_bytes = model;
      metrics_bytes = metrics;
      continue;
    }
    EXPECT_TRUE(model == model_bytes) << t << " threads";
    EXPECT_EQ(metrics, metrics_bytes) << t << " threads";
  }
}

// --scheme auto, the default: the setup line says what it chose and why, the metrics record the
// scheme that ran and that it was chosen, the model file the scheme that ran.
TEST_F(Cli, DefaultSchemeIsChosenPrintedAndRecorded) {
  const std::string metrics = dir_.File("m.jsonl"), model = dir_.File("model.bin");
  const auto r = RunCli("train --train " + train_ + " --epochs 2 --threads 1 --metrics " + metrics +
                        " --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "scheme sequential (auto)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "\n  auto: scheme sequential: one thread\n")) << r.output;
  for (const std::string& line : Lines(testing::ReadFile(metrics))) {
    EXPECT_TRUE(Contains(line, R"("scheme":"sequential",)")) << line;
    EXPECT_TRUE(Contains(line, R"("scheme_auto":true,)")) << line;
  }
  EXPECT_TRUE(Contains(LoadModel(model).settings, "scheme=sequential"));
  const auto given = RunCli("train --train " + train_ + " --epochs 1 --scheme hogwild --metrics " +
                            metrics);
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_TRUE(Contains(given.output, "\n  given: --scheme hogwild --epochs 1\n")) << given.output;
  EXPECT_TRUE(Contains(given.output, "\n  model logistic, scheme hogwild,")) << given.output;
  EXPECT_FALSE(Contains(given.output, "\n  auto: scheme")) << given.output;
  EXPECT_TRUE(Contains(testing::ReadFile(metrics), R"("scheme":"hogwild",)"));
  EXPECT_TRUE(Contains(testing::ReadFile(metrics), R"("scheme_auto":false)"));
}

TEST_F(Cli, MetricsHaveOneJsonObjectPerEpochWithEveryField) {
  const std::string metrics = dir_.File("m.jsonl");
  const auto r = RunCli("train --train " + train_ + " --test " + test_ +
                        " --epochs 3 --metrics " + metrics + " --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto lines = Lines(testing::ReadFile(metrics));
  ASSERT_EQ(lines.size(), 3u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(Contains(lines[i], "\"epoch\":" + std::to_string(i + 1))) << lines[i];
    for (const char* key : {"train_seconds", "eval_seconds", "objective", "test_loss",
                            "test_accuracy", "updates\":1000", "samples_per_second", "scheme",
                            "\"solver\":\"sgd\""}) {
      EXPECT_TRUE(Contains(lines[i], key)) << key << " missing in " << lines[i];
    }
    EXPECT_EQ(lines[i].front(), '{');
    EXPECT_EQ(lines[i].back(), '}');
  }
}

// train --suboptimality: f* from dual-cd (certified) before the epochs, each epoch's relative
// distance to it in the last column and the metrics, never below 0 beyond the gap; refused where no
// solver applies, before any data is read.
TEST_F(Cli, SuboptimalityIsMeasuredAgainstACertifiedOptimum) {
  const std::string metrics = dir_.File("m.jsonl");
  const auto r = RunCli("train --train " + train_ +
                        " --bias off --epochs 6 --suboptimality "
                        "--metrics " +
                        metrics);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, ": dual-cd, ")) << r.output;
  EXPECT_TRUE(Contains(r.output, ": certified\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "rel-subopt")) << r.output;
  const auto lines = Lines(testing::ReadFile(metrics));
  ASSERT_EQ(lines.size(), 6u);
  double first = 0, last = 0;
  for (const std::string& line : lines) {
    const auto at = line.find("\"suboptimality\":");
    ASSERT_NE(at, std::string::npos) << line;
    last = std::stod(line.substr(at + 16));
    if (first == 0) first = last;
    EXPECT_GT(last, -1e-9) << line;
  }
  EXPECT_LT(last, first);  // SGD approaches the optimum
  const auto cd = RunCli("train --train " + train_ + " --epochs 2 --suboptimality --quiet");
  EXPECT_EQ(cd.status, 0) << cd.output;
  const auto mlp =
      RunCli("train --train " + dir_.File("missing.svm") + " --model mlp --suboptimality");
  EXPECT_EQ(mlp.status, 2);
  EXPECT_TRUE(Contains(mlp.output,
                       "--suboptimality: no reference solver: no solver certifies "
                       "`model` mlp"))
      << mlp.output;
}

TEST_F(Cli, SavedModelPredictsAndEvaluatesAsTrainingReported) {
  const std::string model = dir_.File("model.bin");
  const auto r = RunCli("train --train " + train_ + " --test " + test_ +
                        " --epochs 5 --scheme sequential --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  const LoadedModel loaded = LoadModel(model);
  EXPECT_EQ(std::get<LinearModel>(loaded.model).kind(), ModelKind::kLogistic);
  EXPECT_TRUE(Contains(loaded.settings, "scheme=sequential"));

  const auto eval = RunCli("eval " + model + " " + test_);
  ASSERT_EQ(eval.status, 0) << eval.output;
  // train printed "test accuracy 91.50%, ..." and eval prints "... accuracy 91.50%": the same.
  const auto at = r.output.find("test accuracy ");
  ASSERT_NE(at, std::string::npos);
  const std::string accuracy = r.output.substr(at + 14, r.output.find('%', at) - at - 14);
  EXPECT_TRUE(Contains(eval.output, "accuracy " + accuracy + "%")) << eval.output << r.output;

  const std::string predictions = dir_.File("pred.txt");
  const auto predict = RunCli("predict " + model + " " + test_ + " --output " + predictions);
  ASSERT_EQ(predict.status, 0) << predict.output;
  const auto lines = Lines(testing::ReadFile(predictions));
  ASSERT_EQ(lines.size(), 200u);
  for (const auto& line : lines) EXPECT_TRUE(line == "1" || line == "-1") << line;
}

TEST_F(Cli, ConvertedCacheTrainsTheSameModelAsTheText) {
  const std::string bin = dir_.File("train.bin");
  ASSERT_EQ(RunCli("convert " + train_ + " " + bin).status, 0);
  const auto a = RunCli("train --train " + train_ + " --scheme sequential --epochs 2 --save " +
                        dir_.File("a.model"));
  const auto b = RunCli("train --train " + bin + " --scheme sequential --epochs 2 --save " +
                        dir_.File("b.model"));
  ASSERT_EQ(a.status, 0) << a.output;
  ASSERT_EQ(b.status, 0) << b.output;
  const LoadedModel ma = LoadModel(dir_.File("a.model"));
  const LoadedModel mb = LoadModel(dir_.File("b.model"));
  const auto wa = std::get<LinearModel>(ma.model).weights();
  const auto wb = std::get<LinearModel>(mb.model).weights();
  EXPECT_TRUE(std::equal(wa.begin(), wa.end(), wb.begin(), wb.end()));
}

TEST_F(Cli, GenWritesTheSameBytesForTheSameArguments) {
  const std::string args = " --rows 300 --features 100 --nnz 5 --seed 9";
  ASSERT_EQ(RunCli("gen " + dir_.File("g1.bin") + args + " --threads 1").status, 0);
  ASSERT_EQ(RunCli("gen " + dir_.File("g2.bin") + args + " --threads 2").status, 0);
  ASSERT_EQ(RunCli("gen " + dir_.File("g3.bin") + " --rows 300 --features 100 --nnz 5 --seed 10")
                .status,
            0);
  EXPECT_EQ(testing::ReadFile(dir_.File("g1.bin")), testing::ReadFile(dir_.File("g2.bin")));
  EXPECT_NE(testing::ReadFile(dir_.File("g1.bin")), testing::ReadFile(dir_.File("g3.bin")));
}

TEST_F(Cli, BadCommandLinesExitWithStatus2AndSayWhatIsWrong) {
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"train --train " + train_ + " --threads 0", "--threads: must be between 1"},
      {"train --train " + train_ + " --epochs 0", "--epochs: must be between 1"},
      {"train --train " + train_ + " --learning-rate -0.1", "--learning-rate: must be a number in (0"},
      {"train --train " + train_ + " --learning-rate 0", "--learning-rate: must be a number in (0"},
      {"train --train " + train_ + " --l2 -1", "--l2: must be a number in [0"},
      {"train --train " + train_ + " --schem hogwild", "unknown option --schem (did you mean --scheme?)"},
      {"train --train " + train_ + " --lr 0.1", "unknown option --lr (did you mean --learning-rate?)"},
      {"train --train " + train_ + " --scheme fast", "--scheme: expected one of auto, sequential, hogwild"},
      {"train --train " + train_ + " --threads two", "--threads: expected an integer or 'auto'"},
      {"train --test " + test_, "--train is required"},
      {"train --train", "--train: missing value"},
      {"frobnicate", "unknown command 'frobnicate'"},
      {"predict model.bin", "missing DATA"},
      {"gen " + dir_.File("g.svm") + " --rows 0", "--rows must be at least 1"},
      {"gen " + dir_.File("g.svm") + " --rows 10 --features 5 --nnz 100", "--nnz (mean nonzeros per row) must be in [1, features = 5]"},
      {"train --train " + train_ + " --batch 0", "--batch: must be between 1 and 1073741824 (or 'auto'), got 0"},
      {"train --train " + train_ + " --momentum 1", "--momentum: must be a number in [0, 0.999999], got 1"},
      {"train --train " + train_ + " --scheme average --period 0",
       "--period: must be between 1 and 1073741824 (or 'auto' or 'epoch'), got 0"},
      // Settings that cannot work together (ValidateConfig) are command-line errors too.
      {"train --train " + train_ + " --backend offload --model mlp", "the mlp runs on the cpu backend"},
      {"train --train " + train_ + " --schedule geometric --decay 1.5", "factor per epoch in (0, 1]"},
      // --schedule optimal: plain per-sample SGD on a linear model with L2, one step for all.
      {"train --train " + train_ + " --schedule optimal", "give --normalize none"},
      {"train --train " + train_ + " --schedule optimal --normalize none --l2 0",
       "needs --l2 or --l1 above 0"},
      {"train --train " + train_ + " --schedule optimal --normalize none --model mlp",
       "for the linear models"},
      {"train --train " + train_ + " --schedule optimal --normalize none --optimizer adam",
       "not --optimizer adam"},
      {"train --train " + train_ + " --schedule optimal --normalize none --decay 2",
       "leave --decay auto"},
      {"train --train " + train_ + " --schedule optimal --normalize none --batch 8",
       "not --batch 8"},
      {"train --train " + train_ + " --schedule optimal --normalize none --scheme sync",
       "--scheme sync"},
      {"train --train " + train_ + " --schedule optimal --normalize none --solver cd",
       "the coordinate solvers take no step size"},
  };
  for (const Case& c : cases) {
    const auto r = RunCli(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, c.message)) << c.args << "\n" << r.output;
  }
}

TEST_F(Cli, ImpossibleSettingsAreRefusedBeforeTraining) {
  // A binary model on three labels with --multiclass off (the data's fault: exit 1); a file that
  // is not there.
  const std::string three = dir_.Write("three.svm", "1 1:1\n2 2:1\n3 1:1\n");
  const auto binary = RunCli("train --train " + three + " --model hinge --multiclass off");
  EXPECT_EQ(binary.status, 1);
  EXPECT_TRUE(Contains(binary.output, "needs two label values, the data has 3: 1, 2, 3"))
      << binary.output;
  EXPECT_FALSE(Contains(binary.output, "objective")) << "training started: " << binary.output;
  const auto missing = RunCli("train --train " + dir_.File("nope.svm"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(Contains(missing.output, "nope.svm")) << missing.output;
}

TEST_F(Cli, MalformedDataIsReportedWithFileLineAndColumn) {
  const std::string bad = dir_.Write("bad.svm", "1 1:0.5 3:1\n-1 2:0.5 2:1\n");
  const auto r = RunCli("train --train " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, bad + ":2:")) << r.output;
}

TEST_F(Cli, AFailedRunWritesNothingAndKeepsWhatWasThere) {
  const std::string model = dir_.Write("model.bin", "the user's old model");
  const std::string metrics = dir_.File("m.jsonl");
  const std::string bad = dir_.Write("bad.svm", "1 1:0.5\nx 1:1\n");
  const auto r = RunCli("train --train " + bad + " --save " + model + " --metrics " + metrics);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(testing::ReadFile(model), "the user's old model");
  EXPECT_FALSE(std::filesystem::exists(metrics));
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_FALSE(Contains(entry.path().filename().string(), ".tmp.")) << entry.path();
  }
  // A diverging run is a failure too.
  const auto diverged = RunCli("train --train " + train_ + " --model squared --learning-rate 1e6 " +
                               "--l2 0 --normalize none --save " + model);
  EXPECT_EQ(diverged.status, 1);
  EXPECT_TRUE(Contains(diverged.output, "diverged")) << diverged.output;
  EXPECT_EQ(testing::ReadFile(model), "the user's old model");
}

// One stray index near 2^32 and 65536 distinct labels ask for a 1 PiB softmax model: refused with
// the file named, before training, and nothing is written.
TEST_F(Cli, AModelTooLargeForMemoryIsRefusedBeforeTraining) {
  std::string text = "0 4294967295:1\n";
  // Each label twice: classes, not the values of a regression (more classes than half the rows).
  for (int label = 1; label < 65536; ++label) text += std::to_string(label) + " 1:1\n";
  for (int label = 0; label < 65536; ++label) text += std::to_string(label) + " 2:1\n";
  const std::string wide = dir_.Write("wide.svm", text);
  const std::string model = dir_.File("wide-model.bin");
  const auto r = RunCli("train --train " + wide + " --model softmax --save " + model);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, wide + ": 4294967295 features and 65536 outputs")) << r.output;
  EXPECT_FALSE(Contains(r.output, "epoch")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(model));
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_FALSE(Contains(entry.path().filename().string(), ".tmp.")) << entry.path();
  }
}

// An output naming a file the command reads (through a link too) or another output is refused
// before anything is read; the checkpoint resumed from may be written again.
TEST_F(Cli, AnOutputThatWouldOverwriteAnInputIsRefused) {
  const std::string data = dir_.Write("data.svm", testing::ReadFile(train_));
  const std::string before = testing::ReadFile(data);
  std::filesystem::create_symlink(data, dir_.File("link.svm"));
  const std::string model = dir_.File("m.bin");
  for (const std::string& command :
       {"train --train " + data + " --save " + dir_.File("link.svm"),
        "train --train " + train_ + " --test " + data + " --metrics " + data,
        "train --train " + train_ + " --metrics " + model + " --save " + model,
        "convert " + data + " " + data}) {
    const auto r = RunCli(command);
    EXPECT_EQ(r.status, 2) << command << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "the same file as")) << r.output;
  }
  ASSERT_EQ(RunCli("train --train " + data + " --epochs 1 --save " + model).status, 0);
  const auto predict = RunCli("predict " + model + " " + data + " --output " + data);
  EXPECT_EQ(predict.status, 2) << predict.output;
  EXPECT_TRUE(Contains(predict.output, "--output " + data + ": the same file as DATA")) << predict.output;
  EXPECT_EQ(testing::ReadFile(data), before);
  const std::string ckpt = dir_.File("run.ckpt");
  ASSERT_EQ(RunCli("train --train " + data + " --epochs 1 --checkpoint " + ckpt).status, 0);
  const auto resumed =
      RunCli("train --train " + data + " --epochs 2 --checkpoint " + ckpt + " --resume " + ckpt);
  EXPECT_EQ(resumed.status, 0) << resumed.output;
}

// Resumed on other data with every setting at its default: the data is named as the cause, not
// the step size and L2 weight made from it.
TEST_F(Cli, ResumingOnOtherDataSaysSo) {
  const std::string ckpt = dir_.File("other.ckpt");
  ASSERT_EQ(RunCli("train --train " + train_ + " --epochs 1 --checkpoint " + ckpt).status, 0);
  const auto r = RunCli("train --train " + test_ + " --epochs 2 --resume " + ckpt);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, "the checkpoint was trained on other data")) << r.output;
  EXPECT_FALSE(Contains(r.output, "other settings")) << r.output;
}

TEST_F(Cli, UnwritableOutputFailsBeforeTraining) {
  const auto r = RunCli("train --train " + train_ + " --save " + dir_.File("no/such/dir/m.bin"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, "no/such/dir/m.bin")) << r.output;
  EXPECT_FALSE(Contains(r.output, "epoch")) << r.output;
}

// --deterministic: the same command twice gives the same model file and metrics, byte for byte.
TEST_F(Cli, DeterministicRunsRepeatByteForByte) {
  for (const std::string scheme : {"sequential", "sync --batch 40", "average --period 3 --optimizer momentum"}) {
    std::string files[2][2];
    for (int run = 0; run < 2; ++run) {
      const std::string model = dir_.File(run == 0 ? "m0.bin" : "m1.bin");
      const std::string metrics = dir_.File(run == 0 ? "m0.jsonl" : "m1.jsonl");
      const auto r = RunCli("train --train " + train_ + " --test " + test_ + " --epochs 3 --threads 2 " +
                            "--deterministic --scheme " + scheme + " --save " + model + " --metrics " +
                            metrics);
      ASSERT_EQ(r.status, 0) << scheme << "\n" << r.output;
      files[run][0] = testing::ReadFile(model);
      files[run][1] = testing::ReadFile(metrics);
    }
    EXPECT_EQ(files[0][0], files[1][0]) << scheme << ": model files differ";
    EXPECT_EQ(files[0][1], files[1][1]) << scheme << ": metrics differ";
    EXPECT_TRUE(Contains(files[0][1], "\"train_seconds\":null")) << files[0][1];
  }
  // The sequential scheme does not depend on the thread count either (evaluation sums in order).
  const std::string base = "train --train " + train_ + " --epochs 2 --deterministic --scheme sequential ";
  ASSERT_EQ(RunCli(base + "--threads 1 --save " + dir_.File("t1.bin")).status, 0);
  ASSERT_EQ(RunCli(base + "--threads 2 --save " + dir_.File("t2.bin")).status, 0);
  EXPECT_EQ(testing::ReadFile(dir_.File("t1.bin")), testing::ReadFile(dir_.File("t2.bin")));
}

// A setting the run would ignore is refused by name, before any data is read, with the setting
// that decides it: the settings table's applies, and the data flags of the other formats.
TEST_F(Cli, SettingsTheRunWouldIgnoreAreRefusedByName) {
  const std::pair<std::string, std::string> cases[] = {
      {"--hidden 32", "--hidden 32 would be ignored: it applies to --model mlp; this run's is "
                      "logistic"},
      {"--solver dual-cd --bias off --learning-rate 0.1",
       "--learning-rate 0.1 would be ignored: it applies to --solver sgd; this run's is dual-cd"},
      {"--solver dual-cd --bias off --schedule constant", "--schedule constant would be ignored"},
      {"--solver cd --order random", "--order random would be ignored"},
      {"--momentum 0.5", "it applies to --optimizer momentum and nesterov; this run's is sgd "
                         "(auto for logistic)"},
      {"--scheme hogwild --period 5",
       "--period 5 would be ignored: it applies to --scheme average, gossip, elastic and "
       "subnet; this run's is hogwild"},
      {"--scheme hogwild --average-state", "--average-state would be ignored"},
      {"--optimizer adam --rho 0.9", "--rho 0.9 would be ignored: it applies to --optimizer "
                                     "rmsprop"},
      {"--ranks-period 5", "it applies across ranks (mpirun); this run is one process"},
      {"--label-column 0", "--label-column would be ignored: it reads CSV text"},
      {"--zero-based yes --format csv", "--zero-based would be ignored: it reads LIBSVM text"},
      {"--checkpoint-every 2", "--checkpoint-every would be ignored"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = RunCli("train --train " + train_ + " --epochs 1 " + flags);
    EXPECT_EQ(r.status, 2) << flags << ": " << r.output;
    EXPECT_TRUE(Contains(r.output, message)) << flags << ": " << r.output;
  }
  // Where it applies, the same flag is taken; a flag at the value auto resolves to counts too.
  EXPECT_EQ(RunCli("train --train " + train_ + " --epochs 1 --optimizer momentum --momentum 0.5")
                .status,
            0);
  EXPECT_EQ(RunCli("train --train " + train_ + " --epochs 1 --optimizer sgd --momentum 0.9")
                .status,
            2);
  // A scheme auto chose is judged once chosen (one thread: sequential): a command-line error too.
  const auto chosen = RunCli("train --train " + train_ + " --epochs 1 --threads 1 --period 5");
  EXPECT_EQ(chosen.status, 2) << chosen.output;
  EXPECT_TRUE(Contains(chosen.output, "--period 5 would be ignored")) << chosen.output;
  EXPECT_TRUE(Contains(chosen.output, "(--scheme auto chose it: one thread)")) << chosen.output;
}

// The help is wrapped to the terminal's width; `parsgd help COMMAND` is the command's help; a
// mistyped command is answered with the closest one.
TEST_F(Cli, HelpIsWrappedAndReachedEitherWay) {
  const auto wide = RunShell("COLUMNS=72 " + std::string(PARSGD_CLI_PATH) + " train --help");
  ASSERT_EQ(wide.status, 0);
  for (const std::string& line : Lines(wide.output)) EXPECT_LE(line.size(), 72u) << line;
  const auto help = RunShell("COLUMNS=72 " + std::string(PARSGD_CLI_PATH) + " help train");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.output, wide.output);
  EXPECT_TRUE(Contains(help.output, "--scheme NAME")) << help.output;
  const auto typo = RunCli("trian --train " + train_);
  EXPECT_EQ(typo.status, 2);
  EXPECT_TRUE(Contains(typo.output, "unknown command 'trian' (did you mean train?)"))
      << typo.output;
  EXPECT_FALSE(Contains(RunCli("xyzzy").output, "did you mean"));
}

// The setup says the settings given in the user's words, then every other setting that applies to
// the run with the value it takes (and none the run ignores), wrapped between settings.
TEST_F(Cli, SetupSaysWhatWasGivenThenWhatTheRunResolved) {
  const std::string cli = "COLUMNS=60 " + std::string(PARSGD_CLI_PATH) + " train --train " + train_;
  // Joins the setup's lines (before the epoch table), continuation lines to the line they continue.
  const auto setup = [](const std::string& output) {
    std::vector<std::string> joined;
    for (const std::string& line : Lines(output)) {
      if (line.rfind("  epoch", 0) == 0) break;
      // The data line holds a path, which is not broken; the settings wrap between settings.
      if (line.rfind("parsgd train:", 0) != 0) {
        EXPECT_LE(line.size(), 60u) << line;
      }
      if (line.rfind("    ", 0) == 0 && !joined.empty()) {
        joined.back() += " " + line.substr(4);
      } else {
        joined.push_back(line);
      }
    }
    return joined;
  };
  const auto find = [](const std::vector<std::string>& lines, const std::string& head) {
    for (const std::string& line : lines) {
      if (line.rfind(head, 0) == 0) return line + " ";
    }
    return std::string();
  };

  const auto cd = RunShell(cli + " --solver dual-cd --bias off --threads 1");
  ASSERT_EQ(cd.status, 0) << cd.output;
  const auto cd_lines = setup(cd.output);
  EXPECT_EQ(find(cd_lines, "  given: "), "  given: --solver dual-cd --threads 1 --bias off ")
      << cd.output;
  const std::string cd_resolved = find(cd_lines, "  resolved: ");
  EXPECT_TRUE(Contains(cd_resolved, " --model logistic ")) << cd.output;
  EXPECT_TRUE(Contains(cd_resolved, " --tol 1e-05 (auto) ")) << cd.output;
  for (const char* ignored : {"--learning-rate", "--schedule", "--optimizer", "--solver", "--threads"}) {
    EXPECT_FALSE(Contains(cd_resolved, ignored)) << ignored << "\n" << cd.output;
  }
  EXPECT_TRUE(Contains(find(cd_lines, "  model logistic, "), "stops at a relative duality gap"))
      << cd.output;

  const auto sgd = RunShell(cli + " --epochs 1 --scheme average --threads 2");
  ASSERT_EQ(sgd.status, 0) << sgd.output;
  const auto sgd_lines = setup(sgd.output);
  const std::string sgd_resolved = find(sgd_lines, "  resolved: ");
  for (const char* applied : {" --learning-rate ", " --schedule linear ", " --period ", " --seed 1 "}) {
    EXPECT_TRUE(Contains(sgd_resolved, applied)) << applied << "\n" << sgd.output;
  }
  EXPECT_FALSE(Contains(sgd_resolved, "--tol 1e-05")) << sgd.output;
  EXPECT_TRUE(Contains(find(sgd_lines, "  model logistic, "), "scheme average")) << sgd.output;
  // The data's flags given are said too, before the settings.
  const auto data_flags = RunShell(cli + " --epochs 1 --zero-based auto --threads 1");
  ASSERT_EQ(data_flags.status, 0) << data_flags.output;
  EXPECT_EQ(find(setup(data_flags.output), "  given: "),
            "  given: --zero-based auto --threads 1 --epochs 1 ")
      << data_flags.output;
  // The resolved line is flags the command line takes back (the asgd's "off", not -1).
  EXPECT_TRUE(Contains(sgd_resolved, " --asgd off ")) << sgd.output;
  std::string flags = sgd_resolved.substr(std::string("  resolved: ").size());
  for (std::size_t at; (at = flags.find(" (auto)")) != std::string::npos;) flags.erase(at, 7);
  const auto again = RunShell(cli + " --epochs 1 --scheme average --threads 2 " + flags);
  EXPECT_EQ(again.status, 0) << flags << "\n" << again.output;
}

TEST_F(Cli, DeterministicIsRefusedWhereTimingDecides) {
  for (const char* scheme : {"hogwild", "locked", "striped", "atomic"}) {
    const auto r = RunCli("train --train " + train_ + " --deterministic --scheme " + scheme);
    EXPECT_EQ(r.status, 2) << scheme;
    EXPECT_TRUE(Contains(r.output, "depends on thread timing")) << r.output;
  }
  const auto batch = RunCli("train --train " + train_ + " --scheme hogwild --batch 8");
  EXPECT_EQ(batch.status, 2);
  EXPECT_TRUE(Contains(batch.output, "minibatches apply to the sequential, sync, average, gossip and elastic")) << batch.output;
}

// The whole grid: scheme x optimiser x order, each run to a model that beats chance.
TEST_F(Cli, EverySchemeOptimizerAndOrderTrains) {
  for (const char* optimizer : {"sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"}) {
    for (const char* scheme : {"sequential", "hogwild", "locked", "striped", "atomic", "sync", "average", "gossip"}) {
      for (const char* order : {"random", "global", "local", "sequential"}) {
        const std::string args = std::string(" --optimizer ") + optimizer + " --scheme " + scheme +
                                 " --order " + order;
        const auto r = RunCli("train --train " + train_ + " --epochs 2 --threads 2 --quiet" + args);
        ASSERT_EQ(r.status, 0) << args << "\n" << r.output;
        const auto at = r.output.find("train accuracy ");
        ASSERT_NE(at, std::string::npos) << r.output;
        EXPECT_GT(std::stod(r.output.substr(at + 15)), 60.0) << args << "\n" << r.output;
      }
    }
  }
}

// Three classes, 600 rows: the class is the feature with the largest of three values.
std::string WriteThreeClasses(const TempDir& dir) {
  std::string text;
  Rng rng(3);
  for (int i = 0; i < 600; ++i) {
    float v[3];
    int best = 0;
    for (int j = 0; j < 3; ++j) {
      v[j] = static_cast<float>(rng.UniformDouble());
      if (v[j] > v[best]) best = j;
    }
    text += fmt::format("{} 1:{} 2:{} 3:{}\n", best, v[0], v[1], v[2]);
  }
  return dir.Write("classes.svm", text);
}

// The text after `key` up to the next '%' ("accuracy 91.50%" -> "91.50").
std::string PercentAfter(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return "(no " + key + ")";
  return text.substr(at + key.size(), text.find('%', at) - at - key.size());
}

// Each linear model through eval and predict: eval reports the accuracy training reported, and
// predict writes one label per row, in the training file's terms, right as often as that.
TEST_F(Cli, EveryLinearModelPredictsAndEvaluates) {
  const std::string classes = WriteThreeClasses(dir_);
  struct Case {
    std::string model, train, test;
    std::vector<std::string> labels;
  };
  const std::vector<Case> cases = {{"hinge", train_, test_, {"-1", "1"}},
                                   {"squared", train_, test_, {"-1", "1"}},
                                   {"softmax", classes, classes, {"0", "1", "2"}}};
  for (const Case& c : cases) {
    const std::string model = dir_.File(c.model + ".bin");
    const auto r = RunCli("train --train " + c.train + " --test " + c.test + " --model " + c.model +
                          " --epochs 5 --scheme sequential --save " + model);
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string accuracy = PercentAfter(r.output, "test accuracy ");
    const auto eval = RunCli("eval " + model + " " + c.test);
    ASSERT_EQ(eval.status, 0) << eval.output;
    EXPECT_EQ(PercentAfter(eval.output, "accuracy "), accuracy) << c.model << eval.output << r.output;

    const auto predict = RunCli("predict " + model + " " + c.test + " --output " + dir_.File("p.txt"));
    ASSERT_EQ(predict.status, 0) << predict.output;
    const auto predicted = Lines(testing::ReadFile(dir_.File("p.txt")));
    const auto rows = Lines(testing::ReadFile(c.test));
    ASSERT_EQ(predicted.size(), rows.size()) << c.model;
    std::size_t right = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_NE(std::find(c.labels.begin(), c.labels.end(), predicted[i]), c.labels.end())
          << c.model << ": " << predicted[i];
      const std::string truth = rows[i].substr(0, rows[i].find(' '));
      right += std::stod(truth) == std::stod(predicted[i]) ? 1 : 0;
    }
    EXPECT_EQ(fmt::format("{:.2f}", 100.0 * right / rows.size()), accuracy) << c.model;
  }
}

TEST_F(Cli, MlpTrainsSavesPredictsAndEvaluates) {
  const std::string data = WriteThreeClasses(dir_);
  const std::string model = dir_.File("mlp.bin");
  const auto r = RunCli("train --train " + data + " --model mlp --hidden 16 --epochs 30 --threads 2 " +
                        "--scheme sync --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "model mlp 3-16-3")) << r.output;
  EXPECT_TRUE(Contains(r.output, "optimizer momentum")) << r.output;  // the mlp's automatic choice
  const auto at = r.output.find("train accuracy ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::stod(r.output.substr(at + 15)), 90.0) << r.output;
  const auto eval = RunCli("eval " + model + " " + data);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_TRUE(Contains(eval.output, "accuracy " + r.output.substr(at + 15, r.output.find('%', at) - at - 15) + "%"))
      << eval.output << r.output;
  const auto predict = RunCli("predict " + model + " " + data + " --output " + dir_.File("p.txt"));
  ASSERT_EQ(predict.status, 0) << predict.output;
  const auto lines = Lines(testing::ReadFile(dir_.File("p.txt")));
  ASSERT_EQ(lines.size(), 600u);
  for (const auto& line : lines) EXPECT_TRUE(line == "0" || line == "1" || line == "2") << line;
  const auto bad = RunCli("train --train " + data + " --model mlp --hidden 16,x");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Contains(bad.output, "--hidden: expected layer sizes")) << bad.output;
}

TEST_F(Cli, EveryCommandHasHelp) {
  for (const char* command : {"train", "predict", "eval", "gen", "convert"}) {
    const auto r = RunCli(std::string(command) + " --help");
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_TRUE(Contains(r.output, std::string("usage: parsgd ") + command)) << r.output;
  }
  EXPECT_TRUE(Contains(RunCli("train --help").output, "Train a linear model or an MLP"));
  const auto top = RunCli("--help");
  EXPECT_EQ(top.status, 0);
  EXPECT_TRUE(Contains(top.output, "convert")) << top.output;
}

TEST(CliRealData, HeartScaleTrainsToAReasonableAccuracy) {
  const std::string heart = "/usr/share/doc/liblinear-tools/examples/heart_scale";
  if (!std::filesystem::exists(heart)) GTEST_SKIP() << "liblinear-tools not installed";
  const auto r = RunCli("train --train " + heart + " --threads 1 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  // LIBLINEAR's logistic regression fits 84.8% of heart_scale's rows; SGD should get close.
  const auto at = r.output.find("train accuracy ");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_GT(std::stod(r.output.substr(at + 15)), 80.0) << r.output;
}

}  // namespace
}  // namespace parsgd

namespace parsgd {
namespace {

// Under mpirun (its environment says so) every command refuses, rather than each rank running the
// whole job alone and writing the same files at once.
// Only train runs across ranks: every other command, started by mpirun, would run once per rank
// and write the same files at once.
TEST(CliRanks, CommandsOtherThanTrainRefuseToRunOncePerRank) {
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  const testing::CliResult r = testing::RunCli("convert nowhere.svm nowhere.bin");
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(testing::Contains(r.output, "started as one of 2 ranks (mpirun): only `parsgd train`"))
      << r.output;
  EXPECT_EQ(testing::RunCli("convert nowhere.svm nowhere.bin").status, 1);  // alone: the file's error
}

}  // namespace
}  // namespace parsgd
