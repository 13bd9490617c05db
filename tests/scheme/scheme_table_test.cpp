// The scheme table (scheme/scheme_kind.hpp) is the one place a scheme's facts live: every row's
// runner is built and runs an epoch wherever the row says the scheme runs, every other combination
// is refused by name, and the help and the predicates say what the rows say.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/scheme/scheme_kind.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

struct Case {
  ModelKind model;
  Solver solver;
  Backend backend;
};

// The combinations the table speaks of: every model family and solver on the cpu backend, and the
// linear models on the offload backend (its host fallback where no GPU is present).
std::vector<Case> Cases() {
  std::vector<Case> out;
  for (ModelKind model : {ModelKind::kLogistic, ModelKind::kSoftmax, ModelKind::kMlp}) {
    out.push_back({model, Solver::kSgd, Backend::kCpu});
  }
  out.push_back({ModelKind::kLogistic, Solver::kCd, Backend::kCpu});
  out.push_back({ModelKind::kLogistic, Solver::kDualCd, Backend::kCpu});
  out.push_back({ModelKind::kLogistic, Solver::kNewton, Backend::kCpu});
  out.push_back({ModelKind::kLogistic, Solver::kSgd, Backend::kOffload});
  return out;
}

TrainConfig ConfigFor(const SchemeInfo& row, const Case& c) {
  TrainConfig config;
  config.scheme = row.kind;
  config.model = c.model;
  config.solver = c.solver;
  config.backend = c.backend;
  config.threads = 2;
  config.epochs = 1;
  if (c.model == ModelKind::kMlp) config.hidden = {6};
  if (c.solver == Solver::kDualCd) config.bias = Bias::kOff;
  return config;
}

bool RowRuns(const SchemeInfo& row, const Case& c) {
  return TrainsModel(row, c.model) && RunsSolver(row, c.solver) && RunsOn(row, c.backend);
}

std::string Describe(const SchemeInfo& row, const Case& c) {
  return std::string(row.name) + " model " + testing::Name(c.model) + " solver " +
         NameOf<Solver>(kSolvers, c.solver) + " backend " + NameOf<Backend>(kBackends, c.backend);
}

TEST(SchemeTable, EveryRowRunsWhereItSaysAndIsRefusedByNameElsewhere) {
  const Dataset binary = testing::MakeProblem(96, 12, 4, 2, 0.05, 3);
  const Dataset blobs = testing::Blobs(96, 4);
  auto executor = MakeTbbExecutor(2);
  for (const SchemeInfo& row : kSchemes) {
    for (const Case& c : Cases()) {
      const TrainConfig config = ConfigFor(row, c);
      const std::string refusal = testing::Refusal(config);
      if (!RowRuns(row, c)) {
        EXPECT_TRUE(testing::Contains(refusal, std::string("not ") + row.name))
            << Describe(row, c) << ": " << refusal;
        continue;
      }
      ASSERT_EQ(refusal, "") << Describe(row, c);
      const Dataset& data = c.model == ModelKind::kLogistic ? binary : blobs;
      Trainer trainer(config, data, nullptr, *executor);
      if (row.kind != SchemeKind::kAuto) {
        EXPECT_EQ(trainer.settings().scheme, row.kind) << Describe(row, c);
      }
      const EpochReport report = trainer.RunEpoch();
      EXPECT_EQ(report.updates, data.rows()) << Describe(row, c);
      EXPECT_TRUE(std::isfinite(report.objective)) << Describe(row, c);
    }
  }
}

TEST(SchemeTable, MinibatchesDeterminismAndRanksAreRefusedWhereTheRowSays) {
  for (const SchemeInfo& row : kSchemes) {
    if (!TrainsModel(row, ModelKind::kLogistic) || !RunsSolver(row, Solver::kSgd)) continue;
    TrainConfig batch;
    batch.scheme = row.kind;
    batch.batch = 8;
    EXPECT_EQ(testing::Refusal(batch).empty(), row.minibatch) << row.name;
    TrainConfig deterministic;
    deterministic.scheme = row.kind;
    deterministic.deterministic = true;
    EXPECT_EQ(testing::Refusal(deterministic).empty(), row.deterministic) << row.name;
  }
  for (const SchemeInfo& row : kSchemes) {
    TrainConfig config;
    config.scheme = row.kind;
    config.model = TrainsModel(row, ModelKind::kLogistic) ? ModelKind::kLogistic : ModelKind::kMlp;
    std::string refusal;
    try {
      ValidateConfig(config, 2);
    } catch (const SettingError& e) {
      refusal = e.what();
    }
    EXPECT_EQ(refusal.empty(), RunsInsideRanks(row)) << row.name << ": " << refusal;
  }
}

TEST(SchemeTable, TheHelpListsEveryRowAndItsCitation) {
  const Setting& scheme = FindSetting("scheme");
  ASSERT_EQ(scheme.choices.size(), std::size(kSchemes));
  for (std::size_t i = 0; i < std::size(kSchemes); ++i) {
    EXPECT_EQ(scheme.choices[i].first, kSchemes[i].name);
    EXPECT_TRUE(testing::Contains(scheme.choices[i].second, kSchemes[i].help));
    EXPECT_TRUE(testing::Contains(scheme.choices[i].second, kSchemes[i].citation));
  }
  // --deterministic and --backend name exactly the rows that are deterministic and that offload.
  const std::string deterministic = FindSetting("deterministic").help;
  const std::string backend = FindSetting("backend").help;
  for (const SchemeInfo& row : kSchemes) {
    if (row.kind == SchemeKind::kAuto) continue;
    const std::string word = std::string(" ") + row.name;
    EXPECT_EQ(testing::Contains(deterministic, word + ",") ||
                  testing::Contains(deterministic, word + ")") ||
                  testing::Contains(deterministic, word + " and"),
              row.deterministic)
        << row.name << " in: " << deterministic;
    EXPECT_EQ(testing::Contains(backend, word + ",") || testing::Contains(backend, word + ")") ||
                  testing::Contains(backend, word + " and"),
              RunsOn(row, Backend::kOffload))
        << row.name << " in: " << backend;
  }
}

TEST(SchemeTable, PredicatesAreTheRowsFamilies) {
  for (const SchemeInfo& row : kSchemes) {
    EXPECT_EQ(IsReplicaScheme(row.kind), row.family == SchemeFamily::kReplica) << row.name;
    EXPECT_EQ(IsModelPartition(row.kind), row.family == SchemeFamily::kPartition) << row.name;
    EXPECT_EQ(IsDeterministic(row.kind), row.deterministic) << row.name;
    EXPECT_EQ(std::string(SchemeName(row.kind)), row.name);
    EXPECT_EQ(FindByName<SchemeKind>(kSchemeKinds, row.name), row.kind);
  }
  EXPECT_EQ(SchemeNames([](const SchemeInfo& r) { return r.family == SchemeFamily::kReplica; }),
            "average, gossip and elastic");
}

}  // namespace
}  // namespace parsgd
