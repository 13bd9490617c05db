// End-to-end tests of what a user's own data meets: zero-based LIBSVM, CSV, labels as LIBLINEAR
// takes them, and predict's probabilities and scores. Real processes, real files.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "parsgd/data/binary_cache.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/class_report.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ReadFile;
using testing::RunCli;
using testing::After;
using testing::Contains;
using testing::Lines;

std::vector<double> Numbers(const std::string& line) {
  std::vector<double> out;
  std::istringstream in(line);
  for (double v; in >> v;) out.push_back(v);
  return out;
}


class CliData : public ::testing::Test {
 protected:
  // Rows of `classes` classes over 4 features, the class the largest of the first `classes`
  // features (so every model can learn it), labelled by `label_of(class)`, as LIBSVM text with
  // indices from `first_index`.
  std::string Separable(int rows, int classes, const std::function<std::string(int)>& label_of,
                        int first_index = 1, uint64_t seed = 3) {
    Rng rng(seed);
    std::string text;
    for (int i = 0; i < rows; ++i) {
      double v[4];
      int best = 0;
      for (int j = 0; j < 4; ++j) {
        v[j] = rng.UniformDouble();
        if (j < classes && v[j] > v[best]) best = j;
      }
      text += label_of(best);
      for (int j = 0; j < 4; ++j) text += fmt::format(" {}:{}", j + first_index, v[j]);
      text += "\n";
    }
    return text;
  }
  testing::TempDir dir_;
};

// scikit-learn's dump_svmlight_file writes indices from 0 by default.
TEST_F(CliData, ZeroBasedLibsvmTrainsWithTheDefaultAndNoIsRefusedWithAdvice) {
  const std::string data =
      dir_.Write("sk.svm", Separable(300, 2, [](int c) { return c ? "1" : "0"; }, 0));
  const auto r = RunCli("train --train " + data + " --epochs 20 --threads 1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "300 rows x 4 features")) << r.output;
  EXPECT_TRUE(Contains(r.output, "zero-based indices")) << r.output;
  EXPECT_GT(After(r.output, "train accuracy "), 90.0) << r.output;
  ASSERT_EQ(RunCli("train --train " + data + " --epochs 1 --zero-based yes --quiet").status, 0);
  const auto no = RunCli("train --train " + data + " --zero-based no");
  EXPECT_EQ(no.status, 1);
  EXPECT_TRUE(Contains(no.output, data + ":1:"));
  EXPECT_TRUE(Contains(no.output, "feature index 0: indices are 1-based under zero-based no: read "
                                  "the file with zero-based yes or auto"))
      << no.output;
  const auto bad = RunCli("train --train " + data + " --zero-based maybe");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Contains(bad.output, "--zero-based: expected one of auto, yes, no")) << bad.output;
}

TEST_F(CliData, EveryCommandThatReadsDataTakesTheReadingFlags) {
  for (const char* command : {"train", "compare", "predict", "eval", "convert"}) {
    const auto r = RunCli(std::string(command) + " --help");
    ASSERT_EQ(r.status, 0) << command;
    for (const char* flag : {"--zero-based", "--label-column", "--header", "--format"}) {
      EXPECT_TRUE(Contains(r.output, flag)) << command << " lacks " << flag;
    }
  }
}

// Feature 0 marks the positive rows and feature 1 the negative ones (zero-based). A test file
// of negative rows only has no index 0: read one-based it would say "feature 0" everywhere and
// be predicted positive.
class IndexBase : public CliData {
 protected:
  void SetUp() override {
    std::string train;
    for (int i = 0; i < 200; ++i) train += i % 2 ? "1 0:1\n" : "-1 1:1\n";
    train_ = dir_.Write("train.svm", train);
    test_ = dir_.Write("test.svm", "-1 1:1\n-1 1:1 2:0\n");
    model_ = dir_.File("m.bin");
  }
  std::string train_, test_, model_;
};

TEST_F(IndexBase, TheTrainingFilesDecisionCarriesToTheTestFileAndTheModel) {
  const auto r = RunCli("train --train " + train_ + " --test " + test_ +
                        " --epochs 5 --threads 1 --save " + model_);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(After(r.output, "test accuracy "), 100.0) << r.output;
  EXPECT_EQ(LoadModel(model_).reading.zero_based, ZeroBased::kYes);
  // predict and eval read the file as the model's training data was read...
  EXPECT_EQ(RunCli("predict " + model_ + " " + test_).output, "-1\n-1\n");
  EXPECT_EQ(After(RunCli("eval " + model_ + " " + test_).output, "accuracy "), 100.0);
  // ...unless told otherwise: auto finds no index 0 in this file and reads it one-based.
  EXPECT_EQ(RunCli("predict " + model_ + " " + test_ + " --zero-based auto").output, "1\n1\n");
  EXPECT_EQ(RunCli("predict " + model_ + " " + test_ + " --zero-based no").output, "1\n1\n");
}

TEST_F(IndexBase, ACacheOfZeroBasedTextCarriesItsDecisionToo) {
  const std::string bin = dir_.File("train.bin");
  ASSERT_EQ(RunCli("convert " + train_ + " " + bin).status, 0);
  const auto r = RunCli("train --train " + bin + " --test " + test_ +
                        " --epochs 5 --threads 1 --save " + model_);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(After(r.output, "test accuracy "), 100.0) << r.output;
  EXPECT_EQ(RunCli("predict " + model_ + " " + test_).output, "-1\n-1\n");
}

