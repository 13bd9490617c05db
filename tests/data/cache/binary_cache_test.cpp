#include "parsgd/data/binary_cache.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>

#include "data/cache/cache_format.hpp"  // internal: forges headers with valid checksums
#include "data_test_util.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/util/rng.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;
using testing::ExpectSameData;
using testing::WithDeclaredShape;

// Field offsets as documented in binary_cache.hpp.
constexpr std::size_t kVersionAt = 8;
constexpr std::size_t kRowsAt = 16;
constexpr std::size_t kIndicesAtField = 48;
constexpr std::size_t kFileSizeAt = 72;

uint64_t Field(const std::string& bytes, std::size_t at) {
  uint64_t v;
  std::memcpy(&v, bytes.data() + at, sizeof(v));
  return v;
}

SharedArray<float> Floats(const std::vector<float>& v) {
  AlignedArray<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
  return SharedArray<float>(std::move(out));
}

Dataset Small() {
  return testing::MakeDataset({{{0, 0.5f}, {3, -1.f}}, {}, {{1, 2.f}, {2, 1e-30f}, {4, 7.f}}},
                              {1.f, -1.f, 3.f}, 5);
}

Dataset Generated() {
  GeneratorParams params;
  params.rows = 3000;
  params.features = 2000;
  params.nnz_per_row = 40;
  return GenerateSparse(params);
}

TEST(BinaryCache, RoundTripsExactlyAndReadsInPlace) {
  testing::TempDir dir;
  for (const Dataset& original : {Small(), Generated()}) {
    const std::string path = dir.File("d.bin");
    WriteBinaryCache(original, path);
    const Dataset d = ReadBinaryCache(path);
    ExpectSameData(d, original);
    EXPECT_EQ(d.source(), path);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(d.offsets().data()) % kCacheLine, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(d.indices().data()) % kCacheLine, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(d.values().data()) % kCacheLine, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(d.labels().data()) % kCacheLine, 0u);
    // Zero copy: the arrays sit at the distances the file layout gives, in one mapping.
    const std::string bytes = testing::ReadFile(path);
    EXPECT_EQ(bytes.size() % 64, 0u);
    EXPECT_EQ(Field(bytes, kFileSizeAt), bytes.size());
    EXPECT_EQ(reinterpret_cast<const char*>(d.indices().data()) -
                  reinterpret_cast<const char*>(d.offsets().data()),
              static_cast<std::ptrdiff_t>(Field(bytes, kIndicesAtField) - 128));
  }
}

TEST(BinaryCache, TheDataOutlivesTheFileName) {
  testing::TempDir dir;
  WriteBinaryCache(Small(), dir.File("d.bin"));
  const Dataset d = ReadBinaryCache(dir.File("d.bin"));
  std::filesystem::remove(dir.File("d.bin"));  // the mapping stays valid
  ExpectSameData(d, Small());
}

TEST(BinaryCache, EmptyDatasetRoundTrips) {
  testing::TempDir dir;
  const Dataset empty = testing::MakeDataset({}, {}, 0);
  WriteBinaryCache(empty, dir.File("e.bin"));
  ExpectSameData(ReadBinaryCache(dir.File("e.bin")), empty);
}

TEST(BinaryCache, ADefaultConstructedDatasetIsRefused) {
  testing::TempDir dir;
  ExpectError([&] { WriteBinaryCache(Dataset(), dir.File("d.bin")); }, {"no row offsets"});
  EXPECT_FALSE(std::filesystem::exists(dir.File("d.bin")));
}

TEST(BinaryCache, SameDatasetGivesTheSameBytesAtAnyThreadCount) {
  testing::TempDir dir;
  const Dataset d = Generated();
  tbb::task_arena(1).execute([&] { WriteBinaryCache(d, dir.File("1.bin")); });
  tbb::task_arena(2).execute([&] { WriteBinaryCache(d, dir.File("2.bin")); });
  EXPECT_EQ(testing::ReadFile(dir.File("1.bin")), testing::ReadFile(dir.File("2.bin")));
}

// A cache of LIBSVM text remembers how its indices were read, so that a model trained on it reads
// later text the same way; the indices themselves are stored 0-based either way.
TEST(BinaryCache, RecordsTheIndexBaseOfItsLibsvmSource) {
  testing::TempDir dir;
  const Dataset zero = ParseLibsvm("1 0:1 2:1\n", "z", {});
  const Dataset one = ParseLibsvm("1 1:1 3:1\n", "o", {});
  WriteBinaryCache(zero, dir.File("z.bin"));
  WriteBinaryCache(one, dir.File("o.bin"));
  WriteBinaryCache(Small(), dir.File("s.bin"));
  const Dataset z = ReadBinaryCache(dir.File("z.bin"));
  EXPECT_EQ(z.zero_based(), ZeroBased::kYes);
  EXPECT_EQ(ReadBinaryCache(dir.File("o.bin")).zero_based(), ZeroBased::kNo);
  EXPECT_EQ(ReadBinaryCache(dir.File("s.bin")).zero_based(), ZeroBased::kAuto);
  ExpectSameData(z, ReadBinaryCache(dir.File("o.bin")));  // the same resolved feature ids
}

