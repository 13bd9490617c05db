// compare's plan: which configurations share the data they load. Every read option of the table
// (kReadOptions), the files and the bias give each value its own rows; a method's flag does not.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cli/compare_grid.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd::cli {
namespace {

Plan PlanOf(const std::vector<std::string>& flags) {
  CompareArgs a;
  OptionParser parser("compare", "");
  DeclareCompareOptions(parser, a);
  std::vector<std::string> args = {"--train", "t.csv", "--out", "out"};
  args.insert(args.end(), flags.begin(), flags.end());
  EXPECT_TRUE(parser.Parse(args));
  return BuildPlan(parser, a);
}

// Two values of `flag` (given twice): two configurations, their data keys equal or not.
bool SharesData(const std::string& flag, const std::string& one, const std::string& other) {
  const Plan plan = PlanOf({"--" + flag, one, "--" + flag, other});
  EXPECT_EQ(plan.configs.size(), 2u) << flag;
  if (plan.configs.size() != 2) return true;
  return plan.configs[0].data_key == plan.configs[1].data_key;
}

TEST(ComparePlan, EachReadOptionsValueReadsItsOwnData) {
  // Two values of each read option, each valid where the option is parsed.
  const std::map<std::string, std::pair<std::string, std::string>> values = {
      {"format", {"csv", "libsvm"}},         {"features", {"10", "20"}},
      {"zero-based", {"yes", "no"}},         {"header", {"yes", "no"}},
      {"delimiter", {";", "tab"}},           {"label-column", {"a", "b"}},
      {"missing", {"error", "zero"}},        {"weight-column", {"w", "v"}},
      {"ignore-columns", {"a", "b"}},        {"categorical", {"a", "b"}},
      {"center", {"auto", "none"}},          {"ngrams", {"1", "2"}},
      {"char-ngrams", {"3-5", "2-4"}},       {"interactions", {"ab", "cd"}},
      {"hash-bits", {"10", "12"}},
  };
  for (const ReadOption& option : kReadOptions) {
    const auto it = values.find(std::string(option.key));
    ASSERT_NE(it, values.end()) << "no test values for --" << option.key;
    EXPECT_FALSE(SharesData(std::string(option.key), it->second.first, it->second.second))
        << option.key;
  }
  EXPECT_FALSE(SharesData("bias", "on", "off"));  // a table is centred only with a bias
  EXPECT_FALSE(SharesData("test", "a.csv", "b.csv"));
  EXPECT_TRUE(SharesData("scheme", "sequential", "hogwild"));
  EXPECT_TRUE(SharesData("learning-rate", "0.1", "0.2"));
}

}  // namespace
}  // namespace parsgd::cli
