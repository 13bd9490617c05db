// Soak test (a program, not a ctest): many short training runs back to back through the library
// API, checking that nothing accumulates. Each round, for every job below (linear models and the
// MLP under several schemes and optimisers): the training set goes through LIBSVM text and the
// binary cache and is read back, a Trainer runs two epochs, and the model is saved, loaded back
// and evaluated. After the warm-up rounds, the resident size (/proc/self/statm) must stay within
// --tolerance-mb of its value at the end of the warm-up (it moves with fragmentation and pages
// the allocators keep), the bytes malloc has handed out and not taken back within
// --heap-tolerance-mb (the sharper test of a leak); after every round the number of open file
// descriptors (/proc/self/fd) must equal its value at the start. Prints a table; exits 1 on a leak.
//
//   soak [--rounds N] [--warmup N] [--tolerance-mb X] [--heap-tolerance-mb X] [--threads N]
//   defaults: 40 rounds, 5 of warm-up, 8 MiB resident, 1 MiB heap, 2 threads
#include <dirent.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parsgd/data/generator.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"

namespace parsgd {
namespace {

struct Options {
  int rounds = 40;
  int warmup = 5;
  double tolerance_mb = 8;
  double heap_tolerance_mb = 1;
  int threads = 2;
};

struct Job {
  const char* name;
  ModelKind model;
  SchemeKind scheme;
  OptimizerKind optimizer;
};

constexpr Job kJobs[] = {
    {"logistic hogwild sgd", ModelKind::kLogistic, SchemeKind::kHogwild, OptimizerKind::kSgd},
    {"hinge locked momentum", ModelKind::kHinge, SchemeKind::kLocked, OptimizerKind::kMomentum},
    {"squared striped adagrad", ModelKind::kSquared, SchemeKind::kStriped, OptimizerKind::kAdaGrad},
    {"softmax sync adam", ModelKind::kSoftmax, SchemeKind::kSync, OptimizerKind::kAdam},
    {"logistic average rmsprop", ModelKind::kLogistic, SchemeKind::kAverage,
     OptimizerKind::kRmsProp},
    {"mlp hogwild momentum", ModelKind::kMlp, SchemeKind::kHogwild, OptimizerKind::kMomentum},
    {"mlp average adam", ModelKind::kMlp, SchemeKind::kAverage, OptimizerKind::kAdam},
    {"mlp sync sgd", ModelKind::kMlp, SchemeKind::kSync, OptimizerKind::kSgd},
};

double ResidentMiB() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  if (f == nullptr || std::fscanf(f, "%lu %lu", &size, &resident) != 2) std::abort();
  std::fclose(f);
  return static_cast<double>(resident) * ::sysconf(_SC_PAGE_SIZE) / (1 << 20);
}

// Bytes the process has allocated through malloc and not freed (glibc's count, mmapped blocks
// included): unlike the resident size it does not move with fragmentation or pages kept for reuse.
double HeapInUseMiB() {
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd) / (1 << 20);
}

// Open descriptors, not counting the one used to list them.
int OpenFds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) std::abort();
  int count = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  ::closedir(dir);
  return count - 1;
}

// The generated problem with class ids 0/1 instead of -1/+1 (softmax and the MLP take class ids).
Dataset WithClassIds(const Dataset& data) {
  AlignedArray<float> labels(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) labels[i] = data.label(i) > 0 ? 1.f : 0.f;
  Dataset::Parts parts{
      data.offsets(),  data.indices(), data.values(), SharedArray<float>(std::move(labels)),
      data.features(), "classes",      nullptr};
  return Dataset(std::move(parts));
}

// The data through both file formats and back (mapping, reading, closing).
Dataset RoundTrip(const Dataset& data, const std::filesystem::path& dir) {
  SaveDataset(data, dir / "train.svm");
  SaveDataset(LoadDataset(dir / "train.svm"), dir / "train.bin");
  return ResidentCopy(LoadDataset(dir / "train.bin"));
}

