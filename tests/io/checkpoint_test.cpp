// Checkpoints: resuming continues exactly as if never stopped; damaged or foreign files and
// mismatched runs are refused with a clear error; SIGINT stops, saves and exits with 130.
#include "parsgd/io/checkpoint.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "interrupt.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"
#include "util/xxhash64.hpp"

namespace parsgd {
namespace {

std::vector<float> Params(const Trainer& t, const TrainConfig& c) {
  const auto p = c.model == ModelKind::kMlp ? t.mlp_model().params() : t.model().weights();
  return {p.begin(), p.end()};
}

// 10 epochs straight, and 4 + checkpoint file + a new trainer resumed from it + 6: the same bits.
void ExpectResumeExact(const TrainConfig& config, const Dataset& data, const std::string& file) {
  auto executor = MakeTbbExecutor(config.threads);
  Trainer straight(config, data, nullptr, *executor);
  for (int e = 0; e < config.epochs; ++e) straight.RunEpoch();

  {
    Trainer first(config, data, nullptr, *executor);
    for (int e = 0; e < 4; ++e) first.RunEpoch();
    SaveCheckpoint({first.RunIdentity(), first.DataIdentity(), first.Snapshot()}, file);
    for (int e = 0; e < 3; ++e) first.RunEpoch();  // the file is not affected by what follows
  }
  Trainer resumed(config, data, nullptr, *executor);
  const Checkpoint c = LoadCheckpoint(file);
  EXPECT_EQ(IdentityDifferences(c.run, resumed.RunIdentity()), "");
  EXPECT_EQ(IdentityDifferences(c.data, resumed.DataIdentity()), "");
  resumed.Restore(c.state);
  EXPECT_EQ(resumed.epochs_done(), 4);
  while (resumed.epochs_done() < config.epochs) resumed.RunEpoch();
  const std::vector<float> x = Params(straight, config), y = Params(resumed, config);
  ASSERT_EQ(x.size(), y.size());
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0);
}

// Raises the stop flag after the n-th RunWorkers call since Arm(n), from the calling thread, so
// that an epoch stops at a known point between two of its parallel phases (a minibatch step, an
// averaging period): an interruption in mid-epoch, with no timing involved.
class StopAfterCalls final : public Executor {
 public:
  explicit StopAfterCalls(int threads) : inner_(MakeTbbExecutor(threads)) {}
  void Arm(int calls) {
    calls_ = 0;
    stop_after_ = calls;
  }
  int threads() const override { return inner_->threads(); }
  void RunWorkers(int workers, const std::function<void(int)>& body) override {
    inner_->RunWorkers(workers, body);
    if (++calls_ == stop_after_) stop_.store(true);
  }
  void ParallelFor(uint64_t blocks, const std::function<void(uint64_t)>& body) override {
    inner_->ParallelFor(blocks, body);
  }
  void Execute(const std::function<void()>& fn) override { inner_->Execute(fn); }

