// The data of a run over several ranks (threads standing in for them, MakeThreadGroup): the
// collectives; every row in exactly one rank's share, the shares in order being the file, for any
// rank count and any file; the whole file's feature count, index base and first error on every
// rank, a failure on one rank ending all of them; the labels mapped as the whole file maps them.
#include "parsgd/data/shard.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "model/linear/linear_settings.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::RunRanks;

TEST(ShardRange, CoversEveryElementOnceInOrder) {
  for (uint64_t count :
       {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{100}, (uint64_t{1} << 62) + 3}) {
    for (int parts = 1; parts <= 9; ++parts) {
      uint64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const auto [first, last] = ShardRange(count, p, parts);
        ASSERT_EQ(first, next) << count << " in " << parts;
        ASSERT_LE(first, last);
        ASSERT_LE(last - first, count / parts + 1);
        ASSERT_GE(last - first, count / parts);
        next = last;
      }
      EXPECT_EQ(next, count);
    }
  }
}

// The ring's exchange: each rank gets its left and right neighbours' values (with two ranks both
// are the other; alone, its own).
TEST(ThreadGroup, ExchangesWithTheRingNeighbours) {
  for (int ranks : {1, 2, 3, 5}) {
    std::vector<std::vector<float>> lefts(ranks), rights(ranks);
    const std::vector<std::string> errors = RunRanks(ranks, [&](Communicator& comm) {
      const std::vector<float> mine = {1.f * comm.rank(), 10.f * comm.rank()};
      std::vector<float> left(2), right(2);
      comm.ExchangeRing(mine, left, right);
      lefts[comm.rank()] = left;
      rights[comm.rank()] = right;
    });
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(errors[r], "");
      const int l = (r + ranks - 1) % ranks, n = (r + 1) % ranks;
      EXPECT_EQ(lefts[r], (std::vector<float>{1.f * l, 10.f * l})) << ranks << " ranks, rank " << r;
      EXPECT_EQ(rights[r], (std::vector<float>{1.f * n, 10.f * n}))
          << ranks << " ranks, rank " << r;
    }
  }
  SoloCommunicator solo;
  const std::vector<float> mine = {4.f};
  std::vector<float> left(1), right(1);
  solo.ExchangeRing(mine, left, right);
  EXPECT_EQ(left, mine);
  EXPECT_EQ(right, mine);
}

