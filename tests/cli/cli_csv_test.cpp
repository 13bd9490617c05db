// End-to-end tests of CSV tables with categorical columns: train, save, predict and eval through
// the real program, the columns matched by name, values never met in training left out.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "parsgd/io/model_file.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::After;
using testing::Contains;
using testing::Lines;
using testing::RunCli;


class CliCsv : public ::testing::Test {
 protected:
  // The class is the colour's (red, blue: yes; green, black: no) unless x is large; `reorder`:
  // the same rows with the columns in another order; `extra`: a colour training never met.
  std::string Table(int rows, uint64_t seed, bool reorder, bool extra = false) {
    const char* colours[5] = {"red", "blue", "green", "black", "white"};
    Rng rng(seed);
    std::string text = reorder ? "size,x,colour,class\n" : "class,colour,x,size\n";
    for (int i = 0; i < rows; ++i) {
      const auto c = rng.Uniform(extra ? 5 : 4);
      const double x = rng.UniformDouble();
      const char* size = rng.Uniform(2) ? "S" : "L";
      const char* y = (c < 2) != (x > 0.9) ? "yes" : "no";
      text += reorder ? fmt::format("{},{:.3f},{},{}\n", size, x, colours[c], y)
                      : fmt::format("{},{},{:.3f},{}\n", y, colours[c], x, size);
    }
    return text;
  }
  testing::TempDir dir_;
};

// A table's model reads tables and caches of the same table: LIBSVM text (which would give its
// columns by index, not by name) and a cache of another table are refused with both readings
// named, a flag of another format's reading by name; a cache of the table is read as its text.
// --ignore-columns: an id column left out is no feature, so the ids of the test rows cannot move
// the model's loss; the model records it, so predict and eval leave it out by themselves and read
// a file without it; a flag for another format is refused.
TEST_F(CliCsv, ColumnsLeftOutAreRecordedInTheModel) {
  std::string train = "id,y,a,b\n", test = "id,y,a,b\n", shifted = "id,y,a,b\n",
              bare = "b,y,a\n";
  for (int i = 0; i < 80; ++i) {
    const double a = (i % 9) / 4.0 - 1, b = (i % 5) / 2.0 - 1;
    const int y = a + 0.5 * b > 0 ? 1 : 0;
    const std::string row = fmt::format("{},{},{},{}\n", i, y, a, b);
    (i < 60 ? train : test) += row;
    if (i >= 60) {
      shifted += fmt::format("{},{},{},{}\n", i + 100000, y, a, b);
      bare += fmt::format("{},{},{}\n", b, y, a);
    }
  }
  const std::string model = dir_.File("m.bin");
  const auto t = RunCli("train --train " + dir_.Write("train.csv", train) +
                        " --label-column y --ignore-columns id --epochs 5 --threads 1 --save " + model);
  ASSERT_EQ(t.status, 0) << t.output;
  const auto e = RunCli("eval " + model + " " + dir_.Write("test.csv", test));
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_EQ(RunCli("eval " + model + " " + dir_.Write("shifted.csv", shifted)).output, e.output);
  EXPECT_EQ(RunCli("eval " + model + " " + dir_.Write("bare.csv", bare)).output, e.output);
  const auto p = RunCli("predict " + model + " " + dir_.File("test.csv"));
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(RunCli("predict " + model + " " + dir_.File("bare.csv")).output, p.output);
  // Unrecorded, the id is a feature, and the shifted ids move the loss.
  const std::string with_id = dir_.File("with_id.bin");
  ASSERT_EQ(RunCli("train --train " + dir_.File("train.csv") +
                   " --label-column y --epochs 5 --threads 1 --save " + with_id).status, 0);
  EXPECT_NE(RunCli("eval " + with_id + " " + dir_.File("shifted.csv")).output,
            RunCli("eval " + with_id + " " + dir_.File("test.csv")).output);
  const auto svm = RunCli("train --train " + dir_.Write("t.svm", "1 1:1\n0 2:1\n") +
                          " --ignore-columns 2");
  EXPECT_EQ(svm.status, 2) << svm.output;
  EXPECT_TRUE(Contains(svm.output, "--ignore-columns")) << svm.output;
}