TEST_F(IndexBase, AnIndex0AfterOneBasedTrainingDataSaysWhy) {
  const std::string one = dir_.Write("one.svm", "1 1:1\n-1 2:1\n1 1:1\n-1 2:1\n");
  const std::string zero = dir_.Write("zero.svm", "1 0:1\n");
  const auto r = RunCli("train --train " + one + " --test " + zero + " --save " + model_);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, zero + ":1:3: feature index 0: indices are 1-based here, as the "
                                        "training data " + one + " was read"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "read them with zero-based yes")) << r.output;
  ASSERT_EQ(RunCli("train --train " + one + " --epochs 1 --save " + model_).status, 0);
  EXPECT_EQ(LoadModel(model_).reading.zero_based, ZeroBased::kNo);
  const auto p = RunCli("predict " + model_ + " " + zero);
  EXPECT_EQ(p.status, 1);
  EXPECT_TRUE(Contains(p.output, "as the model's training data was read")) << p.output;
}

TEST_F(CliData, CsvWithAHeaderTrainsByLabelNameAndConvertsToTheSameCache) {
  std::string csv = "x1,x2,class,x3\n";
  Rng rng(4);
  for (int i = 0; i < 400; ++i) {
    const double a = rng.UniformDouble(), b = rng.UniformDouble();
    csv += fmt::format("{},{},{},{}\n", a, b, a > b ? 1 : 0, i % 3 == 0 ? 0.0 : 0.5);
  }
  const std::string path = dir_.Write("table.csv", csv);
  const std::string model = dir_.File("m.bin");
  const auto r = RunCli("train --train " + path + " --label-column class --epochs 20 --threads 1 "
                        "--scheme sequential --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "400 rows x 3 features")) << r.output;
  EXPECT_GT(After(r.output, "train accuracy "), 90.0) << r.output;
  // By position, the same model; through the binary cache, the same model too.
  const std::string by_index = dir_.File("i.bin"), via_cache = dir_.File("c.bin");
  ASSERT_EQ(RunCli("train --train " + path + " --label-column 2 --epochs 20 --threads 1 "
                   "--scheme sequential --save " + by_index).status, 0);
  const std::string cache = dir_.File("table.bin");
  const auto convert = RunCli("convert " + path + " " + cache + " --label-column -2");
  ASSERT_EQ(convert.status, 0) << convert.output;
  EXPECT_TRUE(Contains(convert.output, "400 rows x 3 features")) << convert.output;
  ASSERT_EQ(RunCli("train --train " + cache + " --epochs 20 --threads 1 --scheme sequential "
                   "--save " + via_cache).status, 0);
  const LoadedModel ma = LoadModel(model), mi = LoadModel(by_index), mc = LoadModel(via_cache);
  const auto wa = std::get<LinearModel>(ma.model).weights();
  const auto wi = std::get<LinearModel>(mi.model).weights();
  const auto wc = std::get<LinearModel>(mc.model).weights();
  EXPECT_TRUE(std::equal(wa.begin(), wa.end(), wi.begin(), wi.end()));
  EXPECT_TRUE(std::equal(wa.begin(), wa.end(), wc.begin(), wc.end()));
  // Each model records its training file's label column as given, the cache's model the one the
  // cache was converted with, by which eval finds the label in the text.
  EXPECT_EQ(ma.reading.csv_label_column, std::optional<std::string>("class"));
  EXPECT_EQ(mi.reading.csv_label_column, std::optional<std::string>("2"));
  EXPECT_EQ(mc.reading.csv_label_column, std::optional<std::string>("-2"));
  const auto eval = RunCli("eval " + model + " " + path + " --label-column class");
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_EQ(After(eval.output, "accuracy "), After(r.output, "train accuracy "));
  const auto eval_cache = RunCli("eval " + via_cache + " " + path);
  ASSERT_EQ(eval_cache.status, 0) << eval_cache.output;
  EXPECT_EQ(eval_cache.output, eval.output);
}

// predict and eval read a CSV file's label from the column the model's training data had it in,
// an unlabelled file with --label-column none; a file of other width is refused, with the way out.
TEST_F(CliData, CsvPredictTakesTheModelsLabelColumnAndUnlabelledFiles) {
  std::string labelled = "a,b,class,c\n", unlabelled = "a,b,c\n", plain;
  std::vector<int> labels;
  Rng rng(8);
  for (int i = 0; i < 300; ++i) {
    const double a = rng.UniformDouble(), b = rng.UniformDouble(), c = rng.UniformDouble();
    const int label = labels.emplace_back(a > b ? 10 : 20);
    labelled += fmt::format("{},{},{},{}\n", a, b, label, c);
    unlabelled += fmt::format("{},{},{}\n", a, b, c);
    plain += fmt::format("{},{},{},{}\n", a, b, label, c);
  }
  const std::string train = dir_.Write("t.csv", labelled);
  // Trains on t.csv by the column's name, with `flags`, into `model`.
  auto train_into = [&](const std::string& model, const std::string& flags) {
    return RunCli("train --train " + train + " --label-column class --epochs 20 --threads 1 " +
                  "--scheme sequential --quiet " + flags + " --save " + model)
        .status;
  };
  const std::string model = dir_.File("m.bin");
  ASSERT_EQ(train_into(model, ""), 0);
  const auto named = RunCli("predict " + model + " " + train);
  ASSERT_EQ(named.status, 0) << named.output;
  const auto given = RunCli("predict " + model + " " + train + " --label-column 2");
  EXPECT_EQ(named.output, given.output);
  // The labels 10 and 20 of the column 'class', not the first column's values.
  int right = 0;
  const auto lines = Lines(named.output);
  ASSERT_EQ(lines.size(), 300u);
  for (int i = 0; i < 300; ++i) right += std::stoi(lines[i]) == labels[i];
  EXPECT_GT(right, 270) << named.output;
  const auto eval = RunCli("eval " + model + " " + train);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_GT(After(eval.output, "accuracy "), 90.0) << eval.output;
  // The same rows without the label column.
  const std::string bare = dir_.Write("u.csv", unlabelled);
  const auto none = RunCli("predict " + model + " " + bare + " --label-column none");
  ASSERT_EQ(none.status, 0) << none.output;
  EXPECT_EQ(none.output, named.output);
  // Predict needs no label: a header without the label column's name has none.
  const auto narrow = RunCli("predict " + model + " " + bare);
  ASSERT_EQ(narrow.status, 0) << narrow.output;
  EXPECT_EQ(narrow.output, named.output);
  EXPECT_TRUE(Contains(RunCli("eval " + model + " " + bare).output,
                       "label column 'class' is not in the header; its columns are "
                       "'a', 'b', 'c' (the model's training data had its label "
                       "there; if this file has no label column, give "
                       "--label-column none)"));
  // Columns are matched by name: one missing, or the label read as a feature, is named.
  const auto by_position = RunCli("predict " + model + " " + bare + " --label-column -1");
  EXPECT_EQ(by_position.status, 1);
  EXPECT_TRUE(Contains(by_position.output,
                       "no column 'c', a feature column of the model's training data"))
      << by_position.output;
  const auto wide = RunCli("predict " + model + " " + train + " --label-column none");
  EXPECT_EQ(wide.status, 1);
  EXPECT_TRUE(Contains(wide.output, "column 'class' is the label column of the model's training "
                                    "data, here read as a feature"))
      << wide.output;
  // A headerless file: by the recorded name it cannot be found, by position it can.
  const std::string headerless = dir_.Write("h.csv", plain);
  const auto by_name = RunCli("predict " + model + " " + headerless);
  EXPECT_EQ(by_name.status, 1);
  EXPECT_TRUE(Contains(by_name.output, "label column 'class' is a name")) << by_name.output;
  EXPECT_EQ(RunCli("predict " + model + " " + headerless + " --label-column 2").output,
            named.output);
  // A model with more features than the file has columns (--features): its own file still fits.
  const std::string wider = dir_.File("w.bin");
  ASSERT_EQ(train_into(wider, "--features 6"), 0);
  EXPECT_EQ(LoadModel(wider).reading.csv_feature_columns, 3u);
  const auto padded = RunCli("predict " + wider + " " + train);
  EXPECT_EQ(padded.status, 0) << padded.output;
  EXPECT_EQ(Lines(padded.output).size(), 300u);
  EXPECT_EQ(RunCli("predict " + wider + " " + bare + " --label-column none").output, padded.output);
  // The longest label column a model records is refused before training, not after.
  const auto longest = RunCli("train --train " + train + " --label-column " +
                              std::string(5000, 'x') + " --save " + dir_.File("x.bin"));
  EXPECT_EQ(longest.status, 2);
  EXPECT_TRUE(Contains(longest.output, "--label-column: 5000 bytes; at most 4096"))
      << longest.output;
  // Labels are needed to train and to evaluate.
  const auto eval_none = RunCli("eval " + model + " " + bare + " --label-column none");
  EXPECT_EQ(eval_none.status, 2);
  EXPECT_TRUE(Contains(eval_none.output, "eval needs the labels")) << eval_none.output;
  const auto train_none = RunCli("train --train " + bare + " --label-column none");
  EXPECT_EQ(train_none.status, 2);
  EXPECT_TRUE(Contains(train_none.output, "need the labels")) << train_none.output;
}

// A weight column is read (not a feature): weights other than 1 are refused by training rather
// than ignored; weights of 1 train, and predict leaves the column out when told.
// Data of another width: a CSV test file is refused (its columns are the features by position);
// LIBSVM features past the model are read as 0, as LIBLINEAR does, and eval says how many.
TEST_F(CliData, DataWiderThanTheModelIsRefusedOrCounted) {
  const std::string two = dir_.Write("two.csv", "y,a,b\n1,1,0\n0,0,1\n1,1,0\n0,0,1\n");
  const std::string three = dir_.Write("three.csv", "y,a,b,c\n1,1,0,5\n0,0,1,5\n");
  const auto wide = RunCli("train --train " + two + " --test " + three + " --epochs 1");
  EXPECT_EQ(wide.status, 1);
  EXPECT_TRUE(Contains(wide.output, three + ": column 'c' is not a column of the training data " +
                                        two))
      << wide.output;
  // Without headers, by position: the count must agree.
  const std::string bare_two = dir_.Write("two.txt", "1,1,0\n0,0,1\n1,1,0\n0,0,1\n");
  const std::string bare_three = dir_.Write("three.txt", "1,1,0,5\n0,0,1,5\n");
  const auto bare = RunCli("train --train " + bare_two + " --test " + bare_three + " --epochs 1");
  EXPECT_EQ(bare.status, 1);
  EXPECT_TRUE(Contains(bare.output, bare_three + ": 3 feature columns (the label in the first "
                                                 "column), but the training data " +
                                        bare_two + " has 2"))
      << bare.output;
  const std::string narrow = dir_.Write("n.svm", "1 1:1\n-1 2:1\n");
  const std::string more = dir_.Write("m.svm", "1 1:1 7:1 9:2\n-1 2:1\n1 1:1 8:1\n");
  const std::string model = dir_.File("n.bin");
  ASSERT_EQ(RunCli("train --train " + narrow + " --quiet --save " + model).status, 0);
  const auto e = RunCli("eval " + model + " " + more);
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_TRUE(Contains(e.output, "ignored 3 entries of features past the model's 2 (in 2 rows)"))
      << e.output;
  EXPECT_FALSE(Contains(RunCli("eval " + model + " " + narrow).output, "ignored"));
}

TEST_F(CliData, AWeightColumnIsNotAFeatureAndWeightsAreNotIgnored) {
  const std::string ones = dir_.Write("ones.csv", "y,w,a\n1,1,0.5\n0,1,-0.5\n1,1,0.7\n0,1,-0.1\n");
  const std::string model = dir_.File("m.bin");
  const auto r = RunCli("train --train " + ones + " --weight-column w --epochs 2 --quiet --save " +
                        model);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto p = RunCli("predict " + model + " " + ones + " --weight-column w");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(Lines(p.output).size(), 4u);
  // The model records its weight column: predict leaves it out by itself, and reads files
  // without it.
  EXPECT_EQ(RunCli("predict " + model + " " + ones).output, p.output);
  EXPECT_EQ(RunCli("predict " + model + " " + dir_.Write("now.csv", "y,a\n1,0.5\n0,-0.5\n1,0.7\n0,-0.1\n")).output,
            p.output);
  // Weights other than 1 weigh the rows (the metrics gain the weighted accuracy).
  const std::string heavy = dir_.Write("heavy.csv", "y,w,a\n1,3,0.5\n0,1,-0.5\n");
  const std::string metrics = dir_.File("m.jsonl");
  const auto weighed = RunCli("train --train " + heavy + " --weight-column w --epochs 2 --quiet "
                              "--metrics " + metrics);
  EXPECT_EQ(weighed.status, 0) << weighed.output;
  EXPECT_TRUE(Contains(ReadFile(metrics), "\"train_weighted_accuracy\":")) << ReadFile(metrics);
  const std::string weighed_model = dir_.File("w.bin");
  ASSERT_EQ(RunCli("train --train " + heavy + " --weight-column w --epochs 2 --quiet --save " +
                   weighed_model).status, 0);
  const auto eval = RunCli("eval " + weighed_model + " " + heavy);
  EXPECT_EQ(eval.status, 0) << eval.output;
  EXPECT_TRUE(Contains(eval.output, "(weighted)  accuracy ")) << eval.output;
  EXPECT_TRUE(Contains(eval.output, "weighted accuracy ")) << eval.output;
  // The MLP weighs them too.
  const std::string mlp_metrics = dir_.File("mlp.jsonl");
  const auto mlp = RunCli("train --train " + heavy +
                          " --weight-column w --model mlp --hidden 4 "
                          "--epochs 2 --quiet --metrics " +
                          mlp_metrics);
  EXPECT_EQ(mlp.status, 0) << mlp.output;
  EXPECT_TRUE(Contains(ReadFile(mlp_metrics), "\"train_weighted_accuracy\":"))
      << ReadFile(mlp_metrics);
}

// The model records the class weights its run resolved (balanced: from the training rows'
// counts), and eval weighs the rows by them as train's --test does: the same loss to the digits.
TEST_F(CliData, EvalWeighsTheClassesAsTrainsTestDoes) {
  std::string train, test;
  for (int i = 0; i < 60; ++i) {
    const bool rare = i % 5 == 0;
    const std::string row = std::string(rare ? "+1" : "-1") + " 1:" + std::to_string(i % 7) +
                            " 2:" + std::to_string(rare ? 1 : i % 3) + "\n";
    (i < 45 ? train : test) += row;
  }
  const std::string train_path = dir_.Write("imbalanced.svm", train);
  const std::string test_path = dir_.Write("imbalanced.test.svm", test);
  auto after = [](const std::string& text, const std::string& key) {
    const std::size_t at = text.find(key);
    return at == std::string::npos ? std::string("(none)")
                                   : text.substr(at + key.size(), text.find_first_of(" \n", at + key.size()) - at - key.size());
  };
  for (const std::string run : {"--class-weight balanced", "--class-weight 1:3",
                                "--class-weight balanced --model mlp --hidden 3"}) {
    const std::string model = dir_.File("cw.bin");
    const auto t = RunCli("train --train " + train_path + " --test " + test_path + " " + run +
                          " --epochs 3 --save " + model);
    ASSERT_EQ(t.status, 0) << t.output;
    const auto e = RunCli("eval " + model + " " + test_path);
    ASSERT_EQ(e.status, 0) << e.output;
    EXPECT_EQ(after(e.output, "loss "), after(t.output, "test loss ")) << run << "\n"
                                                                        << t.output << e.output;
    EXPECT_TRUE(Contains(e.output, "(weighted)")) << e.output;
  }
  // A model file whose settings say --class-weight but do not record the weights (written by an
  // earlier parsgd) is evaluated unweighted by class, and eval says so.
  const auto t = RunCli("train --train " + train_path + " --epochs 2 --quiet --save " +
                        dir_.File("plain.bin"));
  ASSERT_EQ(t.status, 0) << t.output;
  LoadedModel plain = LoadModel(dir_.File("plain.bin"));
  SaveModel(std::get<LinearModel>(plain.model), dir_.File("old.bin"),
            plain.settings + "class_weight=balanced\n", plain.reading);
  const auto old = RunCli("eval " + dir_.File("old.bin") + " " + test_path);
  ASSERT_EQ(old.status, 0) << old.output;
  EXPECT_TRUE(Contains(old.output, "does not record the weights it resolved")) << old.output;
}

TEST_F(CliData, CsvWithoutAHeaderAndItsErrors) {
  const std::string txt = dir_.Write("plain.txt", "1,0.5,0\n0,0,0.5\n1,0.7,0.1\n0,0.1,0.9\n");
  const auto r = RunCli("train --train " + txt + " --format csv --epochs 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string bad = dir_.Write("bad.csv", "y,a,b\n1,0.5,0\n0,,1\n");
  const auto empty = RunCli("train --train " + bad);
  EXPECT_EQ(empty.status, 1);
  EXPECT_TRUE(Contains(empty.output, bad + ":3:3: field 2 is empty: a missing value (--missing "
                                           "zero, mean, median, most-frequent or indicator fills "
                                           "missing values in)"))
      << empty.output;
  ASSERT_EQ(RunCli("train --train " + bad + " --missing zero --epochs 1 --quiet").status, 0);
  const std::string word = dir_.Write("word.csv", "y,a\n1,0.5\nyes,1\n");
  const auto label = RunCli("convert " + word + " " + dir_.File("w.svm"));
  EXPECT_EQ(label.status, 1);
  // Text labels are class names, which LIBSVM text does not hold; the binary cache does.
  EXPECT_TRUE(Contains(label.output, "are class names (1, yes), which LIBSVM text does not hold"))
      << label.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("w.svm")));
  ASSERT_EQ(RunCli("convert " + word + " " + dir_.File("w.bin")).status, 0);
  EXPECT_EQ(ReadBinaryCache(dir_.File("w.bin")).class_names(),
            (std::vector<std::string>{"1", "yes"}));
  const auto missing = RunCli("train --train " + bad + " --label-column z");
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(Contains(missing.output, "label column 'z' is not in the header")) << missing.output;
}

