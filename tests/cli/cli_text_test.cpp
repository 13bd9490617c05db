// End-to-end tests of raw text in fastText's format: train, save, predict and eval through the real
// program, the hashing recorded in the model, and the refusals at the door.
#include <gtest/gtest.h>

#include <string>

#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::After;
using testing::Contains;
using testing::Lines;
using testing::RunCli;
using testing::RunShell;


class CliText : public ::testing::Test {
 protected:
  // Three topics, each with its own words, the rest shared noise (a line of noise alone, 1 in 64,
  // has no class to find); `labelled`: with __label__.
  std::string Text(int rows, uint64_t seed, bool labelled) {
    const char* topics[3][4] = {{"goal", "match", "team", "score"},
                                {"paint", "canvas", "brush", "colour"},
                                {"engine", "wheel", "fuel", "brake"}};
    const char* noise[4] = {"the", "a", "of", "and"};
    Rng rng(seed);
    std::string text;
    for (int i = 0; i < rows; ++i) {
      const int t = static_cast<int>(rng.Uniform(3));
      if (labelled) text += std::string("__label__") + (t == 0 ? "sport" : t == 1 ? "art" : "car");
      for (int w = 0; w < 6; ++w) {
        text += " ";
        text += rng.Uniform(2) ? topics[t][rng.Uniform(4)] : noise[rng.Uniform(4)];
      }
      text += "\n";
    }
    return text;
  }
  testing::TempDir dir_;
};

TEST_F(CliText, TrainsFromRawTextAndPredictsLabelNamesWithTheSameHashing) {
  const std::string train = dir_.Write("train.txt", Text(600, 1, true));
  const std::string test = dir_.Write("test.txt", Text(200, 2, true));
  const std::string model = dir_.File("m.bin");
  const auto r = RunCli("train --train " + train + " --test " + test +
                        " --model softmax --hash-bits 12 --ngrams 1 --epochs 5 --threads 1 --save " +
                        model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "600 rows x 4096 features")) << r.output;
  EXPECT_GT(After(r.output, "test accuracy "), 95.0) << r.output;
  // Lines without labels, from standard input: hashed as the model's training text was.
  const auto p = RunShell("printf 'the brush and canvas\\nfuel of the engine\\ngoal\\n' | " +
                          std::string(PARSGD_CLI_PATH) + " predict " + model + " -");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(Lines(p.output),
            (std::vector<std::string>{"__label__art", "__label__car", "__label__sport"}));
  const auto probabilities = RunCli("predict " + model + " " + test + " --probabilities");
  ASSERT_EQ(probabilities.status, 0) << probabilities.output;
  EXPECT_EQ(Lines(probabilities.output).at(0), "labels __label__art __label__car __label__sport");
  const auto e = RunCli("eval " + model + " " + test);
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_EQ(After(e.output, "accuracy "), After(r.output, "test accuracy ")) << e.output;
  // Another hashing would give other columns: the model's own is used, and others are refused.
  EXPECT_EQ(RunCli("predict " + model + " " + test + " --format libsvm").status, 2);
}

TEST_F(CliText, CompressedTextTrainsAsThePlainText) {
  const std::string train = dir_.Write("train.txt", Text(300, 3, true));
  ASSERT_EQ(RunShell("gzip -k " + train).status, 0);
  const std::string args = " --model softmax --hash-bits 10 --epochs 2 --threads 1 --seed 4";
  const auto plain = RunCli("train --train " + train + args);
  const auto gz = RunCli("train --train " + train + ".gz" + args);
  ASSERT_EQ(plain.status, 0) << plain.output;
  ASSERT_EQ(gz.status, 0) << gz.output;
  EXPECT_EQ(plain.output.substr(plain.output.rfind("train accuracy")),
            gz.output.substr(gz.output.rfind("train accuracy")));
}