TEST(ThreadGroup, SumsMaximaBroadcastsAndAgreesOnTheFirstError) {
  std::vector<std::vector<uint64_t>> gathered(4);
  const std::vector<std::string> errors = RunRanks(4, [&](Communicator& comm) {
    const int r = comm.rank();
    std::vector<double> d = {1.0 * r, 0.5};
    comm.SumAll(d);
    EXPECT_EQ(d[0], 6.0);
    EXPECT_EQ(d[1], 2.0);
    EXPECT_EQ(comm.Max(static_cast<uint64_t>(10 - r)), 10u);
    EXPECT_EQ(comm.Sum(1), 4u);
    std::string word = r == 2 ? "from two" : "        ";
    comm.Broadcast(std::as_writable_bytes(std::span<char>(word.data(), word.size())), 2);
    EXPECT_EQ(word, "from two");
    gathered[r] = comm.Gather(static_cast<uint64_t>(r * r));
    comm.Agree(std::nullopt);  // no error: returns
    // Ranks 1 and 3 fail: every rank throws rank 1's message.
    comm.AgreeOn([&] {
      if (r % 2 == 1) throw Error("rank " + std::to_string(r) + " failed");
    });
    ADD_FAILURE() << "rank " << r << " did not throw";
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(gathered[r], (std::vector<uint64_t>{0, 1, 4, 9}));
    EXPECT_EQ(errors[r], "rank 1 failed") << r;
  }
}

// The shares of `path` over `ranks`, in rank order, concatenated into one list of rows.
struct Rows {
  std::vector<float> labels;
  std::vector<std::vector<std::pair<uint32_t, float>>> entries;
  uint64_t features = 0;
  ZeroBased zero_based = ZeroBased::kAuto;
};

void Append(const Dataset& d, Rows& out) {
  for (uint64_t i = 0; i < d.rows(); ++i) {
    out.labels.push_back(d.label(i));
    const SparseRow x = d.row(i);
    out.entries.emplace_back();
    for (uint32_t e = 0; e < x.nnz; ++e) out.entries.back().emplace_back(x.index[e], x.value[e]);
  }
}

Rows Whole(const Dataset& d) {
  Rows out;
  Append(d, out);
  out.features = d.features();
  out.zero_based = d.zero_based();
  return out;
}

Rows Shards(const std::string& path, int ranks, const LoadOptions& options = {}) {
  std::vector<Dataset> shares(ranks);
  const std::vector<std::string> errors = RunRanks(
      ranks, [&](Communicator& comm) { shares[comm.rank()] = LoadShard(path, options, comm); });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  Rows out;
  for (const Dataset& d : shares) {
    Append(d, out);
    EXPECT_EQ(d.features(), shares[0].features());
    EXPECT_EQ(d.zero_based(), shares[0].zero_based());
  }
  out.features = shares[0].features();
  out.zero_based = shares[0].zero_based();
  return out;
}

void ExpectSame(const Rows& a, const Rows& b, const std::string& what) {
  EXPECT_EQ(a.labels, b.labels) << what;
  EXPECT_EQ(a.entries, b.entries) << what;
  EXPECT_EQ(a.features, b.features) << what;
  EXPECT_EQ(a.zero_based, b.zero_based) << what;
}

TEST(LoadShard, LibsvmSharesAreTheFileForAnyRankCount) {
  testing::TempDir dir;
  std::string many;
  for (int i = 0; i < 500; ++i) {
    many += (i % 2 ? "+1" : "-1");
    for (int j = 0; j < i % 5; ++j)
      many.append(" ").append(std::to_string(1 + j * 8 + i % 7)).append(":1");
    many += (i % 50 == 7) ? "\n# a comment\n\n" : "\n";
  }
  const std::vector<std::pair<std::string, std::string>> files = {
      {"many", many},
      {"crlf", "1 1:0.5 3:2\r\n-1 2:1\r\n1 4:1\r\n"},
      {"no-final-newline", "1 1:1\n-1 2:2\n1 3:3"},
      {"fewer-lines-than-ranks", "1 1:1\n-1 2:1\n"},
      {"one-line", "1 5:1 9:2"},
      {"zero-last",
       "1 1:1\n-1 2:1\n1 3:1\n-1 4:1\n1 5:1\n-1 0:1\n"},  // zero-based by its last line
  };
  for (const auto& [name, text] : files) {
    const std::string path = dir.Write(name + ".svm", text);
    const Rows whole = Whole(ReadLibsvm(path));
    for (int ranks = 1; ranks <= 5; ++ranks) {
      ExpectSame(Shards(path, ranks), whole, name + ", " + std::to_string(ranks) + " ranks");
    }
  }
}

// A table's number columns are centred by the whole table's means whatever the ranks: its text
// read whole by every rank, or its binary cache in shares (the moments summed across the ranks).
TEST(LoadShard, ATableIsCentredByTheWholeTablesMeansAcrossRanks) {
  testing::TempDir dir;
  std::string table = "y,year,b\n";
  for (int i = 0; i < 37; ++i) table += fmt::format("{},{},{}\n", i % 2, 1970 + i % 13, i % 3);
  const std::string text = dir.Write("t.csv", table);
  ConvertToCache(text, {}, dir.File("t.bin"));
  LoadOptions options;
  options.center = CsvCenter::kAuto;
  const Dataset whole = LoadDataset(text, options);
  ASSERT_EQ(whole.csv_schema()->centres.size(), 2u);
  EXPECT_NE(whole.csv_schema()->centres[0], 0.f);
  for (const std::string& path : {text, dir.File("t.bin")}) {
    for (int ranks = 1; ranks <= 3; ++ranks) {
      ExpectSame(Shards(path, ranks, options), Whole(whole), path + ", " + std::to_string(ranks));
    }
  }
}

TEST(LoadShard, ABadLineOnOneRankEndsEveryRankWithItsWholeFileLineNumber) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 300; ++i) text += i == 250 ? "1 3:x\n" : "1 1:1 2:2\n";
  const std::string path = dir.Write("bad.svm", text);
  std::string expected;
  try {
    ReadLibsvm(path);
  } catch (const DataError& e) {
    expected = e.what();
  }
  ASSERT_TRUE(testing::Contains(expected, ":251:")) << expected;
  for (int ranks : {2, 3, 4}) {
    const std::vector<std::string> errors =
        RunRanks(ranks, [&](Communicator& comm) { LoadShard(path, {}, comm); });
    for (const std::string& e : errors) EXPECT_EQ(e, expected) << ranks << " ranks";
  }
  // A file missing (on one host: here, for all) ends every rank with the reader's message.
  const std::vector<std::string> missing =
      RunRanks(3, [&](Communicator& comm) { LoadShard(dir.File("none.svm"), {}, comm); });
  for (const std::string& e : missing)
    EXPECT_TRUE(testing::Contains(e, "none.svm: cannot open")) << e;
}