// What text says beyond its rows stays with them: class names, row weights, the hashing of words,
// and the label set's size in the header (0 past 65,536 distinct labels).
TEST(BinaryCache, KeepsClassNamesWeightsHashingAndTheLabelSet) {
  testing::TempDir dir;
  Dataset::Parts parts = Small().parts();
  parts.labels = Floats({2.f, 0.f, 1.f});
  parts.class_names = {"cat", "dog", "fish"};
  parts.weights = Floats({1.f, 0.5f, 3.f});
  parts.hashing = TextHashing{.bits = 10, .format = HashedText::kFasttext};
  const Dataset named(std::move(parts));
  WriteBinaryCache(named, dir.File("n.bin"));
  const Dataset read = ReadBinaryCache(dir.File("n.bin"));
  ExpectSameData(read, named);
  EXPECT_EQ(read.class_names(), named.class_names());
  EXPECT_TRUE(testing::SameBytes(read.weights(), named.weights()));
  ASSERT_TRUE(read.hashing().has_value());
  EXPECT_EQ(read.hashing()->format, HashedText::kFasttext);
  EXPECT_EQ(read.hashing()->bits, 10u);
  EXPECT_EQ(ReadBinaryCacheShape(dir.File("n.bin")).classes, 3u);
  WriteBinaryCache(Small(), dir.File("s.bin"));
  const Dataset small = ReadBinaryCache(dir.File("s.bin"));
  EXPECT_TRUE(small.class_names().empty());
  EXPECT_TRUE(small.weights().empty());
  EXPECT_FALSE(small.hashing().has_value());
  EXPECT_EQ(ReadBinaryCacheShape(dir.File("s.bin")).classes, 3u);  // 1, -1 and 3
  std::vector<testing::Entries> rows(70000);
  std::vector<float> labels(rows.size());
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<float>(i) * 0.5f;
  WriteBinaryCache(testing::MakeDataset(rows, labels, 1), dir.File("r.bin"));
  EXPECT_EQ(ReadBinaryCacheShape(dir.File("r.bin")).classes, 0u);  // a real-valued target
}

TEST(BinaryCache, RecognisesItsMagic) {
  testing::TempDir dir;
  WriteBinaryCache(Small(), dir.File("d.bin"));
  EXPECT_TRUE(HasBinaryCacheMagic(dir.File("d.bin")));
  EXPECT_FALSE(HasBinaryCacheMagic(dir.Write("t.svm", "1 1:1\n")));
  EXPECT_FALSE(HasBinaryCacheMagic(dir.File("missing")));
}

class BinaryCacheDamage : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteBinaryCache(Generated(), dir_.File("good.bin"));
    good_ = testing::ReadFile(dir_.File("good.bin"));
  }
  // The good file with its header changed by `change` and resealed (a valid header checksum).
  std::string WithHeader(const std::function<void(cache_internal::Header&)>& change) const {
    cache_internal::Header h;
    std::memcpy(&h, good_.data(), sizeof(h));
    change(h);
    h.header_checksum = cache_internal::HeaderChecksum(h);
    std::string bytes = good_;
    std::memcpy(bytes.data(), &h, sizeof(h));
    return bytes;
  }
  // Writes `bytes` and expects ReadBinaryCache to refuse it with a message naming the file.
  void ExpectRefused(const std::string& bytes, const std::string& fragment) {
    const std::string path = dir_.Write("bad.bin", bytes);
    ExpectError([&] { ReadBinaryCache(path); }, {path + ": ", fragment});
  }

  testing::TempDir dir_;
  std::string good_;
};

TEST_F(BinaryCacheDamage, ForeignFilesAreNotCaches) {
  std::string noise(5000, '\0');
  Rng rng(5);
  for (char& c : noise) c = static_cast<char>(rng.Next());
  ExpectRefused(noise, "not a parsgd binary cache");
  ExpectRefused("", "not a parsgd binary cache");
  ExpectRefused("+1 1:0.5 2:1\n", "not a parsgd binary cache");
}