// LIBLINEAR's sets often label their classes 1/2; predict answers in the same labels.
TEST_F(CliData, LabelsOneAndTwoTrainABinaryModelAndComeBackFromPredict) {
  const std::string data =
      dir_.Write("12.svm", Separable(400, 2, [](int c) { return c ? "2" : "1"; }));
  const std::string model = dir_.File("m.bin");
  for (const char* kind : {"logistic", "hinge", "squared"}) {
    SCOPED_TRACE(kind);
    const auto r = RunCli("train --train " + data + " --model " + kind +
                          " --epochs 30 --threads 1 --save " + model);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_GT(After(r.output, "train accuracy "), 90.0) << r.output;
    const auto p = RunCli("predict " + model + " " + data);
    ASSERT_EQ(p.status, 0) << p.output;
    const auto lines = Lines(p.output);
    ASSERT_EQ(lines.size(), 400u);
    int twos = 0;
    for (const auto& line : lines) {
      EXPECT_TRUE(line == "1" || line == "2") << line;
      twos += line == "2";
    }
    EXPECT_GT(twos, 100);
    EXPECT_LT(twos, 300);
    EXPECT_EQ(After(RunCli("eval " + model + " " + data).output, "accuracy "),
              After(r.output, "train accuracy "));
  }
}