void RunJob(const Job& job, const Dataset& data, const std::filesystem::path& dir,
            Executor& executor) {
  TrainConfig config;
  config.model = job.model;
  config.scheme = job.scheme;
  config.optimizer.kind = job.optimizer;
  config.epochs = 2;
  config.hidden = {32, 16};
  Trainer trainer(config, data, nullptr, executor);
  for (int e = 0; e < config.epochs; ++e) trainer.RunEpoch();
  const std::string path = dir / "model.bin";
  if (job.model == ModelKind::kMlp) {
    SaveModel(trainer.mlp_model(), path, "soak");
  } else {
    SaveModel(trainer.model(), path, "soak");
  }
  const LoadedModel loaded = LoadModel(path);
  const Targets targets = MakeTargets(job.model, data);
  const Evaluation eval = std::visit(
      [&](const auto& model) {
        if constexpr (std::is_same_v<std::decay_t<decltype(model)>, MlpModel>) {
          return EvaluateMlp(model, data, targets, executor);
        } else {
          return Evaluate(model, data, targets, executor);
        }
      },
      loaded.model);
  if (eval.rows != data.rows()) std::abort();
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--rounds")
      o.rounds = std::atoi(value);
    else if (flag == "--warmup")
      o.warmup = std::atoi(value);
    else if (flag == "--tolerance-mb")
      o.tolerance_mb = std::atof(value);
    else if (flag == "--heap-tolerance-mb")
      o.heap_tolerance_mb = std::atof(value);
    else if (flag == "--threads")
      o.threads = std::atoi(value);
    else {
      std::fprintf(stderr, "soak: unknown flag %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (argc % 2 == 0 || o.rounds <= o.warmup || o.warmup < 1 || o.threads < 1) {
    std::fprintf(stderr,
                 "usage: soak [--rounds N > warmup] [--warmup N >= 1] "
                 "[--tolerance-mb X] [--heap-tolerance-mb X] [--threads N]\n");
    std::exit(2);
  }
  return o;
}

}  // namespace
}  // namespace parsgd

int main(int argc, char** argv) {
  using namespace parsgd;
  const Options options = Parse(argc, argv);
  const int start_fds = OpenFds();
  char pattern[] = "/tmp/parsgd-soak-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return 1;
  const std::filesystem::path dir = pattern;

  GeneratorParams params;
  params.rows = 3000;
  params.features = 400;
  params.nnz_per_row = 20;
  const Dataset binary = GenerateSparse(params);
  const Dataset classes = WithClassIds(binary);
  auto executor = MakeTbbExecutor(options.threads);

  std::printf("soak: %zu jobs per round, %d threads, %d warm-up rounds; %d open fds at start\n",
              std::size(kJobs), options.threads, options.warmup, start_fds);
  std::printf("%6s %9s %9s %9s %9s %5s %8s\n", "round", "rss MiB", "vs warm", "heap MiB", "vs warm",
              "fds", "seconds");
  double warm_rss = 0, warm_heap = 0, rss_growth = 0, heap_growth = 0;
  int bad_fd_rounds = 0;
  for (int round = 1; round <= options.rounds; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const Job& job : kJobs) {
      RunJob(job, RoundTrip(IsBinary(job.model) ? binary : classes, dir), dir, *executor);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rss = ResidentMiB(), heap = HeapInUseMiB();
    const int fds = OpenFds();
    if (round == options.warmup) warm_rss = rss, warm_heap = heap;
    const bool warm = round > options.warmup;
    rss_growth = std::max(rss_growth, warm ? rss - warm_rss : 0);
    heap_growth = std::max(heap_growth, warm ? heap - warm_heap : 0);
    bad_fd_rounds += fds != start_fds;
    if (round <= options.warmup + 1 || round % 10 == 0 || fds != start_fds) {
      std::printf("%6d %9.1f %+9.2f %9.2f %+9.3f %5d %8.2f\n", round, rss,
                  warm ? rss - warm_rss : 0, heap, warm ? heap - warm_heap : 0, fds, seconds);
    }
  }
  std::filesystem::remove_all(dir);
  const bool leak = rss_growth > options.tolerance_mb || heap_growth > options.heap_tolerance_mb ||
                    bad_fd_rounds > 0;
  std::printf(
      "soak: %s: after warm-up, resident memory at most %+.2f MiB (tolerance %.1f), heap in "
      "use at most %+.3f MiB (tolerance %.1f); %d rounds ended with open fds != %d\n",
      leak ? "LEAK" : "ok", rss_growth, options.tolerance_mb, heap_growth,
      options.heap_tolerance_mb, bad_fd_rounds, start_fds);
  return leak ? 1 : 0;
}