TEST_F(BinaryCacheDamage, TruncatedFilesAreRefused) {
  ExpectRefused(good_.substr(0, good_.size() - 64), "truncated: the header declares");
  ExpectRefused(good_.substr(0, good_.size() / 2), "truncated");
  ExpectRefused(good_.substr(0, 100), "truncated: 100 bytes, shorter than the 128-byte header");
}

TEST_F(BinaryCacheDamage, AnyFlippedByteIsCorruption) {
  // Header fields, each section, and the padding at the very end.
  const std::size_t indices_at = Field(good_, kIndicesAtField);
  for (std::size_t at : {kRowsAt, std::size_t{100}, std::size_t{130}, indices_at + 3,
                         good_.size() / 2, good_.size() - 70, good_.size() - 1}) {
    SCOPED_TRACE(at);
    std::string bad = good_;
    bad[at] ^= 0x10;
    ExpectRefused(bad, "corrupted");
  }
}

TEST_F(BinaryCacheDamage, TrailingBytesAreRefused) {
  ExpectRefused(good_ + std::string(64, '\0'), "corrupted: 64 unexpected bytes");
}

TEST_F(BinaryCacheDamage, OtherVersionsAreRefused) {
  for (char version : {0, 3}) {
    std::string bad = good_;
    bad[kVersionAt] = version;
    ExpectRefused(bad, "unsupported binary cache version " + std::to_string(version) +
                           ": this build reads versions 1 to 2");
  }
}

// A version 1 cache (no weights, record or label set; those header bytes zero) reads as the same
// rows; with those bytes not zero it is invalid.
TEST_F(BinaryCacheDamage, VersionOneFilesStillRead) {
  cache_internal::Header h;
  std::memcpy(&h, good_.data(), sizeof(h));
  ASSERT_EQ(h.version, 2u);
  ASSERT_EQ(h.classes, 2u);  // the generator's -1 and +1
  const std::string v1 = WithHeader([](cache_internal::Header& v) {
    v.version = 1;
    v.classes = 0;
  });
  ExpectSameData(ReadBinaryCache(dir_.Write("v1.bin", v1)), Generated());
  EXPECT_EQ(ReadBinaryCacheShape(dir_.File("v1.bin")).classes, 0u);  // not recorded
  ExpectRefused(WithHeader([](cache_internal::Header& v) { v.version = 1; }),
                "invalid: version 1's reserved bytes 96-119 are not zero");
}

TEST_F(BinaryCacheDamage, UnknownFlagsAndTooManyClassesAreInvalid) {
  ExpectRefused(WithHeader([](cache_internal::Header& h) { h.flags = 4; }),
                "invalid: unknown flags 0x4");
  ExpectRefused(WithHeader([](cache_internal::Header& h) { h.classes = 70000; }),
                "invalid: 70000 classes, more than 65536");
}

// Headers that pass every header check but declare sizes no file of this size (or any file) can
// hold: refused from the header and the file size, before anything of the declared size is
// allocated or read (2^40 rows would be 8 TiB of row offsets).
TEST_F(BinaryCacheDamage, AbsurdDeclaredSizesAreRefusedBeforeAllocating) {
  const uint64_t features = Field(good_, 24);
  const uint64_t nnz = Field(good_, 32);
  const uint64_t declared = cache_internal::CanonicalLayout(uint64_t{1} << 40, nnz)->file_size;
  ExpectRefused(WithDeclaredShape(good_, uint64_t{1} << 40, features, nnz),
                "truncated: the header declares " + std::to_string(declared) +
                    " bytes (1099511627776 rows, " + std::to_string(nnz) +
                    " entries), the file has " + std::to_string(good_.size()));
  ExpectRefused(WithDeclaredShape(good_, 3000, features, uint64_t{1} << 36),
                "(3000 rows, 68719476736 entries)");
  ExpectRefused(WithDeclaredShape(good_, uint64_t{1} << 62, features, 0),
                "invalid: 4611686018427387904 rows and 0 entries: more than any file can hold");
  ExpectRefused(WithDeclaredShape(good_, ~uint64_t{0}, features, ~uint64_t{0}),
                "more than any file can hold");
  ExpectRefused(WithDeclaredShape(good_, 3000, uint64_t{1} << 40, nnz),
                "invalid: 1099511627776 features, more than 2^32");
  // Fewer rows than written: the layout is that of a smaller file.
  ExpectRefused(WithDeclaredShape(good_, 10, features, nnz), "corrupted: ");
}

TEST_F(BinaryCacheDamage, AnUnknownIndexBaseIsInvalid) {
  ExpectRefused(WithHeader([](cache_internal::Header& h) { h.zero_based = 3; }),
                "invalid: index base 3, expected 0, 1 or 2");
}