// CSV as people write it: the class in the first column as text. The model keeps the names;
// predict writes them back, --probabilities lists them, eval maps another file's labels by name
// (numbers included) and names a label the model never saw.
TEST_F(CliData, TextClassesRoundTripThroughTrainPredictAndEval) {
  std::string csv = "species,x,y\n";
  std::string numeric = "species,x,y\n";
  Rng rng(7);
  const char* names[] = {"setosa", "versi color", "1"};
  for (int i = 0; i < 300; ++i) {
    const int c = i % 3;
    const double x = c + 0.3 * rng.UniformDouble(), y = (c == 1) + 0.3 * rng.UniformDouble();
    csv += fmt::format("{},{},{}\n", c == 1 ? "\"versi color\"" : names[c], x, y);
    if (c == 2) numeric += fmt::format("1,{},{}\n", x, y);
  }
  const std::string train = dir_.Write("iris.csv", csv);
  const std::string model = dir_.File("m.bin");
  for (const char* kind : {"softmax", "mlp"}) {
    SCOPED_TRACE(kind);
    const auto r = RunCli("train --train " + train + " --model " + kind +
                          " --epochs 30 --threads 1 --save " + model);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_GT(After(r.output, "train accuracy "), 90.0) << r.output;
    const auto p = RunCli("predict " + model + " " + train);
    ASSERT_EQ(p.status, 0) << p.output;
    const auto lines = Lines(p.output);
    ASSERT_EQ(lines.size(), 300u);
    int right = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) right += lines[i] == names[i % 3];
    EXPECT_GT(right, 270) << p.output;
    // "-" is standard output, as everywhere a path is written.
    EXPECT_EQ(RunCli("predict " + model + " " + train + " --output -").output, p.output);
    EXPECT_FALSE(std::filesystem::exists("-"));
    const auto probabilities = RunCli("predict " + model + " " + train + " --probabilities");
    EXPECT_EQ(Lines(probabilities.output).at(0), "labels 1 setosa \"versi color\"");
    const auto report = RunCli("eval " + model + " " + train);
    EXPECT_EQ(After(report.output, "accuracy "), After(r.output, "train accuracy "));
    // Each class's line, then the confusion matrix: a row of counts per true class, each row
    // summing to the class's 100 rows, the diagonal to the correct rows.
    const auto report_lines = Lines(report.output);
    const auto at = std::find(report_lines.begin(), report_lines.end(),
                              "confusion matrix (a row per true class, a column per predicted "
                              "class, as above):");
    ASSERT_NE(at, report_lines.end()) << report.output;
    ASSERT_GE(report_lines.end() - at, 4) << report.output;
    // The classes in byte order (a name with a space one quoted field).
    const char* ordered[] = {"1", "setosa", "\"versi color\""};
    double diagonal = 0;
    for (int t = 0; t < 3; ++t) {
      const std::string& line = *(at + 1 + t);
      ASSERT_EQ(line.rfind(ordered[t], 0), 0u) << line;
      std::istringstream counts(line.substr(std::string(ordered[t]).size()));
      uint64_t sum = 0, count = 0;
      for (int p = 0; p < 3; ++p) {
        counts >> count;
        sum += count;
        if (p == t) diagonal += static_cast<double>(count);
      }
      EXPECT_EQ(sum, 100u) << line;
      EXPECT_TRUE(Contains(report.output, std::string(ordered[t]))) << report.output;
    }
    EXPECT_NEAR(diagonal / 3, After(report.output, "accuracy "), 1e-9) << report.output;
    EXPECT_TRUE(Contains(report.output, "class          precision  recall      f1  support"))
        << report.output;
    // A file whose labels are all "1" reads them as the number 1: the model's class named "1".
    const auto ones = RunCli("eval " + model + " " + dir_.Write("ones.csv", numeric));
    ASSERT_EQ(ones.status, 0) << ones.output;
    EXPECT_GT(After(ones.output, "accuracy "), 90.0) << ones.output;
  }
  const auto unseen = RunCli("eval " + model + " " + dir_.Write("u.csv", "species,x,y\nvirginica,1,1\n"));
  EXPECT_EQ(unseen.status, 1);
  EXPECT_TRUE(Contains(unseen.output, "row 1: label 'virginica': the model was trained on the "
                                      "labels '1', 'setosa', 'versi color' and never saw this one"))
      << unseen.output;
  // A binary model on two names: the later name (in byte order) is the positive class.
  const std::string two = dir_.Write("two.csv", "y,x\nno,0\nyes,1\nno,0.1\nyes,0.9\n");
  ASSERT_EQ(RunCli("train --train " + two + " --epochs 50 --threads 1 --save " + model).status, 0);
  EXPECT_EQ(RunCli("predict " + model + " " + two).output, "no\nyes\nno\nyes\n");
  // A start model of other class names is another problem, refused by --init.
  const std::string other = dir_.Write("other.csv", "y,x\noff,0\non,1\n");
  const auto init = RunCli("train --train " + other + " --init " + model + " --epochs 1");
  EXPECT_EQ(init.status, 1);
  EXPECT_TRUE(Contains(init.output, "labels: start model no, yes, this run off, on")) << init.output;
}