// Vowpal Wabbit's format: a user namespace and an item namespace whose pair decides the label
// (the user likes items of one kind), learnt only through --interactions ui.
TEST_F(CliText, VwTextTrainsWithInteractionsAndPredictsWithTheModelsHashing) {
  std::string train, test;
  for (int i = 0; i < 800; ++i) {
    const int user = i % 4, item = (i / 4) % 4;
    const std::string line = std::string((user + item) % 2 ? "1" : "-1") + " |u id" +
                             std::to_string(user) + " |i id" + std::to_string(item) + "\n";
    (i < 600 ? train : test) += line;
  }
  const std::string train_path = dir_.Write("train.vw", train);
  const std::string test_path = dir_.Write("test.vw", test);
  const std::string model = dir_.File("m.bin");
  const std::string args = " --hash-bits 12 --epochs 10 --threads 1 --test " + test_path;
  const auto plain = RunCli("train --train " + train_path + args);
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_LT(After(plain.output, "test accuracy "), 80.0) << plain.output;  // XOR: not linear
  const auto paired =
      RunCli("train --train " + train_path + args + " --interactions ui --save " + model);
  ASSERT_EQ(paired.status, 0) << paired.output;
  EXPECT_EQ(After(paired.output, "test accuracy "), 100.0) << paired.output;
  const auto p = RunShell("printf '|u id0 |i id1\\n|u id1 |i id1\\n' | " +
                          std::string(PARSGD_CLI_PATH) + " predict " + model + " -");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(Lines(p.output), (std::vector<std::string>{"1", "-1"}));
  // A term repeated (in any order) is taken once, with a warning: the same run.
  const auto twice = RunCli("train --train " + train_path + args + " --interactions ui,iu");
  ASSERT_EQ(twice.status, 0) << twice.output;
  EXPECT_TRUE(Contains(twice.output, "warning: --interactions 'ui,iu': 'iu' pairs the namespaces "
                                     "of an earlier term; taken once"))
      << twice.output;
  EXPECT_EQ(After(twice.output, "test loss "), After(paired.output, "test loss ")) << twice.output;
  // Importances: the rows' weights, in training and in a test set's metrics (a weighted
  // accuracy beside the accuracy), under every solver and model.
  const std::string weighted = dir_.Write("w.vw", "1 2 |u a\n-1 |u b\n1 0.5 |u a\n");
  const auto trained = RunCli("train --train " + weighted + " --epochs 2");
  EXPECT_EQ(trained.status, 0) << trained.output;
  EXPECT_TRUE(Contains(trained.output, "(weighted ")) << trained.output;
  const auto dual = RunCli("train --train " + weighted + " --solver dual-cd --bias off");
  EXPECT_EQ(dual.status, 0) << dual.output;
  EXPECT_TRUE(Contains(dual.output, "(weighted ")) << dual.output;
  const auto mlp = RunCli("train --train " + weighted + " --model mlp --hidden 4 --epochs 2");
  EXPECT_EQ(mlp.status, 0) << mlp.output;
  EXPECT_TRUE(Contains(mlp.output, "(weighted ")) << mlp.output;
  const auto tested = RunCli("train --train " + train_path + " --test " + weighted + " --quiet");
  EXPECT_EQ(tested.status, 0) << tested.output;
  EXPECT_TRUE(Contains(tested.output, "(weighted ")) << tested.output;
  // --interactions reads VW text only; --ngrams fastText's.
  EXPECT_EQ(RunCli("train --train " + train_path + " --ngrams 1").status, 2);
  const std::string text = dir_.Write("t.txt", Text(50, 9, true));
  EXPECT_EQ(RunCli("train --train " + text + " --interactions ab").status, 2);
}

// A text split in parts (one gzipped) trains as the whole: one data set, rows in file order,
// given as a list or by repeating --train.
TEST_F(CliText, SeveralFilesTrainAsTheirConcatenation) {
  const std::string text = Text(300, 6, true);
  const std::size_t half = text.find('\n', text.size() / 2) + 1;
  const std::string whole = dir_.Write("whole.txt", text);
  const std::string first = dir_.Write("first.txt", text.substr(0, half));
  const std::string second = dir_.Write("second.txt", text.substr(half));
  ASSERT_EQ(RunShell("gzip " + second).status, 0);
  const std::string args = " --model softmax --hash-bits 10 --epochs 2 --threads 1";
  const auto one = RunCli("train --train " + whole + args);
  const auto parts = RunCli("train --train " + first + "," + second + ".gz" + args);
  ASSERT_EQ(one.status, 0) << one.output;
  ASSERT_EQ(parts.status, 0) << parts.output;
  EXPECT_TRUE(Contains(parts.output, "300 rows x 1024 features")) << parts.output;
  EXPECT_EQ(one.output.substr(one.output.rfind("train accuracy")),
            parts.output.substr(parts.output.rfind("train accuracy")));
  // --train given twice is the same list.
  const auto repeated = RunCli("train --train " + first + " --train " + second + ".gz" + args);
  ASSERT_EQ(repeated.status, 0) << repeated.output;
  EXPECT_EQ(Lines(repeated.output).front(), Lines(parts.output).front());
  EXPECT_EQ(repeated.output.substr(repeated.output.rfind("train accuracy")),
            parts.output.substr(parts.output.rfind("train accuracy")));
}

