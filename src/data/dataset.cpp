#include "parsgd/data/dataset.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "parsgd/util/error.hpp"
#include "parsgd/util/page_budget.hpp"

namespace parsgd {

Dataset::Dataset(Parts parts) : parts_(std::move(parts)) {
  const auto& p = parts_;
  auto fail = [&](const std::string& what) { throw Error(p.source + ": " + what); };
  if (p.offsets.size() != p.labels.size() + 1) fail("row offsets do not match the row count");
  if (p.indices.size() != p.values.size()) fail("index and value arrays differ in length");
  if (p.offsets[0] != 0 || p.offsets[p.labels.size()] != p.indices.size()) {
    fail("row offsets do not span the entries");
  }
  if (p.features > (uint64_t{1} << 32)) fail("more than 2^32 features");
  if (!p.weights.empty() && p.weights.size() != p.labels.size()) {
    fail("row weights do not match the row count");
  }
  if (!p.class_names.empty()) {
    if (p.label_kind == LabelKind::kValues) fail("class names for real-valued labels");
    if (std::adjacent_find(p.class_names.begin(), p.class_names.end(),
                           std::greater_equal<std::string>()) != p.class_names.end()) {
      fail("the class names are not strictly ascending");
    }
  }
  const std::vector<float>& declared = p.declared_classes;
  if (declared.empty()) return;
  if (p.label_kind == LabelKind::kValues) fail("declared classes for real-valued labels");
  if (!std::all_of(declared.begin(), declared.end(), [](float v) { return std::isfinite(v); }) ||
      std::adjacent_find(declared.begin(), declared.end(), std::greater_equal<float>()) !=
          declared.end()) {
    fail("the declared classes are not finite and strictly ascending");
  }
}

Dataset Dataset::FromArrays(AlignedArray<uint64_t> offsets, AlignedArray<uint32_t> indices,
                            AlignedArray<float> values, AlignedArray<float> labels,
                            uint64_t features, std::string source, ZeroBased zero_based) {
  Parts parts;
  parts.offsets = SharedArray<uint64_t>(std::move(offsets));
  parts.indices = SharedArray<uint32_t>(std::move(indices));
  parts.values = SharedArray<float>(std::move(values));
  parts.labels = SharedArray<float>(std::move(labels));
  parts.features = features;
  parts.source = std::move(source);
  parts.zero_based = zero_based;
  return Dataset(std::move(parts));
}

}  // namespace parsgd

namespace parsgd {
namespace {

// Copies `from` (in `file`) block by block, giving each block's pages of the mapping back once
// copied: the process holds the data about once, not the mapping beside the copy.
template <class T>
AlignedArray<T> Copy(const SharedArray<T>& from, const MappedFile& file) {
  AlignedArray<T> to(from.size());
  constexpr std::size_t kBlock = std::size_t{1} << 20;  // elements per parallel copy
  tbb::parallel_for(std::size_t{0}, (from.size() + kBlock - 1) / kBlock, [&](std::size_t b) {
    const std::size_t begin = b * kBlock;
    const std::size_t n = std::min(kBlock, from.size() - begin);
    std::memcpy(to.data() + begin, from.data() + begin, n * sizeof(T));
    file.Release(from.data() + begin, n * sizeof(T));
  });
  return to;
}

}  // namespace

Dataset ResidentCopy(const Dataset& data) {
  if (!data.mapped()) return data;
  const MappedFile& file = *data.mapping();
  Dataset::Parts parts = data.parts();
  parts.offsets = SharedArray<uint64_t>(Copy(data.offsets(), file));
  parts.indices = SharedArray<uint32_t>(Copy(data.indices(), file));
  parts.values = SharedArray<float>(Copy(data.values(), file));
  parts.labels = SharedArray<float>(Copy(data.labels(), file));
  if (!data.weights().empty()) parts.weights = SharedArray<float>(Copy(data.weights(), file));
  parts.mapping = nullptr;
  return Dataset(std::move(parts));
}

uint64_t ResidentBytes(const Dataset& data) {
  return RowsBytes(data.rows(), data.nnz()) + data.weights().size() * sizeof(float);
}

Dataset PagedView(const Dataset& data, uint64_t budget_bytes) {
  if (!data.mapped()) return data;
  // The mapping and its budget in one owner: the arrays keep both alive, the budget's watcher
  // stops when the last of them goes.
  struct Owner {
    std::shared_ptr<const MappedFile> file;
    std::unique_ptr<PageBudget> budget;
  };
  auto owner = std::make_shared<Owner>();
  owner->file = data.mapping();
  owner->budget = std::make_unique<PageBudget>(
      std::vector<std::shared_ptr<const MappedFile>>{owner->file}, budget_bytes);
  Dataset::Parts parts = data.parts();
  parts.mapping = std::shared_ptr<const MappedFile>(owner, owner->file.get());
  const char* const begin = owner->file->chars();
  const char* const end = begin + owner->file->size();
  auto keep = [&]<class T>(SharedArray<T>& a) {  // the arrays in the mapping (a rank's share has
                                                 // offsets of its own)
    const auto* at = reinterpret_cast<const char*>(a.data());
    if (a.size() > 0 && at >= begin && at < end) {
      a = SharedArray<T>(a.data(), a.size(), parts.mapping);
    }
  };
  keep(parts.offsets);
  keep(parts.indices);
  keep(parts.values);
  keep(parts.labels);
  keep(parts.weights);
  return Dataset(std::move(parts));
}

}  // namespace parsgd