// --missing mean: the model records the training rows' fills, so that train's --test, eval and
// predict fill a file's missing cells in alike (eval's loss is train's test loss), and a model
// trained under another rule refuses to fill in.
TEST_F(CliCsv, MissingValuesAreFilledInByTheModelsRecord) {
  std::string train = "y,a,b\n", test = "y,a,b\n";
  for (int i = 0; i < 80; ++i) {
    const double a = (i % 9) / 4.0 + 3, b = (i % 5) / 2.0 - 1;
    const int y = a - 4 + 0.5 * b > 0 ? 1 : 0;
    const std::string as = i % 4 == 0 ? "" : fmt::format("{}", a);
    (i < 60 ? train : test) += fmt::format("{},{},{}\n", y, as, i % 7 == 0 ? "NA" : fmt::format("{}", b));
  }
  const std::string model = dir_.File("m.bin");
  const std::string test_path = dir_.Write("test.csv", test);
  const auto t = RunCli("train --train " + dir_.Write("train.csv", train) + " --test " + test_path +
                        " --missing mean --epochs 4 --threads 1 --save " + model);
  ASSERT_EQ(t.status, 0) << t.output;
  const auto e = RunCli("eval " + model + " " + test_path);
  ASSERT_EQ(e.status, 0) << e.output;
  const std::string loss = t.output.substr(t.output.rfind("test loss ") + 10);
  EXPECT_TRUE(Contains(e.output, "loss " + loss.substr(0, loss.find_first_of(" \n"))))
      << t.output << e.output;
  const auto p = RunCli("predict " + model + " " + test_path);
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(Lines(p.output).size(), 20u);
  const std::string zero_model = dir_.File("z.bin");
  ASSERT_EQ(RunCli("train --train " + dir_.File("train.csv") +
                   " --missing zero --epochs 2 --threads 1 --save " + zero_model).status, 0);
  const auto refused = RunCli("eval " + zero_model + " " + test_path + " --missing mean");
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_TRUE(Contains(refused.output, "no values to fill in were learnt")) << refused.output;
}

// A number column far from 0 (a year) is centred by default and said so; the model records the
// mean, so that eval of the saved model on the test text or its binary cache gives train's test
// loss, and a cache of the training file trains as its text does. --center none, the bias off or
// a file of another format leave the columns as written (the flag given there is refused).
TEST_F(CliCsv, NumberColumnsFarFromZeroAreCentredByTheTrainingMeans) {
  std::string train = "y,year,b\n", test = "y,year,b\n";
  for (int i = 0; i < 80; ++i) {
    const int year = 1970 + i % 13;
    const double b = (i % 5) / 4.0 - 0.5;  // mean 0: kept
    const int y = year - 1976 + b > 0 ? 1 : 0;
    (i < 60 ? train : test) += fmt::format("{},{},{}\n", y, year, b);
  }
  const std::string train_path = dir_.Write("train.csv", train);
  const std::string test_path = dir_.Write("test.csv", test);
  const std::string model = dir_.File("m.bin");
  const std::string flags = " --epochs 4 --threads 1";
  const auto t = RunCli("train --train " + train_path + " --test " + test_path + flags +
                        " --save " + model);
  ASSERT_EQ(t.status, 0) << t.output;
  EXPECT_TRUE(Contains(t.output, "auto: center: 1 of 2 number columns centred")) << t.output;
  EXPECT_TRUE(Contains(t.output, "(year)")) << t.output;
  const std::string loss = t.output.substr(t.output.rfind("test loss ") + 10);
  const auto e = RunCli("eval " + model + " " + test_path);
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_TRUE(Contains(e.output, "loss " + loss.substr(0, loss.find_first_of(" \n"))))
      << t.output << e.output;
  const std::string test_cache = dir_.File("test.bin");
  ASSERT_EQ(RunCli("convert " + test_path + " " + test_cache).status, 0);
  EXPECT_EQ(RunCli("eval " + model + " " + test_cache).output, e.output);
  const std::string train_cache = dir_.File("train.bin");
  ASSERT_EQ(RunCli("convert " + train_path + " " + train_cache).status, 0);
  const auto c = RunCli("train --train " + train_cache + " --test " + test_path + flags);
  ASSERT_EQ(c.status, 0) << c.output;
  EXPECT_EQ(Lines(c.output).back(), Lines(t.output).back());
  for (const char* off : {" --center none", " --bias off"}) {
    const auto r = RunCli("train --train " + train_path + " --test " + test_path + flags + off);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_FALSE(Contains(r.output, "auto: center")) << r.output;
    EXPECT_NE(Lines(r.output).back(), Lines(t.output).back()) << off;
  }
  const auto svm = RunCli("train --train " + dir_.Write("t.svm", "1 1:1\n0 2:1\n") +
                          " --center none");
  EXPECT_EQ(svm.status, 2) << svm.output;
  EXPECT_TRUE(Contains(svm.output, "--center would be ignored")) << svm.output;
}