// fastText and VW text: each rank reads its byte range; the rows, the weights and the class
// names (one class met in a single share among them) are the whole file's on every rank.
TEST(LoadShard, HashedTextSharesAreTheFileWithItsClassNamesAndWeights) {
  testing::TempDir dir;
  std::string ft, vw;
  for (int i = 0; i < 400; ++i) {
    // "Rare", first of the names, is in the last share only: read alone, the others would
    // number "a", "b" and "c" from 0.
    const std::string name = i == 333 ? "Rare" : std::string(1, static_cast<char>('a' + i % 3));
    ft += "__label__" + name + " word" + std::to_string(i % 17) + " other" +
          std::to_string(i % 5) + (i % 90 == 5 ? "\n\n" : "\n");
    vw += std::string(i % 2 ? "1" : "-1") + (i % 7 == 0 ? " 2.5" : "") + " |f x" +
          std::to_string(i % 11) + ":0.5 y |g z" + std::to_string(i % 3) + "\n";
  }
  const std::string ft_path = dir.Write("t.ft", ft);
  const std::string vw_path = dir.Write("t.vw", vw);
  LoadOptions ft_options, vw_options;
  ft_options.format = DataFormat::kFasttext;
  vw_options.format = DataFormat::kVw;
  for (const auto& [path, options] :
       {std::pair{ft_path, ft_options}, std::pair{vw_path, vw_options}}) {
    const Dataset whole = LoadDataset(path, options);
    ASSERT_TRUE(whole.hashing().has_value());
    auto weights_of = [](const Dataset& d, std::vector<float>& out) {
      for (uint64_t i = 0; i < d.rows(); ++i) out.push_back(d.weights().empty() ? 1.f : d.weights()[i]);
    };
    std::vector<float> whole_weights;
    weights_of(whole, whole_weights);
    for (int ranks = 1; ranks <= 5; ++ranks) {
      const std::string what = path + ", " + std::to_string(ranks) + " ranks";
      std::vector<Dataset> shares(ranks);
      const std::vector<std::string> errors = RunRanks(
          ranks, [&](Communicator& comm) { shares[comm.rank()] = LoadShard(path, options, comm); });
      for (const std::string& e : errors) EXPECT_EQ(e, "") << what;
      Rows rows;
      std::vector<float> weights;
      for (const Dataset& d : shares) {
        Append(d, rows);
        weights_of(d, weights);
        EXPECT_EQ(d.class_names(), whole.class_names()) << what;
        EXPECT_EQ(d.features(), whole.features()) << what;
        ASSERT_TRUE(d.hashing().has_value()) << what;
        EXPECT_EQ(d.hashing()->bits, whole.hashing()->bits) << what;
      }
      const Rows expected = Whole(whole);
      EXPECT_EQ(rows.labels, expected.labels) << what;
      EXPECT_EQ(rows.entries, expected.entries) << what;
      EXPECT_EQ(weights, whole_weights) << what;
    }
  }
  // A bad line in the last share: every rank throws the whole file's message and line.
  const std::string bad = dir.Write("bad.vw", vw + "1 |f x:0.5zz\n");
  std::string expected;
  try {
    LoadDataset(bad, vw_options);
  } catch (const DataError& e) {
    expected = e.what();
  }
  ASSERT_TRUE(testing::Contains(expected, ":401:")) << expected;
  const std::vector<std::string> failed =
      RunRanks(3, [&](Communicator& comm) { LoadShard(bad, vw_options, comm); });
  for (const std::string& e : failed) EXPECT_EQ(e, expected);
}