// A .tsv file, or a .txt file of semicolon-separated fields, is found to be CSV and read with its
// delimiter; --delimiter says it outright and is refused where the data is not CSV.
TEST_F(CliData, TabAndSemicolonSeparatedFilesTrainAndPredict) {
  const std::string tsv = dir_.Write("t.tsv", "y\tx\nno\t0\nyes\t1\nno\t0.1\nyes\t0.9\n");
  const std::string semi = dir_.Write("s.txt", "y;x\nno;0\nyes;1\nno;0.1\nyes;0.9\n");
  const std::string model = dir_.File("m.bin");
  for (const std::string& file : {tsv, semi}) {
    SCOPED_TRACE(file);
    ASSERT_EQ(RunCli("train --train " + file + " --epochs 50 --threads 1 --save " + model).status,
              0);
    EXPECT_EQ(RunCli("predict " + model + " " + file).output, "no\nyes\nno\nyes\n");
  }
  const auto told = RunCli("train --train " + semi + " --delimiter ';' --epochs 1 --quiet");
  EXPECT_EQ(told.status, 0) << told.output;
  const auto wrong = RunCli("train --train " + semi + " --delimiter tab --epochs 1");
  EXPECT_EQ(wrong.status, 1) << wrong.output;
  const auto bad = RunCli("train --train " + semi + " --delimiter ab");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Contains(bad.output, "--delimiter: expected auto, comma, tab, semicolon or one "
                                   "character"))
      << bad.output;
  const std::string svm = dir_.Write("d.svm", "1 1:1\n-1 2:1\n");
  const auto ignored = RunCli("train --train " + svm + " --delimiter tab");
  EXPECT_EQ(ignored.status, 2);
  EXPECT_TRUE(Contains(ignored.output, "--delimiter would be ignored: it reads CSV text"))
      << ignored.output;
}