 private:
  std::unique_ptr<Executor> inner_;
  int calls_ = 0;
  int stop_after_ = -1;
};

// An epoch cut short by the stop flag leaves the trainer holding part of an epoch; restoring the
// snapshot of the epoch before makes it whole again, replicas included. The minibatch runners
// call RunWorkers once to prepare and twice per step; the average runner once to prepare, then
// per period once to train and once to average: 5 calls stop each after two steps or periods.
TEST(Resume, AnInterruptedEpochIsUndoneByRestore) {
  const Dataset data = testing::MakeProblem(3000, 40, 6, 3, 0.05, 44);
  for (SchemeKind scheme : {SchemeKind::kAverage, SchemeKind::kSync, SchemeKind::kSequential}) {
    for (int batch : {1, 8}) {
      if (scheme == SchemeKind::kSync && batch == 1) continue;  // a batch per worker at least
      TrainConfig c;
      c.model = ModelKind::kSoftmax;
      c.scheme = scheme;
      c.optimizer.kind = OptimizerKind::kAdam;
      c.threads = 2;
      c.batch = batch;
      if (scheme == SchemeKind::kAverage) c.period = 3;
      c.epochs = 6;
      const std::string name = testing::Name(scheme) + " batch " + std::to_string(batch);
      auto executor = MakeTbbExecutor(2);
      Trainer straight(c, data, nullptr, *executor);
      for (int e = 0; e < c.epochs; ++e) straight.RunEpoch();

      StopAfterCalls stopper(2);
      Trainer t(c, data, nullptr, stopper);
      for (int e = 0; e < 2; ++e) t.RunEpoch();
      const TrainingState before = t.Snapshot();
      const std::vector<float> weights = Params(t, c);
      // Sequential per sample is one call per epoch: its stop comes between two samples, from
      // the flag raised at the start (the workers check it before their first block).
      const bool per_sample = scheme == SchemeKind::kSequential && batch == 1;
      if (per_sample) {
        stopper.stop_flag().store(true);
      } else {
        stopper.Arm(5);
      }
      const EpochReport cut = t.RunEpoch();
      stopper.Arm(-1);
      stopper.stop_flag().store(false);
      EXPECT_TRUE(cut.interrupted) << name;
      EXPECT_LT(cut.updates, data.rows()) << name;
      if (!per_sample) {
        EXPECT_GT(cut.updates, 0u) << name;
        EXPECT_NE(Params(t, c), weights) << name << ": the partial epoch changed nothing";
      }
      t.Restore(before);
      EXPECT_EQ(t.epochs_done(), 2);
      while (t.epochs_done() < c.epochs) EXPECT_FALSE(t.RunEpoch().interrupted);
      const std::vector<float> x = Params(straight, c), y = Params(t, c);
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << name;
    }
  }
}

// A replica's own optimiser state of another size than the model's (a file made by hand, past the
// checksum) is refused when restored, for the linear and the dense runner alike: never a replica
// that would be read past its end.
TEST(Resume, ReplicaStateOfAnotherSizeIsRefused) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 3, 0.0, 45);
  for (ModelKind model : {ModelKind::kSoftmax, ModelKind::kMlp}) {
    TrainConfig c;
    c.model = model;
    c.scheme = SchemeKind::kAverage;
    c.optimizer.kind = OptimizerKind::kAdam;
    c.threads = 2;
    c.batch = 8;
    c.hidden = {4};
    c.epochs = 3;
    c = testing::OnlyApplied(c);
    auto executor = MakeTbbExecutor(2);
    Trainer t(c, data, nullptr, *executor);
    t.RunEpoch();
    const TrainingState good = t.Snapshot();
    ASSERT_TRUE(good.Has("replica1.state0")) << testing::Name(model);
    TrainingState bad;
    for (const auto& [name, value] : good.counters()) bad.Put(name, value);
    for (const auto& [name, values] : good.arrays()) {
      std::vector<float> v = values;
      if (name == "replica1.state0") v.resize(v.size() / 2);
      bad.Put(name, v);
    }
    Trainer fresh(c, data, nullptr, *executor);
    try {
      fresh.Restore(bad);
      ADD_FAILURE() << "accepted a short replica state: " << testing::Name(model);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("replica1.state0"), std::string::npos) << e.what();
    }
    fresh.Restore(good);  // the good state still restores
    EXPECT_EQ(fresh.epochs_done(), 1);
  }
}

struct Case {
  const char* name;
  ModelKind model;
  SchemeKind scheme;
  OptimizerKind optimizer;
  int threads;
  int batch;
  bool average_state;
};

class ResumeExact : public ::testing::TestWithParam<Case> {};

TEST_P(ResumeExact, TenStraightEqualsFourResumeSix) {
  const Case k = GetParam();
  TrainConfig c;
  c.model = k.model;
  c.scheme = k.scheme;
  c.optimizer.kind = k.optimizer;
  c.threads = k.threads;
  c.batch = k.batch;
  c.average_state = k.average_state;
  c.period = 3;
  c.epochs = 10;
  c.order = OrderKind::kRandom;
  c.hidden = {8};
  c = testing::OnlyApplied(c);
  const int classes = k.model == ModelKind::kLogistic ? 2 : 3;
  const Dataset data = testing::MakeProblem(600, 30, 5, classes, 0.05, 41);
  testing::TempDir dir;
  ExpectResumeExact(c, data, dir.File("run.ckpt"));
}

