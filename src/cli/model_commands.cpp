// parsgd predict / eval: apply a saved model to a data set.
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
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
  const Dataset data = LoadData(a, *executor);
  // Binary models answer in the training file's labels, the others with class ids.
  const auto [classes, labels] = std::visit(
      [&](const auto& model) {
        using Model = std::decay_t<decltype(model)>;
        std::optional<BinaryLabels> binary;
        if constexpr (std::is_same_v<Model, LinearModel>) {
          if (IsBinary(model.kind())) binary = model.binary_labels();
        }
        return std::make_pair(PredictClasses(model, data, *executor), binary);
      },
      loaded.model);
  constexpr uint64_t kBlock = 4096;
  std::vector<std::string> blocks((data.rows() + kBlock - 1) / kBlock);
  executor->ParallelFor(blocks.size(), [&](uint64_t b) {
    for (uint64_t i = b * kBlock; i < std::min(data.rows(), (b + 1) * kBlock); ++i) {
      if (labels) {
        blocks[b] += fmt::format("{}\n", classes[i] == 1 ? labels->positive : labels->negative);
      } else {
        blocks[b] += fmt::format("{}\n", classes[i]);
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
  const Evaluation e = std::visit(
      [&](const auto& model) {
        if constexpr (std::is_same_v<std::decay_t<decltype(model)>, LinearModel>) {
          return Evaluate(model, data, MakeTargets(model.kind(), data, model.outputs()), *executor);
        } else {
          return EvaluateMlp(model, data, MakeTargets(ModelKind::kMlp, data, model.classes()),
                             *executor);
        }
      },
      loaded.model);
  std::printf("%s", fmt::format("rows {}  loss {:.6f}  accuracy {:.2f}%\n", e.rows, e.mean_loss,
                                100 * e.accuracy)
                        .c_str());
  return 0;
}

}  // namespace parsgd::cli
