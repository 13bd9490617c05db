#include "parsgd/io/model_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <variant>
#include <vector>

#include "parsgd/util/error.hpp"
#include "test_support.hpp"
#include "util/xxhash64.hpp"  // internal: to forge files with valid checksums

namespace parsgd {
namespace {

LinearModel Example() {
  LinearModel m(ModelKind::kSoftmax, 5, 3, ClassLabels{{-2.f, 1.f, 7.5f}});
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
  EXPECT_EQ(back.labels().values, (std::vector<float>{-2.f, 1.f, 7.5f}));
  EXPECT_EQ(loaded.reading.zero_based, ZeroBased::kAuto);
  EXPECT_FALSE(loaded.reading.csv_label_column.has_value());
  ASSERT_EQ(back.weights().size(), m.weights().size());
  for (std::size_t i = 0; i < m.weights().size(); ++i) EXPECT_EQ(back.weights()[i], m.weights()[i]);
  LinearModel binary(ModelKind::kHinge, 2, 0, ClassLabels{{1.f, 2.f}});
  SaveModel(binary, dir.File("b.bin"), "", {.zero_based = ZeroBased::kYes});
  const LoadedModel b = LoadModel(dir.File("b.bin"));
  EXPECT_EQ(std::get<LinearModel>(b.model).labels().values, (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(b.reading.zero_based, ZeroBased::kYes);
  SaveModel(binary, dir.File("b.bin"), "", {.zero_based = ZeroBased::kNo});
  EXPECT_EQ(LoadModel(dir.File("b.bin")).reading.zero_based, ZeroBased::kNo);
  // A CSV label column, empty (the first) or named, and the weights after it as before.
  for (const std::string& column : {std::string(), std::string("class"), std::string(4096, 'x')}) {
    SaveModel(m, dir.File("c.bin"), "s\n", {.csv_label_column = column, .csv_feature_columns = 4});
    const LoadedModel c = LoadModel(dir.File("c.bin"));
    EXPECT_EQ(c.reading.csv_label_column, std::optional<std::string>(column));
    EXPECT_EQ(c.reading.csv_feature_columns, 4u);
    EXPECT_EQ(c.settings, "s\n");
    const LinearModel& cm = std::get<LinearModel>(c.model);
    EXPECT_EQ(cm.labels().values, m.labels().values);
    EXPECT_TRUE(std::equal(cm.weights().begin(), cm.weights().end(), m.weights().begin(),
                           m.weights().end()));
  }
  EXPECT_THROW(SaveModel(m, dir.File("c.bin"), "", {.csv_label_column = std::string(4097, 'x')}),
               Error);
  // Class names, any bytes (a comma, a space, a newline), one per class.
  LinearModel named(ModelKind::kLogistic, 2, 0, ClassLabels{{0.f, 2.f}, {"a b,\n", "z"}});
  SaveModel(named, dir.File("n.bin"), "");
  const ClassLabels back_names = std::get<LinearModel>(LoadModel(dir.File("n.bin")).model).labels();
  EXPECT_EQ(back_names.values, (std::vector<float>{0.f, 2.f}));
  EXPECT_EQ(back_names.names, (std::vector<std::string>{"a b,\n", "z"}));
}

TEST(ModelFile, ClassLabelsMustBeOnePerClassInAscendingOrder) {
  EXPECT_THROW(LinearModel(ModelKind::kSoftmax, 2, 3, ClassLabels{{1.f, 2.f}}), Error);
  EXPECT_THROW(LinearModel(ModelKind::kLogistic, 2, 0, ClassLabels{{2.f, 1.f}}), Error);
  EXPECT_THROW(LinearModel(ModelKind::kLogistic, 2, 0, ClassLabels{{1.f, 1.f}}), Error);
  EXPECT_EQ(LinearModel(ModelKind::kLogistic, 2, 0).labels().values,
            (std::vector<float>{-1.f, 1.f}));
  MlpModel mlp({2, 3}, 1);
  EXPECT_EQ(mlp.labels().values, (std::vector<float>{0.f, 1.f, 2.f}));
  EXPECT_THROW(mlp.set_labels(ClassLabels{{0.f, 1.f}}), Error);
  EXPECT_THROW(mlp.set_labels(ClassLabels{{0.f, 5.f, 4.f}}), Error);
}

TEST(ModelFile, RoundTripsAnMlp) {
  testing::TempDir dir;
  MlpModel m({6, 4, 3}, 9);
  m.input_scale()[2] = 0.5f;
  m.set_labels(ClassLabels{{1.f, 3.f, 10.f}});
  SaveModel(m, dir.File("mlp.bin"), "model=mlp\n",
            {.zero_based = ZeroBased::kNo, .csv_label_column = "y"});
  const LoadedModel loaded = LoadModel(dir.File("mlp.bin"));
  const MlpModel& back = std::get<MlpModel>(loaded.model);
  EXPECT_EQ(back.sizes(), m.sizes());
  EXPECT_EQ(back.input_scale()[2], 0.5f);
  EXPECT_EQ(back.input_scale()[0], 1.f);
  EXPECT_TRUE(std::equal(back.params().begin(), back.params().end(), m.params().begin(), m.params().end()));
  EXPECT_EQ(loaded.settings, "model=mlp\n");
  EXPECT_EQ(back.labels().values, (std::vector<float>{1.f, 3.f, 10.f}));
  EXPECT_EQ(loaded.reading.zero_based, ZeroBased::kNo);
  EXPECT_EQ(loaded.reading.csv_label_column, std::optional<std::string>("y"));
  const std::string good = testing::ReadFile(dir.File("mlp.bin"));
  std::string flipped = good;
  flipped[good.size() - 12] ^= 0x01;
  ExpectRefused(dir.Write("flipped.bin", flipped), "corrupted");
  ExpectRefused(dir.Write("short.bin", good.substr(0, good.size() - 3)), "truncated");
  std::string sizes = good;
  sizes[41] = 1;  // one layer size (after the CSV label column "y", its width, no hashing, no CSV record)
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
  huge[32 + 5] = 1;  // the feature count, after the (empty) CSV label column, no hashing, no CSV record
  ExpectRefused(dir.Write("huge.bin", huge), "inconsistent shape");
  std::string column = good;
  column[20 + 1] = 0x20;  // a CSV label column of 8191 bytes
  ExpectRefused(dir.Write("column.bin", column), "CSV label column of 8191 bytes");
}

template <class T>
void Put(std::string& out, T value, std::size_t at) {
  std::memcpy(out.data() + at, &value, sizeof(T));
}

template <class T>
std::string Bytes(T value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof(T));
}

// An MLP file header (format version 2) with these layer sizes, class labels 0, 1, ..., no
// settings, input scales of 1, the parameter count they need, then `tail` (too few bytes for the
// parameters).
std::string MlpHeader(const std::vector<uint32_t>& sizes, const std::string& tail) {
  std::string out("\x89PSGM\r\n\x1A", 8);
  out += Bytes<uint32_t>(2) + Bytes<uint32_t>(4) + Bytes<uint32_t>(0);
  out += Bytes<uint32_t>(sizes.size());
  for (uint32_t size : sizes) out += Bytes(size);
  for (uint32_t k = 0; k < sizes.back() && k < 1000; ++k) out += Bytes(static_cast<float>(k));
  out += Bytes<uint32_t>(0);
  if (sizes.front() < 1000) {
    for (uint32_t i = 0; i < sizes.front(); ++i) out += Bytes(1.f);
  }
  const std::vector<int> as_int(sizes.begin(), sizes.end());
  const bool possible = sizes.front() < 1000 && sizes.back() >= 2;
  if (possible) out += Bytes<uint64_t>(ParamCount(LayoutMlp(as_int)));
  return out + tail;
}

// Shapes that would ask for terabytes: each is refused from the header and the file size, before
// the model is allocated (the test would die of std::bad_alloc or the OOM killer otherwise).
TEST(ModelFile, AbsurdShapesAreRefusedBeforeAllocating) {
  testing::TempDir dir;
  SaveModel(Example(), dir.File("m.bin"), "x=1\n");  // softmax, 5 features, 3 outputs
  const std::string good = testing::ReadFile(dir.File("m.bin"));
  // After the index base (16), the CSV label column's length (20, 0: none), the hashed-text
  // field (24, 0: none) and the CSV record (28, 0: none); the class names' count (0: none)
  // follows the 3 class labels, then the targets (0: classes) and the loss's width.
  constexpr std::size_t kFeaturesAt = 32, kOutputsAt = 40, kLabelsAt = 44, kNamesAt = 56,
                        kTargetsAt = 60, kWidthAt = 64, kSettingsAt = 68, kCountAt = 76;

  std::string wide = good;  // 2^32 features x 3 outputs, consistent: 3 (2^32 + 1) weights
  Put<uint64_t>(wide, uint64_t{1} << 32, kFeaturesAt);
  Put<uint64_t>(wide, ((uint64_t{1} << 32) + 1) * 3, kCountAt);
  ExpectRefused(dir.Write("wide.bin", wide),
                "truncated model file: the header declares 12884901891 parameters, 80 bytes "
                "follow");
  std::string classes = good;  // 2^16 outputs: their class labels do not fit in the file
  Put<uint32_t>(classes, 1u << 16, kOutputsAt);
  ExpectRefused(dir.Write("classes.bin", classes),
                "truncated model file: 65536 class labels declared, 120 bytes follow");
  std::string outputs = good;
  Put<uint32_t>(outputs, 1u << 20, kOutputsAt);
  ExpectRefused(dir.Write("outputs.bin", outputs),
                "inconsistent shape: 1048576 outputs for a softmax model: expected 2 to 65536");
  std::string binary = good;
  Put<uint32_t>(binary, 0, 12);  // logistic with 2 outputs (3 or more are one-vs-rest)
  Put<uint32_t>(binary, 2, kOutputsAt);
  ExpectRefused(dir.Write("binary.bin", binary),
                "inconsistent shape: 2 outputs for a logistic model: expected 1, or 3 to 65536 "
                "(one-vs-rest)");
  std::string count = good;
  Put<uint64_t>(count, uint64_t{1} << 62, kCountAt);
  ExpectRefused(dir.Write("count.bin", count),
                "inconsistent shape: 4611686018427387904 weights for 5 features and 3 outputs, "
                "expected 18");
  std::string label = good;
  Put<float>(label, std::numeric_limits<float>::quiet_NaN(), kLabelsAt);
  ExpectRefused(dir.Write("label.bin", label), "model file holds a non-finite class label");
  std::string names = good;
  Put<uint32_t>(names, 2, kNamesAt);
  ExpectRefused(dir.Write("names.bin", names), "model file has 2 class names for 3 classes");
  std::string name = good;
  Put<uint32_t>(name, 3, kNamesAt);
  Put<uint32_t>(name, 0xffffffffu, kNamesAt + 4);
  ExpectRefused(dir.Write("name.bin", name), "a class name of 4294967295 bytes");
  std::string values = good;  // real-valued targets for a softmax model
  Put<uint32_t>(values, 1, kTargetsAt);
  ExpectRefused(dir.Write("values.bin", values),
                "inconsistent shape: targets real values for a softmax model");
  std::string width = good;
  Put<float>(width, 0.f, kWidthAt);
  ExpectRefused(dir.Write("width.bin", width), "loss epsilon 0: expected a finite value above 0");
  std::string settings = good;
  Put<uint32_t>(settings, 0xffffffffu, kSettingsAt);
  ExpectRefused(dir.Write("settings.bin", settings), "truncated model file (in the settings)");

  // MLPs: 2-16777216-16777216-2 (2^48 parameters), an input layer of 2^24 with no room for its
  // scales, a layer past the 2^24 bound.
  const uint64_t huge = ParamCount(LayoutMlp({2, 1 << 24, 1 << 24, 2}));
  ExpectRefused(dir.Write("deep.bin", MlpHeader({2, 1u << 24, 1u << 24, 2}, std::string(64, 'x'))),
                "truncated model file: the header declares " + std::to_string(huge) +
                    " parameters, 64 bytes follow");
  ExpectRefused(dir.Write("inputs.bin", MlpHeader({1u << 24, 10}, std::string(64, 'x'))),
                "truncated model file: 16777216 input scales declared, 64 bytes follow");
  ExpectRefused(dir.Write("layer.bin", MlpHeader({1u << 25, 10}, "")),
                "MLP layer size 33554432 out of range");
}

// The checksum of a forged file whose parameters start at `params_at`, made valid again.
void Rehash(std::string& file, std::size_t params_at) {
  const std::size_t checksum_at = file.size() - 8;
  const uint64_t checksum = Xxh64(file.data() + params_at, checksum_at - params_at,
                                  Xxh64(file.data(), params_at, 0));
  Put<uint64_t>(file, checksum, checksum_at);
}

TEST(ModelFile, RefusesClassLabelsOutOfOrderAndUnknownIndexBases) {
  testing::TempDir dir;
  SaveModel(Example(), dir.File("m.bin"), "x=1\n");  // labels -2, 1, 7.5 at 44, 48, 52
  const std::string good = testing::ReadFile(dir.File("m.bin"));
  constexpr std::size_t kParamsAt = 76;
  std::string order = good;
  Put<float>(order, 7.5f, 48);
  Rehash(order, kParamsAt);
  ExpectRefused(dir.Write("order.bin", order), "class labels are not in ascending order");
  std::string base = good;
  Put<uint32_t>(base, 3, 16);
  Rehash(base, kParamsAt);
  ExpectRefused(dir.Write("base.bin", base), "unknown index base 3");
}

// A version 1 file (before class labels and the index base), as the previous release wrote it.
std::string Version1(uint32_t kind, uint32_t outputs, float negative, float positive) {
  std::string out("\x89PSGM\r\n\x1A", 8);
  out += Bytes<uint32_t>(1) + Bytes<uint32_t>(kind) + Bytes<uint64_t>(2);
  out += Bytes<uint32_t>(outputs) + Bytes(negative) + Bytes(positive);
  out += Bytes<uint32_t>(4) + "x=1\n" + Bytes<uint64_t>(3 * outputs);
  const std::size_t params_at = out.size();
  for (uint32_t i = 0; i < 3 * outputs; ++i) out += Bytes(0.5f * static_cast<float>(i));
  out += Bytes<uint64_t>(0);
  Rehash(out, params_at);
  return out;
}

TEST(ModelFile, Version1FilesStillLoad) {
  testing::TempDir dir;
  const LoadedModel binary = LoadModel(dir.Write("v1.bin", Version1(0, 1, 0.f, 1.f)));
  const LinearModel& logistic = std::get<LinearModel>(binary.model);
  EXPECT_EQ(logistic.kind(), ModelKind::kLogistic);
  EXPECT_EQ(logistic.labels().values, (std::vector<float>{0.f, 1.f}));
  EXPECT_EQ(logistic.weights()[2], 1.f);
  EXPECT_EQ(binary.settings, "x=1\n");
  EXPECT_EQ(binary.reading.zero_based, ZeroBased::kNo);  // version 1 read one-based LIBSVM only
  const LoadedModel softmax = LoadModel(dir.Write("v1s.bin", Version1(3, 4, -1.f, 1.f)));
  EXPECT_EQ(std::get<LinearModel>(softmax.model).labels().values,
            (std::vector<float>{0.f, 1.f, 2.f, 3.f}));
}

// Hashed text's settings (fastText's, VW's) come back as saved; a version 4 file (before the field) still loads,
// as not hashed; an unknown kind or settings out of range are refused.
TEST(ModelFile, HashedTextSettingsRoundTripAndVersion4FilesStillLoad) {
  testing::TempDir dir;
  const TextHashing hashing{.bits = 18, .ngrams = 3, .char_min = 2, .char_max = 5};
  SaveModel(Example(), dir.File("h.bin"), "x=1\n", {.hashing = hashing});
  const LoadedModel h = LoadModel(dir.File("h.bin"));
  ASSERT_TRUE(h.reading.hashing.has_value());
  EXPECT_EQ(*h.reading.hashing, hashing);
  EXPECT_EQ(std::get<LinearModel>(h.model).weights()[3], Example().weights()[3]);
  const std::string hashed = testing::ReadFile(dir.File("h.bin"));
  std::string kind = hashed;
  Put<uint32_t>(kind, 4, 24);
  Rehash(kind, 84 + 16);
  ExpectRefused(dir.Write("kind.bin", kind), "unknown hashed-text kind 4");
  std::string bits = hashed;
  Put<uint32_t>(bits, 40, 28);
  Rehash(bits, 84 + 16);
  ExpectRefused(dir.Write("bits.bin", bits), "--hash-bits 40");
  // VW's: the bits and the interactions.
  const TextHashing vw{.bits = 20, .format = HashedText::kVw, .interactions = "ab,abc"};
  SaveModel(Example(), dir.File("vw.bin"), "x=1\n", {.hashing = vw});
  const LoadedModel v = LoadModel(dir.File("vw.bin"));
  ASSERT_TRUE(v.reading.hashing.has_value());
  EXPECT_EQ(*v.reading.hashing, vw);
  EXPECT_EQ(std::get<LinearModel>(v.model).weights()[5], Example().weights()[5]);
  // VW's --hash all rule (every name as text) reads back as itself.
  const TextHashing vw_all{.bits = 20, .format = HashedText::kVwAll};
  SaveModel(Example(), dir.File("vwall.bin"), "x=1\n", {.hashing = vw_all});
  EXPECT_EQ(*LoadModel(dir.File("vwall.bin")).reading.hashing, vw_all);

  SaveModel(Example(), dir.File("m.bin"), "x=1\n");
  std::string v6 = testing::ReadFile(dir.File("m.bin"));
  v6.erase(60, 8);  // the targets and the loss's width
  Put<uint32_t>(v6, 6, 8);
  Rehash(v6, 76);
  const LoadedModel six = LoadModel(dir.Write("v6.bin", v6));
  EXPECT_FALSE(std::get<LinearModel>(six.model).regression());
  EXPECT_EQ(std::get<LinearModel>(six.model).weights()[17], Example().weights()[17]);
  std::string v4 = v6;
  std::string v5 = v4;
  v4.erase(24, 8);  // the hashed-text field and the CSV record
  Put<uint32_t>(v4, 4, 8);
  Rehash(v4, 68);
  v5.erase(28, 4);  // the CSV record
  Put<uint32_t>(v5, 5, 8);
  Rehash(v5, 72);
  const LoadedModel five = LoadModel(dir.Write("v5.bin", v5));
  EXPECT_EQ(five.reading.csv_schema, nullptr);
  EXPECT_EQ(std::get<LinearModel>(five.model).weights()[17], Example().weights()[17]);
  const LoadedModel old = LoadModel(dir.Write("v4.bin", v4));
  EXPECT_FALSE(old.reading.hashing.has_value());
  EXPECT_EQ(std::get<LinearModel>(old.model).labels().values,
            std::get<LinearModel>(LoadModel(dir.File("m.bin")).model).labels().values);
  EXPECT_EQ(std::get<LinearModel>(old.model).weights()[17], Example().weights()[17]);
}

// A CSV table's record (columns, categorical values, hashing, weight column, missing rule) comes
// back as saved; damaged counts are refused before allocating.
TEST(ModelFile, TheCsvRecordRoundTrips) {
  testing::TempDir dir;
  auto schema = std::make_shared<CsvSchema>();
  schema->named = true;
  schema->label_name = "class";
  schema->columns = {{.name = "color", .categorical = true, .values = {"blue", "red"}},
                     {.name = "x"}};
  DataReading reading{.csv_label_column = "class", .csv_feature_columns = 2};
  reading.csv_schema = schema;
  reading.csv_weight_column = "w";
  reading.csv_missing = CsvMissing::kZero;
  SaveModel(Example(), dir.File("c.bin"), "x=1\n", reading);
  const LoadedModel c = LoadModel(dir.File("c.bin"));
  ASSERT_NE(c.reading.csv_schema, nullptr);
  EXPECT_EQ(*c.reading.csv_schema, *schema);
  EXPECT_EQ(c.reading.csv_weight_column, "w");
  EXPECT_EQ(c.reading.csv_missing, CsvMissing::kZero);
  EXPECT_EQ(std::get<LinearModel>(c.model).weights()[4], Example().weights()[4]);
  schema->hash_bits = 12;  // hashed: no values recorded
  schema->columns[0].values.clear();
  SaveModel(Example(), dir.File("h.bin"), "x=1\n", reading);
  EXPECT_EQ(*LoadModel(dir.File("h.bin")).reading.csv_schema, *schema);
  // The column count, after the label column "class" (20: length 6, then 5 bytes and the 8-byte
  // width), the hashed-text field, the record's kind, flags, label name and hash bits.
  std::string columns = testing::ReadFile(dir.File("c.bin"));
  const std::size_t at = 24 + 5 + 8 + 4 + 4 + 4 + 4 + 5 + 4;
  Put<uint64_t>(columns, uint64_t{1} << 60, at);
  ExpectRefused(dir.Write("columns.bin", columns), "columns in");
}

TEST(ModelFile, AFailedSaveLeavesTheOldFile) {
  testing::TempDir dir;
  const std::string path = dir.Write("m.bin", "old");
  EXPECT_THROW(SaveModel(Example(), dir.File("missing/dir/m.bin"), ""), Error);
  EXPECT_EQ(testing::ReadFile(path), "old");
}

}  // namespace
}  // namespace parsgd
