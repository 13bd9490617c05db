// The settings table (config/settings.hpp): every setting reads back what it writes, the checks
// of a config built in code are the command line's, errors name settings by key for each front
// end to spell, and the texts derived from the table (the run identity) keep their frozen form.
#include "parsgd/config/settings.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <set>
#include <string>
#include <vector>

#include "options.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"
#include "train_options.hpp"

namespace parsgd {
namespace {

std::string Dashed(std::string_view key) { return "--" + std::string(key); }

// The message a config built in code gets from ValidateConfig, with its keys as flags, then bare.
std::string RefusalBothWays(const TrainConfig& c) {
  try {
    ValidateConfig(c);
  } catch (const SettingError& e) {
    return e.Render(Dashed) + "\n" + e.what();  // both spellings, for the tests to look at
  }
  return "";
}

TEST(Settings, KeysAreUniqueAndEveryDefaultIsValid) {
  std::set<std::string> keys;
  for (const Setting& s : TrainSettings()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_FALSE(s.help.empty()) << s.key;
    EXPECT_NO_THROW(CheckSetting(s, s.get(TrainConfig{}))) << s.key;
  }
  EXPECT_NO_THROW(ValidateConfig(TrainConfig{}));
}

TEST(Settings, EveryValueReadsBackAsWritten) {
  // Each setting's default and a value of its own (a word, the range's ends, every choice) go
  // through text and back: SettingText's output is what ParseSetting reads.
  for (const Setting& s : TrainSettings()) {
    std::vector<std::string> texts = {SettingText(s, s.get(TrainConfig{}))};
    for (const SettingWord& w : s.words) texts.push_back(w.word);
    for (const auto& [name, help] : s.choices) texts.push_back(name);
    if (s.type == SettingType::kInt || s.type == SettingType::kReal) {
      texts.push_back(FormatSetting(s.max, false));
      if (!s.min_exclusive) texts.push_back(FormatSetting(s.min, false));
    }
    if (s.is_switch()) texts = {"true", "false"};
    for (const std::string& text : texts) {
      TrainConfig c;
      s.put(c, ParseSetting(s, text));
      EXPECT_EQ(SettingText(s, s.get(c)), text) << s.key;
      EXPECT_NO_THROW(CheckSetting(s, s.get(c))) << s.key << "=" << text;
    }
  }
}

TEST(Settings, ApplyWritesTheField) {
  TrainConfig c;
  ApplySetting(c, "period", "epoch");
  EXPECT_EQ(c.period, 0);
  ApplySetting(c, "period", "auto");
  EXPECT_EQ(c.period, -1);
  ApplySetting(c, "learning-rate", "0.25");
  EXPECT_EQ(c.learning_rate, 0.25);
  ApplySetting(c, "outer-optimizer", "nesterov");
  EXPECT_EQ(c.outer.kind, OuterKind::kNesterov);
  ApplySetting(c, "hidden", "64,32,16");
  EXPECT_EQ(c.hidden, (std::vector<int>{64, 32, 16}));
  ApplySetting(c, "deterministic", "");  // a switch given bare
  EXPECT_TRUE(c.deterministic);
  ApplySetting(c, "seed", "18446744073709551615");
  EXPECT_EQ(c.seed, UINT64_MAX);
}

TEST(Settings, BadValuesNameTheKey) {
  auto message = [](std::string_view key, std::string_view text) -> std::string {
    TrainConfig c;
    try {
      ApplySetting(c, key, text);
    } catch (const SettingError& e) {
      return e.Render(Dashed);
    }
    return "";
  };
  EXPECT_EQ(message("threads", "0"), "--threads: must be between 1 and 4096 (or 'auto'), got 0");
  EXPECT_EQ(message("period", "x"), "--period: expected an integer or 'auto' or 'epoch', got 'x'");
  EXPECT_EQ(message("epsilon", "0"), "--epsilon: must be a number in (0, 1], got 0");
  EXPECT_TRUE(message("scheme", "fast").starts_with("--scheme: expected one of auto, sequential, hogwild"));
  EXPECT_EQ(message("hidden", "256,"), "--hidden: expected layer sizes like 256,128, got '256,'");
  EXPECT_EQ(message("seed", "-1"), "--seed: expected a non-negative integer, got '-1'");
  EXPECT_EQ(message("learnign-rate", "1"), "no setting 'learnign-rate' (did you mean --learning-rate?)");
}

TEST(Settings, ConfigsBuiltInCodeGetTheSameRanges) {
  TrainConfig c;
  c.threads = -1;
  EXPECT_TRUE(testing::Contains(RefusalBothWays(c), "--threads: must be between 1 and 4096 (or 0 for 'auto'), got -1"))
      << RefusalBothWays(c);
  c = {};
  c.l2 = -0.5;  // only -1 means auto
  EXPECT_TRUE(testing::Contains(RefusalBothWays(c), "--l2: must be a number in [0, 1000000000] (or -1 for 'auto')"))
      << RefusalBothWays(c);
  c = {};
  c.optimizer.momentum = 1;
  EXPECT_TRUE(testing::Contains(RefusalBothWays(c), "--momentum: must be a number in [0, 0.999999], got 1"))
      << RefusalBothWays(c);
  c = {};
  c.hidden = {256, 0};
  EXPECT_TRUE(testing::Contains(RefusalBothWays(c), "--hidden: expected layer sizes")) << RefusalBothWays(c);
  c = {};
  c.scheme = static_cast<SchemeKind>(99);  // not an enum value the table names
  EXPECT_TRUE(testing::Contains(RefusalBothWays(c), "--scheme: expected one of")) << RefusalBothWays(c);
}

TEST(Settings, RulesBetweenSettingsNameBothKeys) {
  TrainConfig c;
  c.scheme = SchemeKind::kHogwild;
  c.batch = 4;
  const std::string refusal = RefusalBothWays(c);
  // Spelled as flags for the command line, bare in what() (the Python module spells its own).
  EXPECT_TRUE(testing::Contains(refusal, "--batch 4 with --scheme hogwild: ")) << refusal;
  EXPECT_TRUE(testing::Contains(refusal, "\nbatch 4 with scheme hogwild: ")) << refusal;
  EXPECT_FALSE(testing::Contains(refusal, "`")) << refusal;
}

TEST(Settings, TheCommandLineDeclaresEveryKeyButTheSeed) {
  cli::RunArgs args;
  cli::OptionParser parser("train", "");
  cli::DeclareTrainingOptions(parser, args);
  const std::vector<std::string> names = parser.Names();
  std::vector<std::string> keys;
  for (const Setting& s : TrainSettings()) {
    if (s.key != "seed") keys.push_back(s.key);
  }
  EXPECT_EQ(names, keys);
  // A flag's value goes through the table: parsed, range-checked, stored.
  parser.Set("momentum", "0.5");
  EXPECT_EQ(args.config.optimizer.momentum, 0.5);
  EXPECT_THROW(parser.Set("momentum", "1"), cli::UsageError);
  EXPECT_TRUE(parser.IsSwitch("average-state"));
}

TEST(Settings, TheTrainerResolvesEveryAutomaticSetting) {
  const Dataset data = testing::MakeProblem(300, 20, 5, 2, 0.1, 3);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig given;  // everything automatic
  Trainer trainer(given, data, nullptr, *executor);
  const TrainConfig& r = trainer.config();
  EXPECT_NE(r.scheme, SchemeKind::kAuto);
  EXPECT_NE(r.optimizer.kind, OptimizerKind::kAuto);
  EXPECT_GE(r.epochs, 1);
  EXPECT_GT(r.learning_rate, 0);
  EXPECT_GT(r.decay, 0);
  EXPECT_GE(r.l2, 0);
  EXPECT_GE(r.batch, 1);
  EXPECT_GE(r.period, 0);
  // The resolved config is a config too: valid, and it resolves to itself (it writes values the
  // run derived, such as a linear schedule's decay, that nobody gave).
  const GivenSetting nothing = [](const Setting&) { return false; };
  EXPECT_NO_THROW(ValidateConfig(r, 1, nothing));
  Trainer again(CheckedConfig(r, 1, nothing), data, nullptr, *executor);
  EXPECT_EQ(again.RunIdentity(), trainer.RunIdentity());
}

TEST(Settings, TheRunIdentityKeepsItsFrozenLines) {
  // Checkpoints compare the identity key by key: these names are a file format (version 2 adds
  // its version line; every earlier name keeps its meaning and its form).
  const Dataset data = testing::MakeProblem(200, 10, 4, 2, 0.1, 5);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.learning_rate = 0.1;
  Trainer trainer(c, data, nullptr, *executor);
  std::vector<std::string> names;
  for (const std::string& line : testing::Lines(trainer.RunIdentity())) {
    names.push_back(line.substr(0, line.find('=')));
  }
  std::vector<std::string> frozen = {
      "identity", "model", "scheme", "order", "backend", "workers", "epochs", "eta0",
      "schedule", "decay", "l2", "normalize", "optimizer", "momentum", "rho", "beta1", "beta2",
      "epsilon", "batch", "period", "average_state", "hidden", "mlp_backend", "seed", "outputs",
      "features"};
  std::sort(names.begin(), names.end());
  std::sort(frozen.begin(), frozen.end());
  EXPECT_EQ(names, frozen);
  EXPECT_EQ(trainer.RunIdentity().rfind("identity=2\n", 0), 0u);
  EXPECT_TRUE(testing::Contains(trainer.RunIdentity(), "\neta0=0.10000000000000001\n"));
  EXPECT_TRUE(testing::Contains(trainer.RunIdentity(), "\nhidden=-\n"));
  EXPECT_TRUE(testing::Contains(trainer.RunIdentity(), "\nmlp_backend=-\n"));
}

// The ranks' combination's settings apply across ranks whatever the scheme inside a rank, and
// still under their own conditions: the outer momentum only with an outer rule that has one.
TEST(Settings, SettingsOfTheRanksCombinationKeepTheirOwnConditions) {
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  const Setting& momentum = FindSetting("outer-momentum");
  const Setting& rate = FindSetting("outer-learning-rate");
  EXPECT_NE(WhyNotApplied(rate, c, 1), "");  // one process, sequential: no average at all
  EXPECT_EQ(WhyNotApplied(rate, c, 2), "");  // the ranks average
  EXPECT_TRUE(testing::Contains(WhyNotApplied(momentum, c, 2), "outer-optimizer"))
      << WhyNotApplied(momentum, c, 2);
  c.outer.kind = OuterKind::kNesterov;
  EXPECT_EQ(WhyNotApplied(momentum, c, 2), "");
}

}  // namespace
}  // namespace parsgd