// Hashed text's other files are read as the training data was, wherever its hashing was set: a
// run trained from a binary cache hashed at 12 bits reads its --test text at 12 bits (the test
// accuracy is eval's of the saved model on the same file); predict and eval read a cache of the
// same hashing as its text, and refuse a cache of another (both readings named) or one of columns.
TEST_F(CliText, OtherFilesAreReadAsTheCachedTrainingTextWas) {
  const std::string text = dir_.Write("train.txt", Text(300, 3, true));
  const std::string test = dir_.Write("test.txt", Text(100, 9, true));
  const std::string cache = dir_.File("train.bin"), model = dir_.File("m.bin");
  ASSERT_EQ(RunCli("convert " + text + " " + cache + " --hash-bits 12").status, 0);
  const auto r =
      RunCli("train --train " + cache + " --test " + test + " --epochs 5 --save " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto e = RunCli("eval " + model + " " + test);
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_EQ(After(e.output, "accuracy "), After(r.output, "test accuracy ")) << e.output;
  EXPECT_EQ(After(e.output, "loss "), After(r.output, "test loss ")) << e.output;

  const std::string same = dir_.File("test12.bin"), other = dir_.File("test16.bin");
  ASSERT_EQ(RunCli("convert " + test + " " + same + " --hash-bits 12").status, 0);
  ASSERT_EQ(RunCli("convert " + test + " " + other).status, 0);
  const auto from_cache = RunCli("eval " + model + " " + same);
  ASSERT_EQ(from_cache.status, 0) << from_cache.output;
  EXPECT_EQ(Lines(from_cache.output).at(0), Lines(e.output).at(0));
  EXPECT_EQ(RunCli("predict " + model + " " + same).output,
            RunCli("predict " + model + " " + test).output);
  for (const std::string& command : {std::string("predict "), std::string("eval ")}) {
    const auto refused = RunCli(command + model + " " + other);
    EXPECT_EQ(refused.status, 1) << refused.output;
    EXPECT_TRUE(Contains(refused.output, other + ": fastText text hashed into 2^16 features (word "
                                         "n-grams 1 to 2), but the model's training data was "
                                         "fastText text hashed into 2^12 features"))
        << refused.output;
  }
  const auto test_refused = RunCli("train --train " + cache + " --test " + other + " --epochs 1");
  EXPECT_EQ(test_refused.status, 1);
  EXPECT_TRUE(Contains(test_refused.output, "but the training data " + cache + " was fastText "
                                            "text hashed into 2^12 features"))
      << test_refused.output;
  const std::string columns = dir_.File("columns.bin");
  ASSERT_EQ(RunCli("convert " + dir_.Write("d.svm", "1 1:0.5\n-1 2:1\n") + " " + columns).status,
            0);
  const auto not_hashed = RunCli("predict " + model + " " + columns);
  EXPECT_EQ(not_hashed.status, 1);
  EXPECT_TRUE(Contains(not_hashed.output, columns + ": LIBSVM text, but the model's training data "
                                          "was fastText text"))
      << not_hashed.output;
  // Flags of another format's reading would be ignored: refused by predict and eval too.
  const auto flag = RunCli("eval " + model + " " + test + " --label-column 0");
  EXPECT_EQ(flag.status, 2);
  EXPECT_TRUE(Contains(flag.output, "--label-column would be ignored: it reads CSV text; " + test +
                                    " is fastText text"))
      << flag.output;
}

TEST_F(CliText, TheDoorRefusesWhatWouldBeReadWrong) {
  const std::string text = dir_.Write("train.txt", Text(100, 5, true));
  const std::string svm = dir_.Write("d.svm", "1 1:0.5\n-1 2:1\n");
  // Hashing flags for data that is not fastText text would be ignored.
  const auto ignored = RunCli("train --train " + svm + " --ngrams 2");
  EXPECT_EQ(ignored.status, 2);
  EXPECT_TRUE(Contains(ignored.output, "--ngrams would be ignored: it reads fastText text"))
      << ignored.output;
  EXPECT_EQ(RunCli("train --train " + text + " --char-ngrams 3").status, 2);
  // A model of columns does not read hashed words.
  const std::string model = dir_.File("svm.bin");
  ASSERT_EQ(RunCli("train --train " + svm + " --epochs 1 --quiet --save " + model).status, 0);
  const auto wrong = RunCli("predict " + model + " " + text);
  EXPECT_EQ(wrong.status, 1);
  EXPECT_TRUE(Contains(wrong.output, "fastText text hashed into 2^16 features (word n-grams 1 to "
                                     "2), but the model's training data was LIBSVM text"))
      << wrong.output;
  // Two labels on a line: the place and the reason.
  const std::string two = dir_.Write("two.txt", "__label__a x\n__label__a y __label__b\n");
  const auto multi = RunCli("train --train " + two + " --model softmax");
  EXPECT_EQ(multi.status, 1);
  EXPECT_TRUE(Contains(multi.output, two + ":2:14: a second label")) << multi.output;
}

}  // namespace
}  // namespace parsgd