TEST(LoadShard, BinaryCacheSharesAreItsRowsAndADamagedOneIsRefusedByEveryRank) {
  testing::TempDir dir;
  const Dataset made = testing::MakeProblem(3001, 60, 7, 2, 0.0, 3);
  const std::string path = dir.File("d.bin");
  WriteBinaryCache(made, path);
  const Rows whole = Whole(ReadBinaryCache(path));
  for (int ranks = 1; ranks <= 5; ++ranks)
    ExpectSame(Shards(path, ranks), whole, std::to_string(ranks));
  // One byte of the last rank's blocks changed: every rank reports the checksum.
  std::string bytes = testing::ReadFile(path);
  bytes[bytes.size() - 5] ^= 0x40;
  const std::string damaged = dir.Write("damaged.bin", bytes);
  const std::vector<std::string> errors =
      RunRanks(3, [&](Communicator& comm) { LoadShard(damaged, {}, comm); });
  for (const std::string& e : errors)
    EXPECT_TRUE(testing::Contains(e, "corrupted: the payload checksum")) << e;
}

TEST(LoadShard, CsvIsCutByRows) {
  testing::TempDir dir;
  std::string text = "label,a,b\n";
  for (int i = 0; i < 11; ++i)
    text.append(std::to_string(i % 2)).append(",").append(std::to_string(i)).append(",1\n");
  const std::string path = dir.Write("t.csv", text);
  const Rows whole = Whole(LoadDataset(path));
  for (int ranks = 1; ranks <= 4; ++ranks)
    ExpectSame(Shards(path, ranks), whole, std::to_string(ranks));
}

// A share that lacks a class (here rank 1's: only +1, and only class 3 of the softmax file's
// four) still maps every label as the whole file does.
TEST(MakeShareTargets, EveryRankMapsTheLabelsAsTheWholeFileDoes) {
  testing::TempDir dir;
  std::string binary, four;
  for (int i = 0; i < 90; ++i) {
    const bool middle = i >= 30 && i < 60;  // rank 1's share of 3
    binary.append(middle || i % 2 ? "+1" : "-1").append(" 1:1\n");
    four.append(std::to_string(middle ? 3 : i % 3)).append(" 1:1\n");
  }
  for (const auto& [name, text, kind] : {std::tuple{"binary.svm", binary, ModelKind::kLogistic},
                                         std::tuple{"four.svm", four, ModelKind::kSoftmax}}) {
    const std::string path = dir.Write(name, text);
    const Dataset whole = ReadLibsvm(path);
    const Targets expected = MakeTargets(kind, whole);
    std::vector<Targets> got(3);
    std::vector<uint64_t> first(3);
    const std::vector<std::string> errors = RunRanks(3, [&](Communicator& comm) {
      const Dataset share = LoadShard(path, {}, comm);
      got[comm.rank()] = MakeShareTargets(kind, share, comm);
      std::vector<uint64_t> rows = comm.Gather(share.rows());
      for (int r = 0; r < comm.rank(); ++r) first[comm.rank()] += rows[r];
    });
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(errors[r], "") << name;
      EXPECT_EQ(got[r].labels.values, expected.labels.values) << name << ", rank " << r;
      EXPECT_EQ(got[r].classes, expected.classes) << name;
      for (uint64_t i = 0; i < got[r].values.size(); ++i) {
        EXPECT_EQ(got[r].values[i], expected.values[first[r] + i]) << name << ", rank " << r;
      }
    }
    // Alone, rank 1's share would have had other classes: the agreement is what makes them equal.
    if (kind == ModelKind::kSoftmax) {
      EXPECT_THROW(MakeTargets(kind, RowRange(whole, 30, 60)), Error);
    }
  }
  // Three labels for a binary model: refused by every rank.
  const std::string three = dir.Write("three.svm", "1 1:1\n2 1:1\n3 1:1\n");
  const std::vector<std::string> errors = RunRanks(3, [&](Communicator& comm) {
    MakeShareTargets(ModelKind::kLogistic, LoadShard(three, {}, comm), comm);
  });
  for (const std::string& e : errors)
    EXPECT_TRUE(testing::Contains(e, "needs two label values")) << e;
}

