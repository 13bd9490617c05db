// The training data shared by all workers: rows of (label, sparse features) in CSR form.
//
// Every source is stored in this one layout. Dense sources (IDX images) keep only their nonzero
// entries: a linear model then reads 8 bytes per stored entry (index + value), no more than a dense
// float row for images that are half background, and every model has one row type.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parsgd/data/csv_schema.hpp"
#include "parsgd/data/hashing.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {

// Whether LIBSVM text numbers its features from 0 or from 1. As a setting: kAuto decides per file
// (zero-based when an index 0 appears, as scikit-learn's load_svmlight_file does), kYes and kNo
// fix it. As a Dataset's record: how its LIBSVM source was read (kYes or kNo), kAuto when it did
// not come from LIBSVM text.
enum class ZeroBased { kAuto, kYes, kNo };

// What a Dataset's labels are. kClasses (every reader's): class labels, from which a model's
// classes are made (model/targets.hpp). kValues: real numbers that model squared regresses as they
// are (the Python module's SGDRegressor; no reader makes them).
enum class LabelKind { kClasses, kValues };

// One row's features: nnz entries with ascending, distinct 0-based column indices.
struct SparseRow {
  const uint32_t* index;
  const float* value;
  uint32_t nnz;
};

// Immutable after construction; safe to read from any number of threads. Copying is cheap (the
// arrays are shared, never duplicated). Arrays are 64-byte aligned.
class Dataset {
 public:
  struct Parts {
    SharedArray<uint64_t> offsets;  // rows + 1 entries, offsets[0] == 0, non-decreasing
    SharedArray<uint32_t> indices;  // nnz entries, 0-based, ascending within a row
    SharedArray<float> values;      // nnz entries, finite
    SharedArray<float> labels;      // rows entries, finite; meaning depends on the model
    uint64_t features = 0;          // number of columns: every index < features
    std::string source;             // where the data came from, for messages
    // The memory-mapped file the arrays point into; null when they are this process's own.
    std::shared_ptr<const MappedFile> mapping;
    ZeroBased zero_based = ZeroBased::kAuto;  // how LIBSVM text indices were read (see above)
    LabelKind label_kind = LabelKind::kClasses;
    // kClasses: the labels a row may have, strictly ascending, where the caller knows more than
    // the rows show (a batch of scikit-learn's partial_fit(classes=...) may lack some), as
    // `features` declares columns no row need use; empty: the distinct labels of the rows.
    std::vector<float> declared_classes = {};
    // kClasses: the class names when the source wrote its labels as text (CSV): strictly
    // ascending in byte order, and every label is the index of its row's name (0, 1, ...);
    // empty: the labels are the numbers the source wrote.
    std::vector<std::string> class_names = {};
    // The settings the features were hashed with where they are hashed text (fastText's format):
    // column j is bucket j; none: the columns are the source's own.
    std::optional<TextHashing> hashing = std::nullopt;
    // Each row's weight (VW's importance), >= 0; empty: every row weighs 1.
    SharedArray<float> weights = {};
    // CSV text: its feature columns as read (data/csv_schema.hpp: names, categorical values,
    // the feature layout); null for other sources.
    std::shared_ptr<const CsvSchema> csv_schema = nullptr;
    // With csv_schema: how the table was read (its label and weight columns, missing values).
    CsvReading csv_reading = {};
    // CSV text read by another file's schema (a test or prediction file): the values of its
    // categorical columns that are not among the schema's, left out of their rows (a model reads
    // a value it never saw as no feature).
    uint64_t unseen_values = 0;
  };

  Dataset() = default;
  // Takes the arrays as they are. Checks the shapes agree (O(1)) and the declared classes
  // (ascending, finite, only with kClasses); the per-entry invariants are the reader's job, and
  // readers check them. Throws parsgd::Error on a shape mismatch.
  explicit Dataset(Parts parts);
  // The same from arrays this process filled (their ownership moves into the dataset).
  static Dataset FromArrays(AlignedArray<uint64_t> offsets, AlignedArray<uint32_t> indices,
                            AlignedArray<float> values, AlignedArray<float> labels,
                            uint64_t features, std::string source,
                            ZeroBased zero_based = ZeroBased::kAuto);

  uint64_t rows() const { return parts_.labels.size(); }
  uint64_t features() const { return parts_.features; }
  uint64_t nnz() const { return parts_.indices.size(); }
  const std::string& source() const { return parts_.source; }
  bool mapped() const { return parts_.mapping != nullptr; }
  const std::shared_ptr<const MappedFile>& mapping() const { return parts_.mapping; }
  // kYes / kNo: the LIBSVM text this came from (directly or through a binary cache) was read
  // zero-based / one-based; kAuto: it did not come from LIBSVM text.
  ZeroBased zero_based() const { return parts_.zero_based; }
  LabelKind label_kind() const { return parts_.label_kind; }
  const std::vector<float>& declared_classes() const { return parts_.declared_classes; }
  const std::vector<std::string>& class_names() const { return parts_.class_names; }
  const std::optional<TextHashing>& hashing() const { return parts_.hashing; }
  const SharedArray<float>& weights() const { return parts_.weights; }
  const std::shared_ptr<const CsvSchema>& csv_schema() const { return parts_.csv_schema; }
  const CsvReading& csv_reading() const { return parts_.csv_reading; }
  uint64_t unseen_values() const { return parts_.unseen_values; }
  // Everything the dataset holds (the arrays shared): a copy of it with one part changed is
  // Dataset(parts) after the change.
  const Parts& parts() const { return parts_; }

  SparseRow row(uint64_t i) const {
    const uint64_t begin = parts_.offsets[i];
    return {parts_.indices.data() + begin, parts_.values.data() + begin,
            static_cast<uint32_t>(parts_.offsets[i + 1] - begin)};
  }
  float label(uint64_t i) const { return parts_.labels[i]; }

  const SharedArray<uint64_t>& offsets() const { return parts_.offsets; }
  const SharedArray<uint32_t>& indices() const { return parts_.indices; }
  const SharedArray<float>& values() const { return parts_.values; }
  const SharedArray<float>& labels() const { return parts_.labels; }

 private:
  Parts parts_;
};

// A copy of `data` in this process's own memory (huge pages where the system grants them). For a
// memory-mapped binary cache, training reads rows in random order from the page cache's 4 KiB
// mappings, which measured 45% slower per epoch than the same arrays in anonymous memory (see
// bench/README.md); the copy costs one pass over the data (parallel, in the caller's oneTBB arena).
// The mapping's pages are given back as they are copied, so that the data is held once (`data`
// itself still reads correctly, from the file again). A dataset that is not mapped is returned as
// it is (its arrays shared, not copied).
Dataset ResidentCopy(const Dataset& data);

// The bytes `rows` rows of `nnz` stored entries take in memory: row offsets, entries, labels.
inline uint64_t RowsBytes(uint64_t rows, uint64_t nnz) {
  return (rows + 1) * sizeof(uint64_t) + nnz * (sizeof(uint32_t) + sizeof(float)) +
         rows * sizeof(float);
}

// The bytes the rows of `data` take in memory: RowsBytes and the rows' weights.
uint64_t ResidentBytes(const Dataset& data);

// `data` read from its memory-mapped file under a PageBudget (util/page_budget.hpp) of
// `budget_bytes`, which lives as long as any array of the result: a binary cache larger than the
// memory this process may use trains (the block order) holding at most about the budget of its
// pages. A dataset that is not mapped is returned as it is.
Dataset PagedView(const Dataset& data, uint64_t budget_bytes);

}  // namespace parsgd