// Gzip-compressed LIBSVM and CSV text, and either on standard input ("-", compressed or not),
// train exactly as the plain file does; a .gz file cut short is an error naming it, with nothing
// written.
TEST_F(CliData, CompressedFilesAndStandardInputTrainAsTheFileDoes) {
  const std::string svm = dir_.Write("d.svm", Separable(300, 2, [](int c) { return c ? "1" : "-1"; }));
  std::string table = "y,a,b,c,d\n";
  for (const std::string& line : Lines(ReadFile(svm))) {
    std::string row = line.substr(0, line.find(' '));
    std::size_t at = line.find(' ');
    while (at != std::string::npos) {
      const std::size_t colon = line.find(':', at);
      const std::size_t next = line.find(' ', colon);
      row += "," + line.substr(colon + 1, next == std::string::npos ? next : next - colon - 1);
      at = next;
    }
    table += row + "\n";
  }
  const std::string csv = dir_.Write("d.csv", table);
  const std::string cli = std::string(PARSGD_CLI_PATH) + " train --epochs 3 --threads 1 --quiet --train ";
  for (const std::string& file : {svm, csv}) {
    SCOPED_TRACE(file);
    ASSERT_EQ(testing::RunShell("gzip -kf " + file).status, 0);
    const auto plain = RunCli("train --epochs 3 --threads 1 --quiet --train " + file);
    ASSERT_EQ(plain.status, 0) << plain.output;
    EXPECT_EQ(RunCli("train --epochs 3 --threads 1 --quiet --train " + file + ".gz").output,
              plain.output);
    EXPECT_EQ(testing::RunShell("cat " + file + " | " + cli + "-").output, plain.output);
    EXPECT_EQ(testing::RunShell("cat " + file + ".gz | " + cli + "-").output, plain.output);
  }
  // The formats read from files only are refused on standard input, by their names.
  const auto idx = testing::RunShell("cat " + svm + " | " + cli + "- --format idx");
  EXPECT_NE(idx.status, 0);
  EXPECT_TRUE(Contains(idx.output, "standard input: the idx format is read from files only (IDX "
                                   "images): give a path"))
      << idx.output;
  // CSV from standard input records its label column as a file would: predict of the file then
  // reads the label where training did.
  const std::string last = dir_.Write("last.csv", "x,y\n0,no\n1,yes\n0.1,no\n0.9,yes\n");
  const std::string model = dir_.File("stdin.bin");
  ASSERT_EQ(testing::RunShell("cat " + last + " | " + std::string(PARSGD_CLI_PATH) +
                              " train --train - --label-column -1 --epochs 50 --threads 1 --quiet "
                              "--save " + model).status, 0);
  EXPECT_EQ(RunCli("predict " + model + " " + last).output, "no\nyes\nno\nyes\n");
  const auto twice = RunCli("train --train - --test -");
  EXPECT_EQ(twice.status, 2);
  EXPECT_TRUE(Contains(twice.output, "standard input can be read once")) << twice.output;
  const std::string gz = ReadFile(svm + ".gz");
  const std::string cut = dir_.Write("cut.svm.gz", gz.substr(0, gz.size() / 2));
  const auto r = RunCli("train --train " + cut + " --save " + dir_.File("m.bin"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(Contains(r.output, cut + ": the gzip stream ends early")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("m.bin")));
}

TEST_F(CliData, SoftmaxOnLabelsOneAndThreeMakesTwoClasses) {
  const std::string data =
      dir_.Write("13.svm", Separable(400, 2, [](int c) { return c ? "3" : "1"; }));
  const std::string model = dir_.File("m.bin");
  const auto r = RunCli("train --train " + data + " --model softmax --epochs 20 --threads 1 " +
                        "--save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "model softmax (2 classes)")) << r.output;
  EXPECT_EQ(std::get<LinearModel>(LoadModel(model).model).labels().values,
            (std::vector<float>{1, 3}));
  const auto p = RunCli("predict " + model + " " + data);
  for (const auto& line : Lines(p.output)) EXPECT_TRUE(line == "1" || line == "3") << line;
  const std::string other = dir_.Write("2.svm", "1 1:1\n2 2:1\n");
  const auto unseen = RunCli("eval " + model + " " + other);
  EXPECT_EQ(unseen.status, 1);
  EXPECT_TRUE(Contains(unseen.output, other + ": row 2: label 2: the model was trained on the "
                                              "labels 1, 3 and never saw this one"))
      << unseen.output;
}

// The probabilities of every row sum to 1, follow from the scores (sigmoid or softmax), and
// their largest is the class predict writes.
void CheckProbabilities(const std::string& probabilities, const std::string& scores,
                        const std::string& labels, const std::vector<std::string>& header,
                        bool binary) {
  const auto p = Lines(probabilities), s = Lines(scores), l = Lines(labels);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0], fmt::format("labels {}", fmt::join(header, " ")));
  ASSERT_EQ(p.size(), l.size() + 1);
  ASSERT_EQ(s.size(), binary ? l.size() : l.size() + 1);
  if (!binary) {
    EXPECT_EQ(s[0], p[0]);
  }
  const std::size_t k = header.size();
  for (std::size_t i = 0; i < l.size(); ++i) {
    const std::vector<double> row = Numbers(p[i + 1]);
    const std::vector<double> z = Numbers(s[binary ? i : i + 1]);
    ASSERT_EQ(row.size(), k + 1) << p[i + 1];
    ASSERT_EQ(z.size(), binary ? 1 : k) << s[i];
    EXPECT_EQ(Numbers(l[i])[0], row[0]);  // the predicted label, as predict writes it
    EXPECT_NEAR(std::accumulate(row.begin() + 1, row.end(), 0.0), 1.0, 1e-6) << p[i + 1];
    std::vector<double> expected(k);
    if (binary) {
      expected[1] = 1 / (1 + std::exp(-z[0]));
      expected[0] = 1 - expected[1];
    } else {
      double sum = 0;
      for (std::size_t c = 0; c < k; ++c) sum += std::exp(z[c]);
      for (std::size_t c = 0; c < k; ++c) expected[c] = std::exp(z[c]) / sum;
    }
    std::size_t best = 0;
    for (std::size_t c = 0; c < k; ++c) {
      EXPECT_NEAR(row[c + 1], expected[c], 1e-6) << p[i + 1] << " from scores " << s[i];
      if (row[c + 1] > row[best + 1]) best = c;
    }
    EXPECT_EQ(header[best], fmt::format("{}", row[0])) << p[i + 1];
  }
}

