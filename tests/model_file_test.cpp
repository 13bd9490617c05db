#include "parsgd/io/model_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <variant>

#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

LinearModel Example() {
  LinearModel m(ModelKind::kSoftmax, 5, 3);
  float v = -1.5f;
  for (float& w : m.weights()) w = (v += 0.25f);
  return m;
}

void ExpectRefused(const std::string& path, const std::string& message) {
  try {
    LoadModel(path);
    FAIL() << "accepted " << path;
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), path);
  }
}

TEST(ModelFile, RoundTripsEveryField) {
  testing::TempDir dir;
  const LinearModel m = Example();
  SaveModel(m, dir.File("m.bin"), "model=softmax\n");
  const LoadedModel loaded = LoadModel(dir.File("m.bin"));
  const LinearModel& back = std::get<LinearModel>(loaded.model);
  EXPECT_EQ(back.kind(), ModelKind::kSoftmax);
  EXPECT_EQ(back.features(), 5u);
  EXPECT_EQ(back.outputs(), 3);
  EXPECT_EQ(loaded.settings, "model=softmax\n");
  ASSERT_EQ(back.weights().size(), m.weights().size());
  for (std::size_t i = 0; i < m.weights().size(); ++i) EXPECT_EQ(back.weights()[i], m.weights()[i]);
  LinearModel binary(ModelKind::kHinge, 2, 0, BinaryLabels{0.f, 1.f});
  SaveModel(binary, dir.File("b.bin"), "");
  EXPECT_EQ(std::get<LinearModel>(LoadModel(dir.File("b.bin")).model).binary_labels().negative, 0.f);
}

TEST(ModelFile, RoundTripsAnMlp) {
  testing::TempDir dir;
  MlpModel m({6, 4, 3}, 9);
  m.input_scale()[2] = 0.5f;
  SaveModel(m, dir.File("mlp.bin"), "model=mlp\n");
  const LoadedModel loaded = LoadModel(dir.File("mlp.bin"));
  const MlpModel& back = std::get<MlpModel>(loaded.model);
  EXPECT_EQ(back.sizes(), m.sizes());
  EXPECT_EQ(back.input_scale()[2], 0.5f);
  EXPECT_EQ(back.input_scale()[0], 1.f);
  EXPECT_TRUE(std::equal(back.params().begin(), back.params().end(), m.params().begin(), m.params().end()));
  EXPECT_EQ(loaded.settings, "model=mlp\n");
  const std::string good = testing::ReadFile(dir.File("mlp.bin"));
  std::string flipped = good;
  flipped[good.size() - 12] ^= 0x01;
  ExpectRefused(dir.Write("flipped.bin", flipped), "corrupted");
  ExpectRefused(dir.Write("short.bin", good.substr(0, good.size() - 3)), "truncated");
  std::string sizes = good;
  sizes[16] = 1;  // one layer size: no longer an MLP
  ExpectRefused(dir.Write("sizes.bin", sizes), "an MLP of 1 layer sizes");
}

TEST(ModelFile, RefusesDamagedForeignAndTruncatedFiles) {
  testing::TempDir dir;
  SaveModel(Example(), dir.File("m.bin"), "x=1\n");
  const std::string good = testing::ReadFile(dir.File("m.bin"));

  std::string flipped = good;
  flipped[good.size() - 20] ^= 0x10;  // inside the weights
  ExpectRefused(dir.Write("flipped.bin", flipped), "corrupted");
  ExpectRefused(dir.Write("short.bin", good.substr(0, good.size() - 5)), "truncated");
  ExpectRefused(dir.Write("long.bin", good + "x"), "trailing bytes");
  ExpectRefused(dir.Write("foreign.bin", "1 1:0.5 2:1\n"), "not a parsgd model file");
  std::string version = good;
  version[8] = 9;
  ExpectRefused(dir.Write("version.bin", version), "unsupported model file version 9");
  ExpectRefused(dir.Write("head.bin", good.substr(0, 20)), "truncated");
  // A header that declares 2^40 features: refused by the size check, before any allocation.
  std::string huge = good;
  huge[16 + 5] = 1;
  ExpectRefused(dir.Write("huge.bin", huge), "inconsistent shape");
}

TEST(ModelFile, AFailedSaveLeavesTheOldFile) {
  testing::TempDir dir;
  const std::string path = dir.Write("m.bin", "old");
  EXPECT_THROW(SaveModel(Example(), dir.File("missing/dir/m.bin"), ""), Error);
  EXPECT_EQ(testing::ReadFile(path), "old");
}

}  // namespace
}  // namespace parsgd
