#include "train_options.hpp"

#include <fmt/format.h>

#include "parsgd/model/mlp_model.hpp"
#include "shared_options.hpp"

namespace parsgd::cli {

void DeclareDataOptions(OptionParser& p, RunArgs& a, bool train_required) {
  p.String("train", &a.train, "PATH", "training data (LIBSVM text, IDX images[,labels], or .bin)",
           train_required);
  p.String("test", &a.test, "PATH", "test data, evaluated after every epoch");
  FormatOption(p, &a.format);
  p.UInt64("features", &a.features,
           "number of features; a LIBSVM index above it is an error (0: the largest index seen)");
  ZeroBasedOption(p, &a.zero_based,
                  "libsvm: whether feature indices start at 0 (auto: when an index 0 appears in "
                  "the training data; test data follows the training data's decision)");
  CsvReadOptions(p, &a.header, &a.label_column);
}

void DeclareTrainingOptions(OptionParser& p, RunArgs& a) {
  TrainConfig& c = a.config;
  p.Choice<ModelKind>("model", &c.model, kModelKinds, "model and loss");
  p.String("hidden", &a.hidden, "SIZES", "mlp: hidden layer sizes");
  p.Choice<MlpBackend>("mlp-backend", &c.mlp_backend, kMlpBackends, "mlp: dense compute");
  p.Choice<SchemeKind>("scheme", &c.scheme, kSchemeKinds, "how workers meet the shared model");
  p.Choice<Backend>("backend", &c.backend, kBackends,
                    "where the workers run (offload: linear models; sequential, hogwild, atomic, "
                    "sync)");
  p.Switch("require-gpu", &c.require_gpu,
           "offload: fail unless the target regions really run on a GPU (not the host fallback)");
  p.Choice<OrderKind>("order", &c.order, kOrderKinds, "sample order");
  ThreadsOption(p, &c.threads,
                "worker threads (offload: device workers; auto: 65,536 on a GPU for hogwild and "
                "atomic, 1 for sync)");
  p.Int("epochs", &c.epochs,
        "passes over the training data (auto: enough for about 10^6 updates, 10 to 1000)", 1,
        1000000, 0);
  p.Double("learning-rate", &c.learning_rate,
           "initial step size eta0 (auto: 0.5 / (curvature * mean squared row norm))", 0, 1e9, 0.0,
           true);
  p.Choice<ScheduleKind>("schedule", &c.schedule, kScheduleKinds, "step-size schedule");
  p.Double("decay", &c.decay,
           "invtime: rate per epoch; geometric: factor per epoch (auto: 1 for invtime, 0.9 for "
           "geometric)",
           0, 1e9, 0.0, true);
  p.Double("l2", &c.l2, "L2 regularisation strength (auto: 1/rows, LIBLINEAR's C = 1)", 0, 1e9,
           -1.0);
  p.Choice<Normalization>("normalize", &c.normalize, kNormalizations, "per-feature step scaling");
  OptimizerConfig& o = c.optimizer;
  p.Choice<OptimizerKind>("optimizer", &o.kind, kOptimizerKinds, "per-coordinate update rule");
  p.Double("momentum", &o.momentum, "momentum and nesterov: momentum mu", 0, 0.999999);
  p.Double("rho", &o.rho, "rmsprop: decay of the squared-gradient average", 0, 0.999999);
  p.Double("beta1", &o.beta1, "adam: decay of the first moment", 0, 0.999999);
  p.Double("beta2", &o.beta2, "adam: decay of the second moment", 0, 0.999999);
  p.Double("epsilon", &o.epsilon, "adagrad, rmsprop, adam: added to the denominator", 0, 1, {},
           true);
  p.Int("batch", &c.batch,
        "samples per update: the global minibatch for sync, each worker's for average, sequential "
        "minibatch SGD for sequential (auto: 256 for sync, 32 for average, else 1)",
        1, 1 << 30, 0);
  p.IntOrWords("period", &c.period,
               "average, gossip: each worker's minibatches between two combining steps (auto: 10; "
               "with per-sample steps, --batch 1, a tenth of each worker's shard)",
               1, 1 << 30, {{"auto", -1}, {"epoch", 0}});
  p.Switch("average-state", &c.average_state,
           "average: average the optimiser state too; gossip: mix it with the weights");
  p.Choice<OuterKind>("outer-optimizer", &c.outer.kind, kOuterKinds,
                      "average: the rule applied at each average to d = model before the period - "
                      "replicas' mean");
  p.Double("outer-learning-rate", &c.outer.learning_rate, "average: the outer rule's rate lr", 0,
           1e9);
  p.Double("outer-momentum", &c.outer.momentum, "average: the outer momentum mu", 0, 0.999999);
  p.Switch("deterministic", &c.deterministic,
           "require bit-identical results run to run (sequential, sync, average, gossip only); the "
           "metrics then leave out wall-clock times");
}

void ParseHidden(RunArgs& a) {
  try {
    a.config.hidden = ParseHiddenSizes(a.hidden);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

ZeroBased RunZeroBased(const RunArgs& a, const Dataset& train) {
  return train.zero_based() != ZeroBased::kAuto ? train.zero_based() : a.zero_based;
}

Dataset LoadRunData(const std::string& path, const RunArgs& a, Executor& executor,
                    const Dataset* train) {
  LoadOptions options;
  options.format = a.format;
  options.max_features = a.features;
  options.zero_based = a.zero_based;
  options.header = a.header;
  options.label_column = a.label_column;
  if (train != nullptr) {
    options.zero_based = RunZeroBased(a, *train);
    if (a.zero_based == ZeroBased::kAuto && options.zero_based == ZeroBased::kNo) {
      options.zero_based_note = fmt::format(
          "indices are 1-based here, as the training data {} was read (it has no index 0): if "
          "both files' indices start at 0, read them with zero-based yes",
          train->source());
    }
  }
  Dataset data;
  executor.Execute([&] { data = ResidentCopy(LoadDataset(path, options)); });
  return data;
}

std::unique_ptr<Executor> MakeRunExecutor(const TrainConfig& config) {
  return MakeTbbExecutor(config.backend == Backend::kOffload ? 0 : config.threads);
}

}  // namespace parsgd::cli