// The linear models' data-derived settings (rates, L2, the automatic step) from the shares are
// those of the whole data: the counts and maxima exactly, the sums to their rounding.
TEST(ResolveLinearSettings, FromTheSharesAreThoseOfTheWholeData) {
  testing::TempDir dir;
  const Dataset made = testing::MakeProblem(2000, 300, 9, 2, 0.05, 21);
  const std::string path = dir.File("d.bin");
  WriteBinaryCache(made, path);
  const Dataset whole = ReadBinaryCache(path);
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    TrainConfig c;
    c.model = ModelKind::kLogistic;
    c.scheme = SchemeKind::kHogwild;
    c.optimizer.kind = optimizer;
    c.batch = 1;
    const auto executor = MakeThreadExecutor(1);
    const LinearSettings expected = ResolveLinearSettings(c, whole, *executor);
    std::vector<LinearSettings> got(3);
    const std::vector<std::string> errors = RunRanks(3, [&](Communicator& comm) {
      const auto own = MakeThreadExecutor(1);
      got[comm.rank()] = ResolveLinearSettings(c, LoadShard(path, {}, comm), *own, comm);
    });
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(errors[r], "");
      EXPECT_EQ(got[r].l2, expected.l2);
      EXPECT_NEAR(got[r].eta0, expected.eta0, 1e-12 * expected.eta0);
      EXPECT_NEAR(got[r].mean_squared_norm, expected.mean_squared_norm, 1e-12);
      EXPECT_NEAR(got[r].mean_l1_norm, expected.mean_l1_norm, 1e-12 * expected.mean_l1_norm);
      EXPECT_EQ(got[r].rates.size(), expected.rates.size());
      for (std::size_t j = 0; j < std::min(got[r].rates.size(), expected.rates.size()); ++j) {
        EXPECT_EQ(got[r].rates[j].step_scale, expected.rates[j].step_scale) << j;
        EXPECT_EQ(got[r].rates[j].shrink_rate, expected.rates[j].shrink_rate) << j;
      }
    }
  }
}

// The models' average and the evaluation of every rank's share together.
TEST(Ranks, AverageTheModelsAndEvaluateEveryShareTogether) {
  testing::TempDir dir;
  const Dataset made = testing::MakeProblem(999, 50, 6, 2, 0.05, 4);
  const std::string path = dir.File("d.bin");
  WriteBinaryCache(made, path);
  const Dataset whole = ReadBinaryCache(path);
  const Targets targets = MakeTargets(ModelKind::kLogistic, whole);
  LinearModel model(ModelKind::kLogistic, whole.features(), targets.classes);
  for (uint64_t j = 0; j < whole.features(); ++j)
    model.weights()[j] = 0.01f * static_cast<float>(j % 7) - 0.02f;
  auto executor = MakeTbbExecutor(1);
  const Evaluation expected = Evaluate(model, whole, targets, *executor);
  std::vector<Evaluation> got(3);
  std::vector<std::vector<float>> means(3);
  const std::vector<std::string> errors = RunRanks(3, [&](Communicator& comm) {
    const Dataset share = LoadShard(path, {}, comm);
    auto mine = MakeTbbExecutor(1);
    got[comm.rank()] = CombineEvaluations(
        Evaluate(model, share, MakeShareTargets(ModelKind::kLogistic, share, comm), *mine), comm);
    std::vector<float> v = {1.f * comm.rank(), 0.1f, -3.f + comm.rank()};
    comm.MeanAll(v);
    means[comm.rank()] = v;
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(errors[r], "");
    EXPECT_EQ(got[r].rows, expected.rows);
    EXPECT_NEAR(got[r].mean_loss, expected.mean_loss, 1e-12);
    EXPECT_NEAR(got[r].accuracy, expected.accuracy, 1e-12);
    EXPECT_EQ(means[r], (std::vector<float>{1.f, 0.1f, -2.f}));
  }
}

}  // namespace
}  // namespace parsgd
