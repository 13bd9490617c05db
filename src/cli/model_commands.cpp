// parsgd predict / eval: apply a saved model to a data set.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <type_traits>
#include <variant>
#include <vector>

#include "commands.hpp"
#include "distinct_paths.hpp"
#include "options.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/class_weights.hpp"
#include "parsgd/model/class_report.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/control_bytes.hpp"
#include "parsgd/util/split.hpp"
#include "shared_options.hpp"
#include "train_options.hpp"

namespace parsgd::cli {
namespace {

// --zero-based here defaults to what the model file recorded.
enum class ZeroBasedChoice { kModel, kAuto, kYes, kNo };

constexpr Named<ZeroBasedChoice> kZeroBasedChoices[] = {
    {ZeroBasedChoice::kModel, "model", "as the model's training data was read (else auto)"},
    {ZeroBasedChoice::kAuto, "auto", "zero-based if an index 0 appears in the file"},
    {ZeroBasedChoice::kYes, "yes", "indices start at 0 (scikit-learn's dump_svmlight_file)"},
    {ZeroBasedChoice::kNo, "no", "indices start at 1 (LIBSVM's convention)"},
};

struct ApplyArgs {
  std::string model, data, output;
  DataFormat format = DataFormat::kAuto;
  ZeroBasedChoice zero_based = ZeroBasedChoice::kModel;
  CsvHeader header = CsvHeader::kAuto;
  char delimiter = 0;
  std::string label_column;
  CsvMissing missing = CsvMissing::kError;
  std::string weight_column;
  std::string ignore_columns;  // beside the model's record's
  // Else the model's record (DataReading's csv_label_column, csv_weight_column, csv_missing).
  bool label_column_given = false, weight_column_given = false, missing_given = false;
  std::set<std::string, std::less<>> read_options_given;  // the kReadOptions given
  int threads = 0;
};

void Declare(OptionParser& p, ApplyArgs& a) {
  p.Positional("MODEL", &a.model, "a model written by parsgd train --save");
  p.Positional("DATA", &a.data, "data set (LIBSVM or CSV text, IDX images[,labels], or .bin)");
  FormatOption(p, &a.format);
  p.Choice<ZeroBasedChoice>("zero-based", &a.zero_based, kZeroBasedChoices,
                            "libsvm: whether feature indices start at 0");
  CsvReadOptions(p, &a.header, &a.delimiter, &a.label_column, &a.missing, &a.weight_column,
                 &a.ignore_columns,
                 "csv: the label column, by header name or 0-based position (-1: the last), or "
                 "none (every column a feature; predict only) [default: the model's training "
                 "data's, else the first]",
                 /*model_defaults=*/true);
  ThreadsOption(p, &a.threads);
}

// Parses the command line into `a`; false for --help.
bool ParseApply(OptionParser& p, std::span<const std::string> args, ApplyArgs& a) {
  if (!p.Parse(args)) return false;
  a.label_column_given = p.Given("label-column");
  a.weight_column_given = p.Given("weight-column");
  a.missing_given = p.Given("missing");
  for (const ReadOption& option : kReadOptions) {
    if (p.Given(option.key)) a.read_options_given.emplace(option.key);
  }
  return true;
}

constexpr const char* kModelsData = "the model's training data";

LoadOptions DataOptions(const ApplyArgs& a, const LoadedModel& loaded) {
  LoadOptions options;
  options.format = a.format;
  if (const std::string refusal = GivenFormatRefusal(loaded.reading, a.format, kModelsData);
      !refusal.empty()) {
    throw UsageError(refusal);
  }
  ReadAlike(loaded.reading, a.data, kModelsData, options);
  options.header = a.header;
  options.missing = a.missing_given ? a.missing : loaded.reading.csv_missing;
  options.weight_column = a.weight_column_given ? a.weight_column : loaded.reading.csv_weight_column;
  options.weight_column_optional = !a.weight_column_given;
  if (!a.ignore_columns.empty()) options.ignore_columns = SplitAtCommas(a.ignore_columns);
  options.label_by_schema = !a.label_column_given;
  options.csv_schema_source = kModelsData;
  options.delimiter = a.delimiter;
  options.label_column =
      a.label_column_given ? a.label_column : loaded.reading.csv_label_column.value_or("");
  if (!a.label_column_given && loaded.reading.csv_label_column) {
    options.label_column_note =
        "the model's training data had its label there; if this file has no label column, give "
        "--label-column none";
  }
  switch (a.zero_based) {
    case ZeroBasedChoice::kModel:
      options.zero_based = loaded.reading.zero_based;
      if (loaded.reading.zero_based == ZeroBased::kNo) {
        options.zero_based_note =
            "indices are 1-based here, as the model's training data was read (it had no index "
            "0): if that data was zero-based too, train again with zero-based yes; zero-based "
            "yes reads this file zero-based regardless";
      }
      break;
    case ZeroBasedChoice::kAuto:
      options.zero_based = ZeroBased::kAuto;
      break;
    case ZeroBasedChoice::kYes:
      options.zero_based = ZeroBased::kYes;
      break;
    case ZeroBasedChoice::kNo:
      options.zero_based = ZeroBased::kNo;
      break;
  }
  return options;
}

bool IsCsv(const ApplyArgs& a, const Dataset& data) {
  return FormatRead(a.data, a.format, data) == DataFormat::kCsv;
}

uint64_t ModelFeatures(const Model& model) {
  return std::visit(
      [](const auto& m) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(m)>, LinearModel>) {
          return m.features();
        } else {
          return static_cast<uint64_t>(m.sizes().front());
        }
      },
      model);
}