INSTANTIATE_TEST_SUITE_P(
    DeterministicSchemes, ResumeExact,
    ::testing::Values(Case{"sequential_sgd", ModelKind::kLogistic, SchemeKind::kSequential,
                           OptimizerKind::kSgd, 1, 1, false},
                      Case{"sequential_adam", ModelKind::kSoftmax, SchemeKind::kSequential,
                           OptimizerKind::kAdam, 1, 1, false},
                      Case{"minibatch_adam", ModelKind::kLogistic, SchemeKind::kSequential,
                           OptimizerKind::kAdam, 1, 8, false},
                      Case{"sync_momentum", ModelKind::kSoftmax, SchemeKind::kSync,
                           OptimizerKind::kMomentum, 2, 16, false},
                      Case{"average_adam", ModelKind::kLogistic, SchemeKind::kAverage,
                           OptimizerKind::kAdam, 2, 4, false},
                      Case{"average_state_rmsprop", ModelKind::kSoftmax, SchemeKind::kAverage,
                           OptimizerKind::kRmsProp, 2, 4, true},
                      Case{"average_per_sample_adagrad", ModelKind::kLogistic, SchemeKind::kAverage,
                           OptimizerKind::kAdaGrad, 2, 1, false},
                      Case{"mlp_sequential_momentum", ModelKind::kMlp, SchemeKind::kSequential,
                           OptimizerKind::kMomentum, 1, 16, false},
                      Case{"mlp_average_adam", ModelKind::kMlp, SchemeKind::kAverage,
                           OptimizerKind::kAdam, 2, 16, false},
                      Case{"mlp_sync_nesterov", ModelKind::kMlp, SchemeKind::kSync,
                           OptimizerKind::kNesterov, 2, 16, false},
                      Case{"elastic_momentum", ModelKind::kSoftmax, SchemeKind::kElastic,
                           OptimizerKind::kMomentum, 2, 4, false},
                      Case{"mlp_elastic_adam", ModelKind::kMlp, SchemeKind::kElastic,
                           OptimizerKind::kAdam, 2, 16, false}),
    [](const auto& info) { return std::string(info.param.name); });

// A checkpoint written by a real run, for the damage tests.
std::string WriteCheckpoint(const testing::TempDir& dir) {
  const Dataset data = testing::MakeProblem(200, 20, 4, 2, 0.0, 42);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.optimizer.kind = OptimizerKind::kAdam;
  c.epochs = 3;
  Trainer t(c, data, nullptr, *executor);
  t.RunEpoch();
  const std::string path = dir.File("good.ckpt");
  SaveCheckpoint({t.RunIdentity(), t.DataIdentity(), t.Snapshot()}, path);
  return path;
}