// A run started from a table's model (--init) reads its training file the way the model's data
// was read: the columns matched by name (here in another order, the label last), the categories
// the model's, the number column centred by the model's mean. With a step too small to move the
// weights, the new model is the old one: eval says the same of both.
TEST_F(CliCsv, InitReadsTheTrainingTableAsTheModelsDataWasRead) {
  const std::string first = dir_.Write("first.csv", Table(200, 1, false));
  const std::string other = dir_.Write("other.csv", Table(150, 2, true));
  const std::string model = dir_.File("m.bin"), next = dir_.File("next.bin");
  ASSERT_EQ(RunCli("train --train " + first + " --epochs 4 --threads 1 --quiet --save " + model)
                .status,
            0);
  const auto r = RunCli("train --train " + other + " --init " + model + " --label-column class" +
                        " --epochs 1 --learning-rate 1e-9 --threads 1 --save " + next);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "center: 1 of 1 number columns centred by the --init model's "
                                 "means (x)"))
      << r.output;
  const auto before = RunCli("eval " + model + " " + first);
  ASSERT_EQ(before.status, 0) << before.output;
  EXPECT_EQ(RunCli("eval " + next + " " + first).output, before.output) << r.output;
}

// Logistic on three classes trains as softmax unless --multiclass ovr is given; --init from a
// one-vs-rest model continues one-vs-rest (a softmax run would not fit it).
TEST_F(CliCsv, LogisticOnThreeClassesIsSoftmaxAndInitKeepsOneVsRest) {
  std::string text = "y,x\n";
  for (int i = 0; i < 90; ++i) text += fmt::format("{},{}\n", "abc"[i % 3], i % 3 + (i % 7) / 10.0);
  const std::string table = dir_.Write("three.csv", text);
  const std::string flags = " --epochs 2 --threads 1";
  const auto a = RunCli("train --train " + table + flags);
  ASSERT_EQ(a.status, 0) << a.output;
  const auto given = RunCli("train --train " + table + flags + " --multiclass auto");
  ASSERT_EQ(given.status, 0) << given.output;  // the default, given: not "ignored"
  EXPECT_EQ(Lines(given.output).back(), Lines(a.output).back());
  EXPECT_TRUE(Contains(a.output, "auto: multiclass: logistic on 3 classes trains one softmax"))
      << a.output;
  EXPECT_TRUE(Contains(a.output, "model softmax (3 classes)")) << a.output;
  const std::string model = dir_.File("ovr.bin");
  const auto o = RunCli("train --train " + table + flags + " --multiclass ovr --save " + model);
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_TRUE(Contains(o.output, "one-vs-rest, 3 classes")) << o.output;
  EXPECT_FALSE(Contains(o.output, "auto: multiclass")) << o.output;
  const auto i = RunCli("train --train " + table + flags + " --init " + model);
  ASSERT_EQ(i.status, 0) << i.output;
  EXPECT_TRUE(Contains(i.output, "one-vs-rest, 3 classes")) << i.output;
}

// Class names as fields: one holding a space is quoted in predict's header and rows (one field,
// not two), and a control byte reaches no terminal raw (eval's report escapes it).
TEST_F(CliCsv, ClassNamesWithSpacesOrControlBytesAreOneQuotedField) {
  const std::string table = dir_.Write(
      "city.csv", "y,a\n\"new york\",1\nboston,0\n\"new york\",2\n\"a\x01\",-1\n");
  const std::string model = dir_.File("city.bin");
  ASSERT_EQ(RunCli("train --train " + table + " --model softmax --epochs 2 --threads 1 --quiet "
                   "--save " + model).status, 0);
  const auto p = RunCli("predict " + model + " " + table + " --probabilities");
  ASSERT_EQ(p.status, 0) << p.output;
  const std::vector<std::string> lines = Lines(p.output);
  ASSERT_EQ(lines.size(), 5u) << p.output;
  EXPECT_EQ(lines[0], "labels \"a\\x01\" boston \"new york\"");
  EXPECT_TRUE(lines[1].starts_with("\"")) << p.output;  // a quoted name, then 3 numbers
  const auto e = RunCli("eval " + model + " " + table);
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_FALSE(Contains(e.output, "\x01")) << e.output;
  EXPECT_TRUE(Contains(e.output, "\"a\\x01\"")) << e.output;
  EXPECT_TRUE(Contains(e.output, "\"new york\"")) << e.output;
}