// A CSV file's columns are the model's features by position: a file with another number of
// feature columns is another table (or its label column is not the one assumed), never a file
// that merely lacks some features.
void CheckCsvColumns(const ApplyArgs& a, const LoadOptions& options, const LoadedModel& loaded,
                     const Dataset& data) {
  // A model that records the table's columns read the file by them (and checked it).
  if (loaded.reading.csv_schema || !IsCsv(a, data)) return;
  // The training file's columns where it was CSV text (the model may have more features, given
  // by --features), else the model's features.
  const uint64_t features = loaded.reading.csv_label_column ? loaded.reading.csv_feature_columns
                                                            : ModelFeatures(loaded.model);
  if (data.features() == features) return;
  const bool unlabelled = options.label_column == kNoLabelColumn;
  const std::string label = unlabelled ? "no label column"
                            : options.label_column.empty()
                                ? std::string("the label in the first column")
                                : fmt::format("the label in column '{}'", options.label_column);
  std::string hint;
  if (!unlabelled && data.features() + 1 == features) {
    hint = ": if the file has no label column, give --label-column none";
  } else if (unlabelled && data.features() == features + 1) {
    hint = ": it seems to have a label column; name it with --label-column";
  }
  throw DataError(a.data, 0, 0,
                  fmt::format("{} feature columns ({}), but the model was trained on {}{}",
                              data.features(), label, features, hint));
}

Dataset LoadData(const ApplyArgs& a, const LoadedModel& loaded, Executor& executor,
                 bool labels_needed) {
  LoadOptions options = DataOptions(a, loaded);
  RefuseIgnoredDataOptions(
      [&](std::string_view key) { return a.read_options_given.contains(key); }, a.data,
      options.format != DataFormat::kAuto ? options.format : DetectDataFormat(a.data));
  options.labels_optional = !labels_needed;  // predict: images alone
  if (labels_needed && options.label_column == kNoLabelColumn) {
    throw UsageError("--label-column none: eval needs the labels; name their column");
  }
  Dataset data;
  executor.Execute([&] { data = LoadDataset(a.data, options); });
  CheckReadAlike(loaded.reading, data, kModelsData);
  CheckCsvColumns(a, options, loaded, data);
  return data;
}

enum class Output { kLabels, kProbabilities, kScores };

// What predict needs of either model: its kind, labels and scores.
struct Predictor {
  ModelKind kind;
  const ClassLabels* labels;
  int outputs;  // scores per row
  bool regression;  // its score is the prediction (LinearModel::regression)
  std::function<std::vector<float>(uint64_t, uint64_t)> scores;
};

Predictor MakePredictor(const LoadedModel& loaded, const Dataset& data, Executor& executor) {
  return std::visit(
      [&](const auto& model) -> Predictor {
        if constexpr (std::is_same_v<std::decay_t<decltype(model)>, LinearModel>) {
          return {
              model.kind(), &model.labels(), model.outputs(), model.regression(),
              [&](uint64_t b, uint64_t e) { return PredictScores(model, data, b, e, executor); }};
        } else {
          return {
              ModelKind::kMlp, &model.labels(), model.classes(), false,
              [&](uint64_t b, uint64_t e) { return PredictScores(model, data, b, e, executor); }};
        }
      },
      loaded.model);
}

