#include "data_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/memory_limit.hpp"

namespace parsgd::cli {
namespace {

constexpr double kMiB = double(uint64_t{1} << 20);

struct FileNeed {
  std::string path;
  bool cache = false;
  uint64_t bytes = 0;  // in memory if held (this rank's share); 0: not known before reading
  CacheShape shape;    // a cache's header
};

FileNeed Need(const std::string& path, DataFormat format, int ranks) {
  FileNeed need{path};
  if (path == "-") return need;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return need;  // the reader says why
  const DataFormat read = format == DataFormat::kAuto ? DetectDataFormat(path) : format;
  if (read == DataFormat::kBinary) {
    need.cache = true;
    need.shape = ReadBinaryCacheShape(path);
    need.bytes = need.shape.bytes() / static_cast<uint64_t>(ranks);
  }
  // Text: its rows are known only once read (a byte of text may be a stored entry's eighth or,
  // zeros and comments, nothing), so it is not counted: no run that could fit is refused.
  return need;
}

// One copy of the model's parameters (float32) for training data of this shape: the least a run
// holds besides its rows (replicas, optimiser state and the MLP's activations come on top). 0
// where the label set is not known (text; a version 1 cache) and it decides the outputs.
uint64_t ModelBytes(const TrainConfig& c, const CacheShape& shape) {
  if (shape.features == 0) return 0;  // not a cache: known once read
  const uint64_t classes = shape.classes;
  if (c.model == ModelKind::kMlp) {
    if (classes == 0) return 0;
    uint64_t params = 0, in = shape.features;
    for (int hidden : c.hidden) {
      params += (in + 1) * static_cast<uint64_t>(hidden);
      in = static_cast<uint64_t>(hidden);
    }
    return 4 * (params + (in + 1) * classes);
  }
  uint64_t outputs = 1;  // a binary model or a regression
  if (c.model == ModelKind::kSoftmax) {
    if (classes == 0) return 0;
    outputs = classes;
  } else if (classes > 2 && c.multiclass != Multiclass::kOff) {
    outputs = classes;  // one-vs-rest, or logistic as softmax (a regression has more values)
  }
  return 4 * (shape.features + 1) * outputs;
}

}  // namespace

uint64_t PageBudgetBytes(int threads, uint64_t block_bytes) {
  if (block_bytes == 0) block_bytes = kDefaultBlockBytes;
  return (uint64_t{64} << 20) + 4 * static_cast<uint64_t>(std::max(threads, 1)) * block_bytes;
}

DataPlan PlanDataMemory(const RunArgs& run, int ranks, int threads) {
  const TrainConfig& c = run.config;
  std::vector<FileNeed> needs = {Need(run.train, run.format, ranks)};
  for (const std::string* path : {&run.test, &run.validation}) {
    if (!path->empty()) needs.push_back(Need(*path, run.format, ranks));
  }
  const uint64_t usable = UsableMemoryBytes();
  const FileNeed& train = needs[0];
  const bool takes_order = TakesSampleOrder(c.solver) && c.backend == Backend::kCpu;
  const bool paged = train.cache && takes_order &&
                     ChooseOrder(c.order, train.bytes, true, usable, nullptr) == OrderKind::kBlock;
  DataPlan plan;
  if (paged) {
    // A block a thread must fit beside the rest; the budget's margin above that is cut to half
    // the memory this process may use.
    const uint64_t block = c.block_size != 0 ? c.block_size : kDefaultBlockBytes;
    const uint64_t working = static_cast<uint64_t>(std::max(threads, 1)) * block;
    if (working > usable / 2) {
      throw Error(fmt::format(
          "{}: --block-size {:.0f} MiB for {} threads reads {:.0f} MiB of the file at once, more "
          "than half the {:.0f} MiB this process may use (physical memory, its cgroup's limit, "
          "its address-space limit): give a smaller --block-size (the default is {} MiB)",
          train.path, block / kMiB, std::max(threads, 1), working / kMiB, usable / kMiB,
          kDefaultBlockBytes >> 20));
    }
    plan.budget = std::min(PageBudgetBytes(threads, c.block_size), usable / 2);
  }
  const uint64_t model = ModelBytes(c, train.shape);
  uint64_t held = plan.budget + model;
  for (const FileNeed& need : needs) {
    if (!(paged && need.cache)) held += need.bytes;
  }
  if (paged && c.validation_fraction > 0) {
    throw Error(fmt::format(
        "{}: --order {} reads its {:.0f} MiB of rows from the file a few blocks at a time, and "
        "--validation-fraction would copy them into memory: hold the validation rows out in a "
        "file of their own (--validation FILE)",
        train.path, NameOf<OrderKind>(kOrderKinds, c.order), train.bytes / kMiB));
  }
  if (held <= usable) return plan;
  if (model > usable / 2) {
    throw Error(fmt::format(
        "{}: the model of its {} features needs {:.0f} MiB (one copy of its parameters), and the "
        "run {:.0f} MiB, more than the {:.0f} MiB this process may use: fewer features (for "
        "hashed text, a smaller --hash-bits)",
        train.path, train.shape.features, model / kMiB, held / kMiB, usable / kMiB));
  }
  // The file that holds the most in memory: what to change (a paged cache holds its budget).
  auto in_memory = [&](const FileNeed& need) { return paged && need.cache ? 0 : need.bytes; };
  const FileNeed& most = *std::max_element(
      needs.begin(), needs.end(),
      [&](const FileNeed& a, const FileNeed& b) { return in_memory(a) < in_memory(b); });
  std::string way;
  if (!train.cache) {
    way = fmt::format(
        "convert {} to a binary cache (parsgd convert {} CACHE) and train from that with --order "
        "block, which reads the run's binary caches a few blocks at a time",
        train.path, train.path);
  } else if (!most.cache) {
    way = fmt::format(
        "convert {} to a binary cache (parsgd convert {} CACHE): under --order block the run's "
        "binary caches are read a few blocks at a time, its text files are held whole",
        most.path, most.path);
  } else if (!takes_order) {
    way = !TakesSampleOrder(c.solver)
              ? fmt::format("--solver {} {}: use --solver sgd or dual-cd with --order block, "
                            "which reads a few blocks of the file at a time",
                            NameOf<Solver>(kSolvers, c.solver),
                            c.solver == Solver::kCd ? "copies every row into columns"
                                                    : "reads every row at every inner iteration")
              : "--backend offload copies every row to the device: use the cpu backend with "
                "--order block, which reads a few blocks of the file at a time";
  } else {
    way = fmt::format(
        "train with --order block (or auto), which reads the run's binary caches "
        "a few blocks at a time (--order is {})",
        NameOf<OrderKind>(kOrderKinds, c.order));
  }
  std::string total;
  if (held > in_memory(most)) {
    total =
        fmt::format(", the run's data {}{:.0f} MiB", model > 0 ? "and model " : "", held / kMiB);
  }
  throw Error(fmt::format(
      "{}: its rows need {:.0f} MiB in memory{}{}, more than the {:.0f} MiB this process may "
      "use (physical memory, its cgroup's limit, its address-space limit): {}",
      most.path, in_memory(most) / kMiB,
      ranks > 1 ? fmt::format(" (this rank's share of {})", ranks) : "", total, usable / kMiB,
      way));
}

}  // namespace parsgd::cli
