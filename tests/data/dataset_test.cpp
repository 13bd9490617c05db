#include "parsgd/data/dataset.hpp"

#include <gtest/gtest.h>

#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TEST(Dataset, RowsViewTheirEntries) {
  Dataset d = testing::MakeDataset({{{0, 1.f}, {3, 2.f}}, {}, {{2, -1.f}}}, {1, -1, 1}, 4);
  EXPECT_EQ(d.rows(), 3u);
  EXPECT_EQ(d.nnz(), 3u);
  EXPECT_EQ(d.features(), 4u);
  SparseRow r0 = d.row(0);
  ASSERT_EQ(r0.nnz, 2u);
  EXPECT_EQ(r0.index[1], 3u);
  EXPECT_EQ(r0.value[1], 2.f);
  EXPECT_EQ(d.row(1).nnz, 0u);
  EXPECT_EQ(d.row(2).index[0], 2u);
  EXPECT_EQ(d.label(1), -1.f);
}

TEST(Dataset, ArraysAreCacheLineAligned) {
  Dataset d = testing::MakeDataset({{{0, 1.f}}, {{1, 1.f}}}, {1, 1}, 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d.indices().data()) % kCacheLine, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d.values().data()) % kCacheLine, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d.offsets().data()) % kCacheLine, 0u);
}

TEST(Dataset, RejectsMismatchedShapes) {
  Dataset::Parts parts;
  parts.offsets = SharedArray<uint64_t>(AlignedArray<uint64_t>::Zeroed(3));
  parts.labels = SharedArray<float>(AlignedArray<float>::Zeroed(1));
  parts.source = "shape";
  EXPECT_THROW(Dataset{parts}, Error);
}

}  // namespace
}  // namespace parsgd