// A class name as a field of a line of space-separated fields: as it is, or where it is empty or
// holds a space, a quote or a control byte, in double quotes (a quote inside doubled, a control
// byte as \xNN), so that "new york" is one field and no raw control byte reaches a terminal.
std::string Field(const std::string& name) {
  const bool plain = !name.empty() && std::none_of(name.begin(), name.end(), [](char c) {
    return c == ' ' || c == '"' || IsControlByte(c);
  });
  if (plain) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') {
      out += "\"\"";
    } else {
      AppendVisible(out, c);
    }
  }
  return out + "\"";
}

int ClassOf(const Predictor& p, const float* z) {
  if (p.outputs == 1) return z[0] >= 0 ? 1 : 0;  // ties go to the positive class
  return static_cast<int>(std::max_element(z, z + p.outputs) - z);
}

// One row of output into `text`.
void FormatRow(const Predictor& p, Output output, const float* z, std::vector<float>& scratch,
               std::string& text) {
  const ClassLabels& labels = *p.labels;
  switch (output) {
    case Output::kLabels:  // a regression's: the value it predicts
      text += p.regression ? ShortestText(z[0]) : labels.Text(ClassOf(p, z));
      text += '\n';
      break;
    case Output::kScores:
      fmt::format_to(std::back_inserter(text), "{}\n", fmt::join(z, z + p.outputs, " "));
      break;
    case Output::kProbabilities:
      scratch.resize(labels.values.size());
      Probabilities(p.kind, z, labels.classes(), scratch.data());
      fmt::format_to(std::back_inserter(text), "{} {}\n", Field(labels.Text(ClassOf(p, z))),
                     fmt::join(scratch, " "));
      break;
  }
}

// Writes every row's output: rows in windows (bounded memory), each scored and formatted in
// parallel blocks, written in order.
void WritePredictions(const Predictor& p, Output output, uint64_t rows, Executor& executor,
                      const std::function<void(const std::string&)>& write) {
  if (output == Output::kProbabilities || (output == Output::kScores && p.outputs > 1)) {
    std::string line = "labels";
    for (int k = 0; k < p.labels->classes(); ++k) line += " " + Field(p.labels->Text(k));
    write(line + "\n");
  }
  constexpr uint64_t kWindow = uint64_t{1} << 16, kBlock = 4096;
  for (uint64_t begin = 0; begin < rows; begin += kWindow) {
    const uint64_t end = std::min(rows, begin + kWindow);
    const std::vector<float> z = p.scores(begin, end);
    std::vector<std::string> blocks((end - begin + kBlock - 1) / kBlock);
    executor.ParallelFor(blocks.size(), [&](uint64_t b) {
      std::vector<float> scratch;
      for (uint64_t i = b * kBlock; i < std::min(end - begin, (b + 1) * kBlock); ++i) {
        FormatRow(p, output, z.data() + i * p.outputs, scratch, blocks[b]);
      }
    });
    for (const std::string& text : blocks) write(text);
  }
}

}  // namespace