TEST_F(CliData, ProbabilitiesAndScoresInLiblinearsLayout) {
  const std::string binary =
      dir_.Write("b.svm", Separable(200, 2, [](int c) { return c ? "2" : "1"; }));
  const std::string three =
      dir_.Write("c.svm", Separable(300, 3, [](int c) { return std::to_string(10 + 5 * c); }));
  struct Case {
    std::string data, args;
    std::vector<std::string> header;
    bool binary;
  };
  const std::vector<Case> cases = {
      {binary, "--model logistic", {"1", "2"}, true},
      {three, "--model softmax", {"10", "15", "20"}, false},
      {three, "--model mlp --hidden 8 --scheme sync", {"10", "15", "20"}, false},
  };
  const std::string model = dir_.File("m.bin");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = RunCli("train --train " + c.data + " " + c.args +
                          " --epochs 10 --threads 2 --quiet --save " + model);
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string out = dir_.File("p.txt");
    const auto p = RunCli("predict " + model + " " + c.data + " --probabilities --output " + out);
    ASSERT_EQ(p.status, 0) << p.output;
    const auto s = RunCli("predict " + model + " " + c.data + " --scores");
    const auto l = RunCli("predict " + model + " " + c.data);
    ASSERT_EQ(s.status, 0) << s.output;
    ASSERT_EQ(l.status, 0) << l.output;
    CheckProbabilities(ReadFile(out), s.output, l.output, c.header, c.binary);
  }
}

