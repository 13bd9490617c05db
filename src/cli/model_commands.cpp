// parsgd predict / eval: apply a saved model to a data set.
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "shared_options.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/train/evaluate.hpp"
#include "parsgd/util/atomic_file.hpp"

namespace parsgd::cli {
namespace {

struct ApplyArgs {
  std::string model, data, output;
  DataFormat format = DataFormat::kAuto;
  int threads = 0;
};

void Declare(OptionParser& p, ApplyArgs& a) {
  p.Positional("MODEL", &a.model, "a model written by parsgd train --save");
  p.Positional("DATA", &a.data, "data set (LIBSVM text, IDX images[,labels], or .bin)");
  FormatOption(p, &a.format);
  ThreadsOption(p, &a.threads);
}

Dataset LoadData(const ApplyArgs& a, Executor& executor) {
  Dataset data;
  executor.Execute([&] { data = LoadDataset(a.data, {a.format, 0}); });
  return data;
}

}  // namespace

int Predict(std::span<const std::string> args) {
  ApplyArgs a;
  OptionParser parser("predict", "Write one predicted label per data row (the training file's "
                                 "labels for binary models, class ids for softmax).");
  Declare(parser, a);
  parser.String("output", &a.output, "PATH", "write the predictions here instead of stdout");
  if (!parser.Parse(args)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  std::optional<AtomicFileWriter> out;
  if (!a.output.empty()) out.emplace(a.output);
  auto executor = MakeTbbExecutor(a.threads);
  const LoadedModel loaded = LoadModel(a.model);
  const LinearModel& model = loaded.model;
  const Dataset data = LoadData(a, *executor);

  constexpr uint64_t kBlock = 4096;
  std::vector<std::string> blocks((data.rows() + kBlock - 1) / kBlock);
  executor->ParallelFor(blocks.size(), [&](uint64_t b) {
    std::vector<float> z(model.outputs());
    std::string& text = blocks[b];
    for (uint64_t i = b * kBlock; i < std::min(data.rows(), (b + 1) * kBlock); ++i) {
      const SparseRow x = data.row(i);
      model.Scores(x.index, x.value, x.nnz, z.data());
      const int c = PredictedClass(model, z.data());
      if (IsBinary(model.kind())) {
        text += fmt::format("{}\n", c == 1 ? model.binary_labels().positive
                                           : model.binary_labels().negative);
      } else {
        text += fmt::format("{}\n", c);
      }
    }
  });
  for (const std::string& text : blocks) {
    if (out) {
      out->Write(text);
    } else {
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  }
  if (out) out->Commit();
  return 0;
}

int Eval(std::span<const std::string> args) {
  ApplyArgs a;
  OptionParser parser("eval", "Report a saved model's mean loss and accuracy on a labelled data set.");
  Declare(parser, a);
  if (!parser.Parse(args)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  auto executor = MakeTbbExecutor(a.threads);
  const LoadedModel loaded = LoadModel(a.model);
  const Dataset data = LoadData(a, *executor);
  const Targets targets = MakeTargets(loaded.model.kind(), data, loaded.model.outputs());
  const Evaluation e = Evaluate(loaded.model, data, targets, *executor);
  std::printf("%s", fmt::format("rows {}  loss {:.6f}  accuracy {:.2f}%\n", e.rows, e.mean_loss,
                                100 * e.accuracy)
                        .c_str());
  return 0;
}

}  // namespace parsgd::cli