// Files with valid checksums but content that must not reach training (written by
// WriteBinaryCache, which writes what it is given).
TEST(BinaryCacheInvalid, StructurallyBadContentIsRefused) {
  testing::TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    Dataset data;
    const char* fragment;
  };
  const Case cases[] = {
      {testing::MakeDataset({{{0, 1.f}}, {{5, 1.f}}}, {1, 1}, 5),
       "invalid: row 1: feature index 5 >= features 5"},
      {testing::MakeDataset({{{3, 1.f}, {1, 1.f}}}, {1}, 5),
       "invalid: row 0: feature indices not strictly ascending (3 then 1)"},
      {testing::MakeDataset({{{3, 1.f}, {3, 1.f}}}, {1}, 5), "not strictly ascending (3 then 3)"},
      {testing::MakeDataset({{{0, 1.f}, {1, nan}}}, {1}, 5), "invalid: entry 1: value nan"},
      {testing::MakeDataset({{{0, 1.f}}, {}}, {1, -inf}, 5), "invalid: row 1: label -inf"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fragment);
    WriteBinaryCache(c.data, dir.File("x.bin"));
    ExpectError([&] { ReadBinaryCache(dir.File("x.bin")); }, {dir.File("x.bin"), c.fragment});
  }
  // Class names: each label one of them, the names ascending; a weight finite and not negative.
  const auto with = [](std::vector<float> labels, std::vector<std::string> names,
                       std::vector<float> weights) {
    std::vector<testing::Entries> rows(labels.size());
    Dataset::Parts parts = testing::MakeDataset(rows, labels, 2).parts();
    parts.class_names = std::move(names);
    if (!weights.empty()) parts.weights = Floats(weights);
    return Dataset(std::move(parts));
  };
  const Case named[] = {
      {with({0, 2}, {"a", "b"}, {}), "invalid: row 1: label 2 is not a class of the 2 named"},
      {with({0, 0.5f}, {"a", "b"}, {}), "invalid: row 1: label 0.5 is not a class"},
      {with({0, 1}, {}, {1, -1}), "invalid: row 1: weight -1 is not a finite number >= 0"},
      {with({0, 1}, {}, {nan, 1}), "invalid: row 0: weight nan"},
  };
  for (const Case& c : named) {
    SCOPED_TRACE(c.fragment);
    WriteBinaryCache(c.data, dir.File("x.bin"));
    ExpectError([&] { ReadBinaryCache(dir.File("x.bin")); }, {dir.File("x.bin"), c.fragment});
  }
}

TEST(BinaryCacheInvalid, DecreasingRowOffsetsAreRefused) {
  testing::TempDir dir;
  AlignedArray<uint64_t> offsets(4);
  offsets[0] = 0, offsets[1] = 3, offsets[2] = 1, offsets[3] = 4;
  AlignedArray<uint32_t> indices(4);
  AlignedArray<float> values(4);
  for (uint32_t k = 0; k < 4; ++k) indices[k] = k, values[k] = 1.f;
  WriteBinaryCache(Dataset::FromArrays(std::move(offsets), std::move(indices), std::move(values),
                                       AlignedArray<float>::Zeroed(3), 4, "bad"),
                   dir.File("o.bin"));
  ExpectError([&] { ReadBinaryCache(dir.File("o.bin")); },
              {"invalid: row 1 ends before it starts (row offsets 3 then 1)"});
}

// One long row across several checksum blocks, with a repeat right at a block boundary: the check
// must compare the first entry of a block with the last of the one before.
TEST(BinaryCacheInvalid, RepeatAcrossABlockBoundaryIsFound) {
  testing::TempDir dir;
  const uint32_t n = 200000;  // 800 KB of indices: four 256 KiB blocks
  testing::Entries row;
  for (uint32_t k = 0; k < n; ++k) row.emplace_back(k, 1.f);
  // Indices start at 128 + 16 (two offsets) rounded up to 192; block 1 starts at 128 + 256 KiB.
  const uint32_t boundary = (128 + (256 << 10) - 192) / 4;
  row[boundary].first = row[boundary - 1].first;
  WriteBinaryCache(testing::MakeDataset({row}, {1}, n), dir.File("r.bin"));
  ASSERT_EQ(Field(testing::ReadFile(dir.File("r.bin")), kIndicesAtField), 192u);
  ExpectError([&] { ReadBinaryCache(dir.File("r.bin")); },
              {"feature indices not strictly ascending (" + std::to_string(boundary - 1) +
               " then " + std::to_string(boundary - 1) + ")"});
}

}  // namespace
}  // namespace parsgd
