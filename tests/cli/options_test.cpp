// The command-line parser's list mode (parsgd compare), and that it leaves one-value parsing
// (parsgd train) as it was.
#include "options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parsgd/order/sample_order.hpp"

namespace parsgd::cli {
namespace {

struct Fields {
  std::string out, train;
  OrderKind order = OrderKind::kGlobal;
  int threads = 0;
  bool flag = false;
};

void Declare(OptionParser& p, Fields& f) {
  p.String("out", &f.out, "DIR", "output");  // declared before AllowLists: one value
  p.AllowLists(true);
  p.String("train", &f.train, "PATH", "data");
  p.Choice<OrderKind>("order", &f.order, kOrderKinds, "order");
  p.Int("threads", &f.threads, "threads", 1, 64, 0);
  p.Switch("flag", &f.flag, "a switch");
  p.AllowLists(false);
}

bool Parse(OptionParser& p, std::vector<std::string> args) { return p.Parse(args); }

std::string ErrorOf(std::vector<std::string> args) {
  Fields f;
  OptionParser p("compare", "");
  Declare(p, f);
  try {
    p.Parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(OptionLists, CommaListsAndRepeatedFlagsGiveEveryValueInOrder) {
  Fields f;
  OptionParser p("compare", "");
  Declare(p, f);
  ASSERT_TRUE(
      Parse(p, {"--order", "random,local", "--threads=1,2", "--order", "sequential", "--train",
                "a,b.idx", "--train", "c.svm", "--flag=false,true", "--out", "x"}));
  EXPECT_EQ(p.Values("order"), (std::vector<std::string>{"random", "local", "sequential"}));
  EXPECT_EQ(p.Values("threads"), (std::vector<std::string>{"1", "2"}));
  // Strings are never split (paths and "256,128" hold commas): repeat the flag instead.
  EXPECT_EQ(p.Values("train"), (std::vector<std::string>{"a,b.idx", "c.svm"}));
  EXPECT_EQ(p.Values("flag"), (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(p.Values("out"), (std::vector<std::string>{"x"}));
  EXPECT_TRUE(p.TakesLists("order"));
  EXPECT_FALSE(p.TakesLists("out"));
  EXPECT_TRUE(p.IsSwitch("flag"));
}

TEST(OptionLists, SetAppliesOneValueThroughTheDeclaration) {
  Fields f;
  OptionParser p("compare", "");
  Declare(p, f);
  p.Set("order", "local");
  p.Set("threads", "auto");
  p.Set("flag", "true");
  EXPECT_EQ(f.order, OrderKind::kLocal);
  EXPECT_EQ(f.threads, 0);
  EXPECT_TRUE(f.flag);
  p.Set("flag", "false");
  EXPECT_FALSE(f.flag);
  EXPECT_THROW(p.Set("threads", "0"), UsageError);
  try {
    p.Set("ordr", "local");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown option --ordr (did you mean --order?)");
  }
}

TEST(OptionLists, EveryItemIsCheckedAndNamed) {
  EXPECT_EQ(ErrorOf({"--order", "random,bogus"}),
            "--order: expected one of random, global, local, sequential, block, auto, got 'bogus'");
  EXPECT_EQ(ErrorOf({"--threads", "1,,2"}), "--threads: empty item in the list '1,,2'");
  EXPECT_EQ(ErrorOf({"--threads", "1,2", "--threads", "2"}), "--threads: '2' given twice");
  EXPECT_EQ(ErrorOf({"--threads", "1,99"}), "--threads: must be between 1 and 64 (or 'auto'), got 99");
  EXPECT_EQ(ErrorOf({"--flag=maybe"}), "--flag: expected true or false, got 'maybe'");
  EXPECT_EQ(ErrorOf({"--out", "a", "--out", "b"}), "--out: given twice");
}

TEST(OptionLists, WithoutListModeOneValueAsBefore) {
  std::string train;
  int threads = 0;
  bool quiet = false;
  OptionParser p("train", "");
  p.String("train", &train, "PATH", "data");
  p.Int("threads", &threads, "threads", 1, 64, 0);
  p.Switch("quiet", &quiet, "quiet");
  EXPECT_THROW(Parse(p, {"--threads", "1,2"}), UsageError);
  OptionParser q("train", "");
  q.Int("threads", &threads, "threads", 1, 64, 0);
  q.Switch("quiet", &quiet, "quiet");
  EXPECT_THROW(Parse(q, {"--quiet=true"}), UsageError);  // a switch takes no value
  OptionParser r("train", "");
  r.Int("threads", &threads, "threads", 1, 64, 0);
  EXPECT_THROW(Parse(r, {"--threads", "1", "--threads", "2"}), UsageError);
  EXPECT_EQ(r.Help().find(",..."), std::string::npos);
}

}  // namespace
}  // namespace parsgd::cli