TEST_F(CliData, ProbabilitiesOfAModelWithoutThemAreAUsageErrorAndWriteNothing) {
  const std::string data =
      dir_.Write("b.svm", Separable(100, 2, [](int c) { return c ? "1" : "-1"; }));
  const std::string model = dir_.File("m.bin");
  for (const char* kind : {"hinge", "squared"}) {
    ASSERT_EQ(RunCli("train --train " + data + " --model " + kind + " --epochs 2 --quiet --save " +
                     model).status, 0);
    const std::string out = dir_.File("p.txt");
    const auto p = RunCli("predict " + model + " " + data + " --probabilities --output " + out);
    EXPECT_EQ(p.status, 2) << p.output;
    EXPECT_TRUE(Contains(p.output, std::string("--probabilities: a ") + kind +
                                       " model gives no probabilities"))
        << p.output;
    EXPECT_FALSE(std::filesystem::exists(out));
    const auto s = RunCli("predict " + model + " " + data + " --scores");
    ASSERT_EQ(s.status, 0) << s.output;
    EXPECT_EQ(Lines(s.output).size(), 100u);
    EXPECT_EQ(Numbers(Lines(s.output)[0]).size(), 1u);
  }
  const auto both = RunCli("predict " + model + " " + data + " --probabilities --scores");
  EXPECT_EQ(both.status, 2);
  EXPECT_TRUE(Contains(both.output, "give one of them")) << both.output;
}

// eval of a binary model: the ROC AUC of its scores (predict --scores), as the library counts it,
// and one line per class.
TEST_F(CliData, EvalOfABinaryModelGivesTheAucOfItsScores) {
  std::string text;
  Rng rng(3);
  std::vector<uint8_t> positive;
  for (int i = 0; i < 400; ++i) {
    const bool yes = rng.Uniform(3) == 0;  // imbalanced, and overlapping
    positive.push_back(yes);
    text += fmt::format("{} 1:{:.3f} 2:{:.3f}\n", yes ? 1 : -1, rng.Normal() + yes,
                        rng.Normal());
  }
  const std::string data = dir_.Write("b.svm", text);
  const std::string model = dir_.File("b.bin");
  ASSERT_EQ(RunCli("train --train " + data + " --epochs 10 --threads 1 --save " + model).status, 0);
  const auto scores = RunCli("predict " + model + " " + data + " --scores");
  ASSERT_EQ(scores.status, 0) << scores.output;
  std::vector<float> z;
  for (const std::string& line : Lines(scores.output)) z.push_back(std::stof(line));
  ASSERT_EQ(z.size(), positive.size());
  const auto e = RunCli("eval " + model + " " + data);
  ASSERT_EQ(e.status, 0) << e.output;
  const double auc = After(e.output, "auc ");
  EXPECT_NEAR(auc, RocAuc(z, positive), 1e-6) << e.output;
  EXPECT_GT(auc, 0.7) << e.output;
  EXPECT_LT(auc, 0.95) << e.output;
  EXPECT_TRUE(Contains(e.output, "\n-1 ")) << e.output;
  EXPECT_TRUE(Contains(e.output, "\n1 ")) << e.output;
  // Rows of one class rank no pair: the AUC is undefined, and said so, not "nan".
  const auto one = RunCli("eval " + model + " " + dir_.Write("one.svm", "1 1:1\n1 2:1\n"));
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_FALSE(Contains(one.output, "nan")) << one.output;
  EXPECT_TRUE(Contains(one.output, "auc - (the rows hold one class")) << one.output;
}

}  // namespace
}  // namespace parsgd