TEST_F(CliCsv, AModelOfATableReadsThatTableOnly) {
  const std::string train = dir_.Write("train.csv", Table(300, 1, false));
  const std::string test = dir_.Write("test.csv", Table(100, 2, false));
  const std::string model = dir_.File("m.bin"), cache = dir_.File("test.bin");
  ASSERT_EQ(RunCli("train --train " + train + " --epochs 3 --threads 1 --save " + model).status,
            0);
  ASSERT_EQ(RunCli("convert " + test + " " + cache).status, 0);
  EXPECT_EQ(RunCli("predict " + model + " " + cache).output,
            RunCli("predict " + model + " " + test).output);
  const std::string svm = dir_.Write("d.svm", "1 1:0.5 2:0.3\n0 1:0.1 3:0.9\n");
  const auto libsvm = RunCli("predict " + model + " " + svm);
  EXPECT_EQ(libsvm.status, 1);
  EXPECT_TRUE(Contains(libsvm.output, svm + ": LIBSVM text, but the model's training data was CSV "
                                            "text of 3 feature columns"))
      << libsvm.output;
  const std::string other = dir_.Write("other.csv", "class,a,b\nyes,1,2\nno,3,4\n");
  const std::string other_cache = dir_.File("other.bin");
  ASSERT_EQ(RunCli("convert " + other + " " + other_cache).status, 0);
  const auto table = RunCli("eval " + model + " " + other_cache);
  EXPECT_EQ(table.status, 1);
  EXPECT_TRUE(Contains(table.output, "CSV text of 2 feature columns, but the model's training "
                                     "data was CSV text of 3 feature columns: another table's"))
      << table.output;
  const auto flag = RunCli("predict " + model + " " + test + " --zero-based yes");
  EXPECT_EQ(flag.status, 2);
  EXPECT_TRUE(Contains(flag.output, "--zero-based would be ignored: it reads LIBSVM text"))
      << flag.output;
}