int Predict(std::span<const std::string> args) {
  ApplyArgs a;
  bool probabilities = false, scores = false;
  OptionParser parser("predict",
                      "Write one predicted label per data row, in the training data's own labels "
                      "(a regression's: the predicted value).");
  Declare(parser, a);
  parser.String("output", &a.output, "PATH", "write the predictions here instead of stdout");
  parser.Switch("probabilities", &probabilities,
                "logistic, softmax, mlp: a line 'labels L1 L2 ...', then per row the predicted "
                "label and each class's probability in that order (LIBLINEAR's -b 1)");
  parser.Switch("scores", &scores,
                "the decision values instead: one per row for the binary models, one per class "
                "after a line 'labels L1 L2 ...' for softmax and mlp");
  if (!ParseApply(parser, args, a)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  if (probabilities && scores) throw UsageError("--probabilities and --scores: give one of them");
  RefuseOverwrites({{"MODEL", a.model}, {"DATA", a.data}}, {{"--output", a.output}});
  std::optional<AtomicFileWriter> out;
  if (!a.output.empty()) out.emplace(a.output);
  auto executor = MakeTbbExecutor(a.threads);
  const LoadedModel loaded = LoadModel(a.model);
  const Dataset data = LoadData(a, loaded, *executor, false);
  const Predictor predictor = MakePredictor(loaded, data, *executor);
  if (probabilities && !HasProbabilities(predictor.kind)) {
    throw UsageError(fmt::format(
        "--probabilities: a {} model gives no probabilities (logistic, softmax and mlp do); "
        "--scores writes its decision values",
        NameOf<ModelKind>(kModelKinds, predictor.kind)));
  }
  const Output output = probabilities ? Output::kProbabilities
                        : scores      ? Output::kScores
                                      : Output::kLabels;
  WritePredictions(predictor, output, data.rows(), *executor, [&](const std::string& text) {
    if (out) {
      out->Write(text);
    } else {
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  });
  if (out) out->Commit();
  if (data.unseen_values() > 0) {
    std::fprintf(stderr, "%s",
                 fmt::format("parsgd predict: left out {} values of categorical columns that the "
                             "training data never had (as no feature)\n",
                             data.unseen_values())
                     .c_str());
  }
  return 0;
}

// The most classes whose confusion matrix eval prints (a row of counts per class).
constexpr int kMaxConfusionClasses = 20;

// A classifier's report beyond loss and accuracy (model/class_report.hpp): for a binary model the
// ROC AUC of its scores, then each class's precision, recall, F1 and rows, and the confusion
// matrix of up to kMaxConfusionClasses classes. Scores in blocks, so memory stays a block's.
void PrintClassReport(const Predictor& predictor, const Targets& targets, uint64_t rows) {
  constexpr uint64_t kBlock = 65536;
  const bool binary = predictor.outputs == 1;
  const int classes = binary ? 2 : predictor.outputs;
  std::vector<int> truth(rows), predicted(rows);
  std::vector<float> decision;  // binary: each row's score
  std::vector<uint8_t> positive;
  for (uint64_t b = 0; b < rows; b += kBlock) {
    const uint64_t e = std::min(rows, b + kBlock);
    const std::vector<float> z = predictor.scores(b, e);
    for (uint64_t i = b; i < e; ++i) {
      const float* zi = z.data() + (i - b) * predictor.outputs;
      const float target = targets.values[i];
      truth[i] = binary ? (target > 0 ? 1 : 0) : static_cast<int>(target);
      predicted[i] = ClassOf(predictor, zi);
      if (binary) {
        decision.push_back(zi[0]);
        positive.push_back(static_cast<uint8_t>(truth[i]));
      }
    }
  }
  std::string text;
  if (binary) {
    // Undefined where the rows hold one class (no pair of a positive and a negative row): said.
    const double auc = RocAuc(decision, positive);
    fmt::format_to(std::back_inserter(text), "{}\n",
                   std::isnan(auc) ? std::string("auc - (the rows hold one class: no pair to rank)")
                                   : fmt::format("auc {:.6f}", auc));
  }
  const ClassReport report = CountClasses(truth, predicted, classes);
  std::size_t width = 5;
  for (int c = 0; c < classes; ++c) width = std::max(width, Field(predictor.labels->Text(c)).size());
  auto share = [](double v) { return std::isnan(v) ? std::string("-") : fmt::format("{:.4f}", v); };
  fmt::format_to(std::back_inserter(text), "{:<{}}  precision  recall      f1  support\n", "class",
                 width);
  for (int c = 0; c < classes; ++c) {
    fmt::format_to(std::back_inserter(text), "{:<{}}  {:>9}  {:>6}  {:>6}  {:>7}\n",
                   Field(predictor.labels->Text(c)), width, share(report.Precision(c)),
                   share(report.Recall(c)), share(report.F1(c)), report.Support(c));
  }
  if (classes <= kMaxConfusionClasses) {
    text += "confusion matrix (a row per true class, a column per predicted class, as above):\n";
    for (int t = 0; t < classes; ++t) {
      fmt::format_to(std::back_inserter(text), "{:<{}}", Field(predictor.labels->Text(t)), width);
      for (int p = 0; p < classes; ++p) {
        fmt::format_to(std::back_inserter(text), " {:>7}", report.Count(t, p));
      }
      text += '\n';
    }
  }
  std::printf("%s", text.c_str());
}

int Eval(std::span<const std::string> args) {
  ApplyArgs a;
  OptionParser parser(
      "eval",
      "Report a saved model's mean loss and accuracy on a labelled data set, and, for a "
      "classifier, each class's precision, recall and F1, the confusion matrix (up "
      "to 20 classes) and a binary model's ROC AUC; for a regression, the RMSE, MAE "
      "and R^2.");
  Declare(parser, a);
  if (!ParseApply(parser, args, a)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  auto executor = MakeTbbExecutor(a.threads);
  const LoadedModel loaded = LoadModel(a.model);
  const LinearModel* linear = std::get_if<LinearModel>(&loaded.model);
  const bool regression = linear != nullptr && linear->regression();
  const Dataset read = LoadData(a, loaded, *executor, true);
  const Dataset data = regression ? AsRealValues(read) : read;  // a regression's labels are values
  // Rows with weights (a weight column, VW importances) and the model's class weights weigh the
  // loss, scaled to a mean of 1, as train's --test weighs them: the loss is the weighted mean, and
  // a weighted accuracy comes beside the accuracy.
  const std::optional<std::vector<double>> class_weights = RecordedClassWeights(loaded.settings);
  if (!class_weights && loaded.settings.find("\nclass_weight=") != std::string::npos) {
    std::printf("%s", fmt::format("{} was trained with --class-weight but does not record the "
                                  "weights it resolved (a model file from an earlier parsgd): "
                                  "the loss is not weighted by class\n",
                                  a.model)
                          .c_str());
  }
  bool weighted = false;
  auto targets_of = [&](ModelKind kind, const ClassLabels& labels) {
    Targets t = MakeTargets(kind, data, labels);
    if (class_weights) {
      if (class_weights->size() != static_cast<std::size_t>(labels.classes())) {
        throw DataError(a.model, 0, 0,
                        fmt::format("damaged: {} class weights recorded for a model of {} classes",
                                    class_weights->size(), labels.classes()));
      }
      WeighClasses(t, *class_weights);
    }
    SoloCommunicator solo;
    weighted = ScaleWeightsToMeanOne(t, data.source(), solo);
    return t;
  };
  const Evaluation e = std::visit(
      [&](const auto& model) {
        if constexpr (std::is_same_v<std::decay_t<decltype(model)>, LinearModel>) {
          return Evaluate(model, data, targets_of(model.kind(), model.labels()), *executor);
        } else {
          return EvaluateMlp(model, data, targets_of(ModelKind::kMlp, model.labels()), *executor);
        }
      },
      loaded.model);
  if (regression) {
    std::printf("%s",
                fmt::format("rows {}  loss {:.6f}{}  RMSE {:.6g}  MAE {:.6g}  R^2 {:.6f}\n", e.rows,
                            e.mean_loss, weighted ? " (weighted)" : "", e.rmse(), e.mae(), e.r2())
                    .c_str());
  } else {
    std::printf("%s", fmt::format("rows {}  loss {:.6f}{}  accuracy {:.2f}%{}\n", e.rows,
                                  e.mean_loss, weighted ? " (weighted)" : "", 100 * e.accuracy,
                                  weighted ? fmt::format("  weighted accuracy {:.2f}%",
                                                         100 * e.weighted_accuracy)
                                           : "")
                          .c_str());
  }
  if (!regression) {  // a classifier's report
    const Predictor predictor = MakePredictor(loaded, data, *executor);
    PrintClassReport(predictor, MakeTargets(predictor.kind, data, *predictor.labels), data.rows());
  }
  // LIBSVM's rule, as LIBLINEAR's predict: features the model never saw count 0. Said, not silent.
  const uint64_t features = ModelFeatures(loaded.model);
  uint64_t entries = 0, rows = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow row = data.row(i);
    const auto past = static_cast<uint64_t>(
        row.index + row.nnz - std::lower_bound(row.index, row.index + row.nnz, features));
    entries += past;
    rows += past > 0;
  }
  if (entries > 0) {
    std::printf("%s", fmt::format("ignored {} entries of features past the model's {} (in {} "
                                  "rows), as a model reads features it never saw: as 0\n",
                                  entries, features, rows)
                          .c_str());
  }
  if (data.unseen_values() > 0) {
    std::printf("%s", fmt::format("left out {} values of categorical columns that the training "
                                  "data never had, as a model reads a value it never saw: as no "
                                  "feature\n",
                                  data.unseen_values())
                          .c_str());
  }
  return 0;
}

}  // namespace parsgd::cli