void ExpectRefused(const std::string& path, const std::string& fragment) {
  try {
    LoadCheckpoint(path);
    ADD_FAILURE() << "accepted; expected: " << fragment;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
}

TEST(CheckpointFile, RoundTripsEveryEntry) {
  testing::TempDir dir;
  const Checkpoint c = LoadCheckpoint(WriteCheckpoint(dir));
  EXPECT_EQ(c.state.Counter("epochs_done"), 1u);
  EXPECT_TRUE(c.state.Has("weights"));
  EXPECT_TRUE(c.state.Has("state0"));  // adam's two moments
  EXPECT_TRUE(c.state.Has("state1"));
  EXPECT_NE(c.run.find("optimizer=adam"), std::string::npos);
  EXPECT_NE(c.data.find("rows=200"), std::string::npos);
}

// Found by the checkpoint fuzz target: an empty array made LoadCheckpoint memcpy from null.
TEST(CheckpointFile, RoundTripsEmptyArraysAndCounters) {
  testing::TempDir dir;
  Checkpoint c{"model=logistic\n", "rows=1\n", {}};
  c.state.Put("empty", std::span<const float>());
  c.state.Put("one", std::vector<float>{2.5f});
  c.state.Put("epochs_done", uint64_t{7});
  SaveCheckpoint(c, dir.File("e.ckpt"));
  const Checkpoint d = LoadCheckpoint(dir.File("e.ckpt"));
  EXPECT_EQ(d.run, c.run);
  EXPECT_EQ(d.data, c.data);
  EXPECT_TRUE(d.state.arrays().at("empty").empty());
  EXPECT_EQ(d.state.arrays().at("one"), std::vector<float>{2.5f});
  EXPECT_EQ(d.state.Counter("epochs_done"), 7u);
}

TEST(CheckpointFile, RefusesDamagedAndForeignFiles) {
  testing::TempDir dir;
  const std::string good = testing::ReadFile(WriteCheckpoint(dir));
  auto variant = [&](const std::string& name, const std::string& bytes) {
    return dir.Write(name, bytes);
  };

  ExpectRefused(variant("truncated", good.substr(0, good.size() - 9)), "checksum mismatch");
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x10;
  ExpectRefused(variant("flipped", flipped), "checksum mismatch");
  ExpectRefused(variant("empty", ""), "bad magic");
  ExpectRefused(variant("foreign", "P5\n28 28\n255\n" + std::string(100, 'x')), "bad magic");
  std::string version = good;
  version[8] = 7;
  ExpectRefused(variant("version", version), "checkpoint version 7");

  // A valid checksum over a header that declares more values than the file holds: refused before
  // any allocation of that size.
  std::string huge = good.substr(0, good.size() - 8);
  const std::size_t at = huge.rfind("weights");
  ASSERT_NE(at, std::string::npos);
  const uint64_t claimed = uint64_t{1} << 60;
  std::memcpy(huge.data() + at + 7, &claimed, sizeof claimed);
  const uint64_t sum = Xxh64(huge.data(), huge.size(), 0);
  huge.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  ExpectRefused(variant("huge", huge), "more than the file holds");
}

TEST(CheckpointFile, ResumeRefusesAnotherRunOrOtherData) {
  testing::TempDir dir;
  const Checkpoint c = LoadCheckpoint(WriteCheckpoint(dir));
  const Dataset data = testing::MakeProblem(200, 20, 4, 2, 0.0, 42);
  auto executor = MakeTbbExecutor(1);
  TrainConfig other;
  other.scheme = SchemeKind::kSequential;
  other.optimizer.kind = OptimizerKind::kMomentum;
  other.epochs = 3;
  Trainer t(other, data, nullptr, *executor);
  const std::string diff = IdentityDifferences(c.run, t.RunIdentity());
  EXPECT_NE(diff.find("optimizer: checkpoint adam, this run momentum"), std::string::npos) << diff;

  const Dataset changed = testing::MakeProblem(200, 20, 4, 2, 0.0, 43);
  TrainConfig same;
  same.scheme = SchemeKind::kSequential;
  same.optimizer.kind = OptimizerKind::kAdam;
  same.epochs = 3;
  Trainer u(same, changed, nullptr, *executor);
  EXPECT_NE(IdentityDifferences(c.data, u.DataIdentity()).find("xxh64"), std::string::npos);
  // Restoring into the wrong shape is an error too, never a silent partial copy.
  TrainConfig softmax = same;
  softmax.model = ModelKind::kSoftmax;
  Trainer v(softmax, testing::MakeProblem(200, 20, 4, 3, 0.0, 42), nullptr, *executor);
  EXPECT_THROW(v.Restore(c.state), Error);
}

TEST(Interrupt, FirstSignalRaisesTheStopFlag) {
  std::atomic<bool> stop{false};
  {
    cli::InterruptGuard guard(stop);
    std::raise(SIGTERM);
    EXPECT_TRUE(stop.load());
    EXPECT_EQ(guard.signal(), SIGTERM);
  }
}

TEST(InterruptDeathTest, SecondSigintExitsAtOnce) {
  std::atomic<bool> stop{false};
  EXPECT_EXIT(
      {
        cli::InterruptGuard guard(stop);
        std::raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        std::raise(SIGINT);
        std::exit(0);
      },
      ::testing::ExitedWithCode(130), "second interrupt");
}

// GNU `timeout -s INT` signals the command, then its process group: one interrupt, twice.
TEST(Interrupt, ASigintRepeatedAtOnceIsOneInterrupt) {
  std::atomic<bool> stop{false};
  cli::InterruptGuard guard(stop);
  std::raise(SIGINT);
  std::raise(SIGINT);  // would have _exit(130)ed: the test would not go on
  EXPECT_TRUE(stop.load());
  EXPECT_EQ(guard.signal(), SIGINT);
}

// Runs the parsgd program, sends SIGINT once its first epoch line is out, and returns the exit
// status and everything it printed.
testing::CliResult RunAndInterrupt(const std::string& args) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("pipe");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::execl("/bin/sh", "sh", "-c", (std::string("exec ") + PARSGD_CLI_PATH + " " + args).c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string output;
  char buffer[4096];
  bool sent = false;
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) {
    output.append(buffer, static_cast<std::size_t>(n));
    if (!sent && output.find("1/150") != std::string::npos) {
      ::kill(pid, SIGINT);
      sent = true;
    }
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// SIGINT while the data is still being read (before training's handler): the outputs opened
// first leave no temporary file behind, and what was at their paths stays (a walkthrough found
// `m.bin.tmp.XXXXXX` litter). Sent 150 ms in, with reading ~60 MB of text ahead; should the
// machine reach training first, the same must hold there.
TEST(Interrupt, WhileReadingTheDataLeavesNoTemporaryFiles) {
  testing::TempDir dir;
  const std::string data = dir.File("big.svm");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 400000 --features 50000 --seed 5").status, 0);
  const std::string model = dir.Write("m.bin", "the user's old model");
  int status = 0;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(PARSGD_CLI_PATH, PARSGD_CLI_PATH, "train", "--train", data.c_str(), "--epochs", "3",
            "--quiet", "--save", model.c_str(), "--metrics", dir.File("m.jsonl").c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(pid, SIGINT);
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
              (WIFEXITED(status) && WEXITSTATUS(status) == 130))
      << status;
  EXPECT_EQ(testing::ReadFile(model), "the user's old model");
  EXPECT_FALSE(std::filesystem::exists(dir.File("m.jsonl")));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST(Interrupt, SigintWritesACheckpointThatResumesToTheSameModel) {
  testing::TempDir dir;
  const std::string data = dir.File("d.bin");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 2000 --features 500 --nnz 10 --seed 3").status,
            0);
  const std::string common =
      "train --train " + data + " --scheme sync --batch 32 --threads 2 --epochs 150 ";
  const testing::CliResult straight =
      testing::RunCli(common + "--quiet --save " + dir.File("a.model"));
  ASSERT_EQ(straight.status, 0) << straight.output;

  const std::string ckpt = dir.File("run.ckpt");
  const testing::CliResult stopped =
      RunAndInterrupt(common + "--save " + dir.File("b.model") + " --checkpoint " + ckpt +
                      " --checkpoint-every 50");
  ASSERT_EQ(stopped.status, 130) << stopped.output;
  EXPECT_NE(stopped.output.find("interrupted: stopped during epoch"), std::string::npos)
      << stopped.output;
  EXPECT_NE(stopped.output.find("resume with: parsgd train"), std::string::npos) << stopped.output;
  EXPECT_FALSE(std::ifstream(dir.File("b.model")).good());  // no model from an unfinished run

  const testing::CliResult resumed =
      testing::RunCli(common + "--quiet --save " + dir.File("b.model") + " --resume " + ckpt);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(testing::ReadFile(dir.File("a.model")), testing::ReadFile(dir.File("b.model")));

  const testing::CliResult mismatch =
      testing::RunCli("train --train " + data +
                      " --scheme sync --batch 64 --threads 2 --epochs 150 --resume " + ckpt);
  EXPECT_EQ(mismatch.status, 1);
  EXPECT_NE(mismatch.output.find("batch: checkpoint 32, this run 64"), std::string::npos)
      << mismatch.output;
}

// A run started from a model (--init) and interrupted: the printed command resumes it from the
// checkpoint, without --init (which --resume refuses), and runs as printed.
TEST(Interrupt, TheResumeCommandOfAnInitRunLeavesInitOut) {
  testing::TempDir dir;
  const std::string data = dir.File("d.bin");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 2000 --features 500 --nnz 10 --seed 4").status,
            0);
  const std::string model = dir.File("start.model");
  ASSERT_EQ(testing::RunCli("train --train " + data + " --epochs 1 --quiet --save " + model).status,
            0);
  const testing::CliResult stopped = RunAndInterrupt(
      "train --train " + data + " --scheme sync --batch 32 --threads 2 --epochs 150 --init " +
      model + " --checkpoint " + dir.File("run.ckpt"));
  ASSERT_EQ(stopped.status, 130) << stopped.output;
  const auto at = stopped.output.find("resume with: parsgd ");
  ASSERT_NE(at, std::string::npos) << stopped.output;
  const std::string command =
      stopped.output.substr(at + 20, stopped.output.find('\n', at) - at - 20);
  EXPECT_EQ(command.find("--init"), std::string::npos) << command;
  const testing::CliResult resumed = testing::RunCli(command + " --quiet");
  EXPECT_EQ(resumed.status, 0) << command << "\n" << resumed.output;
}

}  // namespace
}  // namespace parsgd