TEST_F(CliCsv, CategoricalColumnsTrainAndPredictByNameOneHotOrHashed) {
  const std::string train = dir_.Write("train.csv", Table(600, 1, false));
  const std::string test = dir_.Write("test.csv", Table(300, 2, false));
  const std::string moved = dir_.Write("moved.csv", Table(300, 2, true));
  const std::string model = dir_.File("m.bin");
  for (const char* hashing : {" --hash-bits 6", ""}) {  // the one-hot model last: used below
    SCOPED_TRACE(hashing);
    const auto r = RunCli("train --train " + train + " --test " + moved +
                          " --epochs 20 --threads 1 --save " + model + hashing);
    ASSERT_EQ(r.status, 0) << r.output;
    // 3 columns, then the 4 colours and 2 sizes (one-hot) or 64 buckets.
    EXPECT_TRUE(Contains(r.output, *hashing ? "600 rows x 67 features" : "600 rows x 9 features"))
        << r.output;
    EXPECT_GT(After(r.output, "test accuracy "), 85.0) << r.output;
    // The same rows with the columns in another order score the same.
    const auto e = RunCli("eval " + model + " " + test);
    const auto m = RunCli("eval " + model + " " + moved);
    ASSERT_EQ(e.status, 0) << e.output;
    EXPECT_EQ(e.output, m.output);
    const auto p = RunCli("predict " + model + " " + moved);
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(p.output, RunCli("predict " + model + " " + test).output);
    EXPECT_EQ(Lines(p.output).size(), 300u);
  }
  // A colour never met in training is left out of its row (the row is still predicted), and
  // predict and eval say how many were.
  const std::string white = dir_.Write("w.csv", Table(50, 3, false, true));
  int whites = 0;
  for (const std::string& line : Lines(Table(50, 3, false, true))) whites += Contains(line, ",white,");
  ASSERT_GT(whites, 0);
  const auto unseen = RunCli("predict " + model + " " + white + " 2>/dev/null");
  ASSERT_EQ(unseen.status, 0) << unseen.output;
  EXPECT_EQ(Lines(unseen.output).size(), 50u);
  const std::string note = fmt::format("left out {} values of categorical columns", whites);
  EXPECT_TRUE(Contains(RunCli("predict " + model + " " + white + " >/dev/null").output, note));
  const auto eval_unseen = RunCli("eval " + model + " " + white);
  ASSERT_EQ(eval_unseen.status, 0) << eval_unseen.output;
  EXPECT_TRUE(Contains(eval_unseen.output, note)) << eval_unseen.output;
  EXPECT_FALSE(Contains(RunCli("eval " + model + " " + test).output, "left out"));
  // --hash-bits on a table of numbers would hash nothing.
  const std::string numbers = dir_.Write("n.csv", "y,a,b\n1,0.5,2\n0,1.5,3\n");
  const auto hashed = RunCli("train --train " + numbers + " --hash-bits 8");
  EXPECT_EQ(hashed.status, 2) << hashed.output;
  EXPECT_TRUE(Contains(hashed.output, "--hash-bits would be ignored")) << hashed.output;
  EXPECT_TRUE(Contains(hashed.output, "n.csv has none")) << hashed.output;
  // The binary cache records the columns and their values: a model trained from it reads the
  // table's files by name as the one trained from the text (the same weights, the same
  // predictions of the reordered file). LIBSVM text would lose the values.
  const std::string cache = dir_.File("t.bin"), from_cache = dir_.File("mc.bin");
  const auto convert = RunCli("convert " + train + " " + cache);
  ASSERT_EQ(convert.status, 0) << convert.output;
  EXPECT_TRUE(Contains(convert.output, "600 rows x 9 features")) << convert.output;
  const std::string same = " --epochs 20 --threads 1 --scheme sequential --save ";
  ASSERT_EQ(RunCli("train --train " + train + same + model).status, 0);
  const auto t = RunCli("train --train " + cache + " --test " + moved + same + from_cache);
  ASSERT_EQ(t.status, 0) << t.output;
  const LoadedModel by_text = LoadModel(model), by_cache = LoadModel(from_cache);
  const auto wt = std::get<LinearModel>(by_text.model).weights();
  const auto wc = std::get<LinearModel>(by_cache.model).weights();
  EXPECT_TRUE(std::equal(wt.begin(), wt.end(), wc.begin(), wc.end()));
  EXPECT_EQ(RunCli("predict " + from_cache + " " + moved).output,
            RunCli("predict " + model + " " + moved).output);
  // convert reads the columns as train does: hashed, or refused as text.
  const auto hashed_cache =
      RunCli("convert " + train + " " + dir_.File("h.bin") + " --hash-bits 6");
  ASSERT_EQ(hashed_cache.status, 0) << hashed_cache.output;
  EXPECT_TRUE(Contains(hashed_cache.output, "600 rows x 67 features")) << hashed_cache.output;
  const auto numbers_hashed =
      RunCli("convert " + numbers + " " + dir_.File("nh.bin") + " --hash-bits 6");
  EXPECT_EQ(numbers_hashed.status, 1) << numbers_hashed.output;
  EXPECT_TRUE(Contains(numbers_hashed.output, "--hash-bits would be ignored"))
      << numbers_hashed.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("nh.bin")));
  const auto as_text =
      RunCli("convert " + train + " " + dir_.File("n.bin") + " --categorical none");
  EXPECT_EQ(as_text.status, 1) << as_text.output;
  EXPECT_TRUE(Contains(as_text.output, "expected a number")) << as_text.output;
  const auto svm = RunCli("convert " + train + " " + dir_.File("t.svm"));
  EXPECT_EQ(svm.status, 1);
  EXPECT_TRUE(Contains(svm.output, "has categorical columns")) << svm.output;
  // --categorical none: text in a feature column is an error naming it.
  const auto none = RunCli("train --train " + train + " --categorical none");
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(Contains(none.output, "train.csv:2:")) << none.output;
  EXPECT_TRUE(Contains(none.output, "expected a number")) << none.output;
}

}  // namespace
}  // namespace parsgd
