// Training and prediction data from numpy arrays: the CSR arrays of a scipy matrix become a
// Dataset without copying the values, the indices or the labels (their memory is borrowed, kept
// alive by a reference to each array); only the row offsets are converted, to the library's uint64.
// A dense matrix is converted once to CSR (the library's one layout), its labels borrowed.
// Whatever the estimators hand over is checked again here, in one pass (a Dataset's invariants are
// its reader's job: this is its reader).
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/data/reading.hpp"
#include "parsgd/util/split.hpp"

namespace parsgd::python {
namespace {

template <class T>
bool IsVector(const py::object& a) {
  return py::isinstance<py::array_t<T, py::array::c_style>>(a) && a.cast<py::array>().ndim() == 1;
}

// An owner for SharedArray: holds a reference to the numpy array. The last copy of a Dataset may
// be dropped on a worker thread, so the reference is given back with the GIL taken.
std::shared_ptr<const void> Keep(const py::array& array) {
  return std::shared_ptr<const void>(new py::object(array), [](const void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(p);
  });
}

template <class T>
SharedArray<T> Borrow(const py::array& array) {
  return SharedArray<T>(static_cast<const T*>(array.data()), static_cast<std::size_t>(array.size()),
                        Keep(array));
}

template <class Ptr>
SharedArray<uint64_t> Offsets(const py::array& indptr) {
  const auto* in = static_cast<const Ptr*>(indptr.data());
  AlignedArray<uint64_t> out(static_cast<std::size_t>(indptr.size()));
  for (py::ssize_t i = 0; i < indptr.size(); ++i) {
    if (in[i] < 0 || (i > 0 && in[i] < in[i - 1])) {
      throw py::value_error(fmt::format(
          "indptr[{}] = {}: the row offsets must start at 0 and never decrease", i, in[i]));
    }
    out[i] = static_cast<uint64_t>(in[i]);
  }
  return SharedArray<uint64_t>(std::move(out));
}

// Indices below `features` and strictly ascending within each row, values finite: what every
// reader guarantees (a duplicate or unsorted column would break the sparse updates). What is wrong
// with row r, or "" if nothing is.
template <class Index>
std::string RowProblem(const Dataset::Parts& p, const Index* indices, uint64_t r) {
  for (uint64_t k = p.offsets[r]; k < p.offsets[r + 1]; ++k) {
    const auto j = static_cast<int64_t>(indices[k]);
    if (j < 0 || static_cast<uint64_t>(j) >= p.features) {
      return fmt::format("row {}: column index {} is outside [0, {})", r, j, p.features);
    }
    if (k > p.offsets[r] && j <= static_cast<int64_t>(indices[k - 1])) {
      return fmt::format(
          "row {}: column index {} after {}: the indices of a row must be strictly ascending "
          "(scipy: sum_duplicates())",
          r, j, static_cast<int64_t>(indices[k - 1]));
    }
    if (!std::isfinite(p.values[k])) {
      return fmt::format("row {}, column {}: value {} is not finite", r, j, p.values[k]);
    }
  }
  return {};
}

// Every row checked, in blocks on every core (a pass over every entry); the first bad row's problem
// thrown, whichever block found it.
template <class Index>
void CheckRows(const Dataset::Parts& p, const Index* indices) {
  const uint64_t rows = p.labels.size();
  constexpr uint64_t kBlock = 4096;
  std::atomic<uint64_t> first_bad{rows};
  tbb::parallel_for(uint64_t{0}, (rows + kBlock - 1) / kBlock, [&](uint64_t b) {
    const uint64_t end = std::min(rows, (b + 1) * kBlock);
    for (uint64_t r = b * kBlock; r < end && r < first_bad.load(std::memory_order_relaxed); ++r) {
      if (RowProblem(p, indices, r).empty()) continue;
      uint64_t seen = first_bad.load(std::memory_order_relaxed);
      while (r < seen && !first_bad.compare_exchange_weak(seen, r)) {
      }
      return;
    }
  });
  if (first_bad.load() < rows) throw py::value_error(RowProblem(p, indices, first_bad.load()));
}

// The labels (float32, one per row, finite) borrowed, or zeros for prediction (None); the label
// kind and the declared classes.
void SetLabels(Dataset::Parts& p, uint64_t rows, const py::object& labels, bool real_labels,
               std::vector<float> classes) {
  if (labels.is_none()) {
    p.labels = SharedArray<float>(AlignedArray<float>::Zeroed(rows));
  } else {
    if (!IsVector<float>(labels)) {
      throw py::type_error("y: expected a 1-d C-contiguous float32 array");
    }
    const py::array y = labels.cast<py::array>();
    if (static_cast<uint64_t>(y.size()) != rows) {
      throw py::value_error(fmt::format("{}: {} rows but {} labels", p.source, rows, y.size()));
    }
    p.labels = Borrow<float>(y);
    for (uint64_t i = 0; i < rows; ++i) {
      if (!std::isfinite(p.labels[i])) {
        throw py::value_error(fmt::format("y[{}] = {} is not finite", i, p.labels[i]));
      }
    }
  }
  p.label_kind = real_labels ? LabelKind::kValues : LabelKind::kClasses;
  p.declared_classes = std::move(classes);
}

PyDataset MakeData(const py::array& indptr, const py::array& indices, const py::array& values,
                   const py::object& labels, uint64_t features, bool real_labels,
                   std::vector<float> classes, std::string source) {
  if (!IsVector<int32_t>(indptr) && !IsVector<int64_t>(indptr)) {
    throw py::type_error("indptr: expected a 1-d C-contiguous int32 or int64 array");
  }
  if (!IsVector<int32_t>(indices) && !IsVector<uint32_t>(indices)) {
    throw py::type_error("indices: expected a 1-d C-contiguous int32 or uint32 array");
  }
  if (!IsVector<float>(values)) {
    throw py::type_error("data: expected a 1-d C-contiguous float32 array");
  }
  const uint64_t rows = indptr.size() > 0 ? static_cast<uint64_t>(indptr.size() - 1) : 0;
  if (rows == 0) throw py::value_error(source + ": no rows");
  if (indices.size() != values.size()) {
    throw py::value_error(
        fmt::format("{}: {} indices but {} values", source, indices.size(), values.size()));
  }
  Dataset::Parts p;
  p.offsets = IsVector<int32_t>(indptr) ? Offsets<int32_t>(indptr) : Offsets<int64_t>(indptr);
  if (p.offsets[0] != 0 || p.offsets[rows] != static_cast<uint64_t>(indices.size())) {
    throw py::value_error(fmt::format("{}: indptr runs from {} to {}, not from 0 to the {} entries",
                                      source, p.offsets[0], p.offsets[rows], indices.size()));
  }
  // A uint32 index array is read as it is; int32 (scipy's) is read as uint32 once CheckRows has
  // found every index non-negative.
  p.indices = Borrow<uint32_t>(indices);
  p.values = Borrow<float>(values);
  p.features = features;
  p.source = std::move(source);
  SetLabels(p, rows, labels, real_labels, std::move(classes));
  const bool signed_indices = IsVector<int32_t>(indices);
  {
    py::gil_scoped_release release;  // other Python threads may run meanwhile
    if (signed_indices) {
      CheckRows(p, reinterpret_cast<const int32_t*>(p.indices.data()));
    } else {
      CheckRows(p, p.indices.data());
    }
  }
  return PyDataset{Dataset(std::move(p))};
}

// A dense float32 C-contiguous matrix as CSR, zeros dropped: the library's one layout. Two passes
// over the matrix (count, then fill), with the GIL released; the only copy of X.
PyDataset MakeDenseData(const py::array& X, const py::object& labels, bool real_labels,
                        std::vector<float> classes, std::string source) {
  if (!py::isinstance<py::array_t<float, py::array::c_style>>(X) || X.ndim() != 2) {
    throw py::type_error("X: expected a 2-d C-contiguous float32 array");
  }
  const auto rows = static_cast<uint64_t>(X.shape(0));
  const auto features = static_cast<uint64_t>(X.shape(1));
  if (rows == 0) throw py::value_error(source + ": no rows");
  if (features > (uint64_t{1} << 32)) {
    throw py::value_error(fmt::format("{}: {} features, more than 2^32", source, features));
  }
  const auto* x = static_cast<const float*>(X.data());
  Dataset::Parts p;
  AlignedArray<uint64_t> offsets(rows + 1);
  AlignedArray<uint32_t> indices;
  AlignedArray<float> values;
  {
    py::gil_scoped_release release;
    offsets[0] = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      uint64_t nonzeros = 0;
      for (uint64_t j = 0; j < features; ++j) nonzeros += x[r * features + j] != 0.f;
      offsets[r + 1] = offsets[r] + nonzeros;
    }
    indices = AlignedArray<uint32_t>(offsets[rows]);
    values = AlignedArray<float>(offsets[rows]);
    for (uint64_t r = 0, k = 0; r < rows; ++r) {
      for (uint64_t j = 0; j < features; ++j) {
        const float v = x[r * features + j];
        if (v == 0.f) continue;
        if (!std::isfinite(v)) {
          throw std::invalid_argument(
              fmt::format("row {}, column {}: value {} is not finite", r, j, v));
        }
        indices[k] = static_cast<uint32_t>(j);
        values[k++] = v;
      }
    }
  }
  p.offsets = SharedArray<uint64_t>(std::move(offsets));
  p.indices = SharedArray<uint32_t>(std::move(indices));
  p.values = SharedArray<float>(std::move(values));
  p.features = features;
  p.source = std::move(source);
  SetLabels(p, rows, labels, real_labels, std::move(classes));
  return PyDataset{Dataset(std::move(p))};
}

// The rows of `d`, each of weight weights[i].
PyDataset WithWeights(const PyDataset& d, const py::array_t<float, py::array::c_style | py::array::forcecast>& weights) {
  const uint64_t rows = d.data.rows();
  if (weights.ndim() != 1 || static_cast<uint64_t>(weights.shape(0)) != rows) {
    throw py::value_error(fmt::format("sample_weight: expected {} weights, one a row, got shape {}",
                                      rows, weights.ndim() == 1 ? std::to_string(weights.shape(0))
                                                                : "of " + std::to_string(weights.ndim()) + " dimensions"));
  }
  AlignedArray<float> copy(rows);
  const float* w = weights.data();
  for (uint64_t i = 0; i < rows; ++i) {
    if (!std::isfinite(w[i]) || w[i] < 0) {
      throw py::value_error(fmt::format("sample_weight[{}] = {}: a weight is finite, 0 or more", i, w[i]));
    }
    copy[i] = w[i];
  }
  Dataset::Parts parts = d.data.parts();
  parts.weights = SharedArray<float>(std::move(copy));
  return PyDataset{Dataset(std::move(parts))};
}

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

template <class To, class From>
py::array_t<To> Copy(const SharedArray<From>& from) {
  py::array_t<To> out(static_cast<py::ssize_t>(from.size()));
  std::copy(from.data(), from.data() + from.size(), out.mutable_data());
  return out;
}

// A data file read by the library's readers (data/load.hpp), as numpy arrays: indptr (int64),
// indices (int32), data (float32), labels (float32: class indices where class names come back,
// else the numbers the file wrote), the feature count, the class names, and the row weights (None
// when every row weighs 1). Reading runs without the GIL, on every core.
py::tuple LoadFile(const std::string& path, const std::string& format, uint32_t hash_bits,
                   uint32_t ngrams, uint32_t char_min, uint32_t char_max,
                   const std::string& interactions, bool labels_optional,
                   const std::string& categorical, const std::string& like,
                   const std::vector<std::string>& ignore_columns, const std::string& missing) {
  LoadOptions options;
  const bool hash_bits_given = hash_bits != 0;
  const std::optional<DataFormat> parsed = ParseDataFormat(format);
  if (!parsed) throw py::value_error(fmt::format("format '{}': not a data format", format));
  options.format = *parsed;
  // hash_bits 0: auto (fastText and VW text 16 bits; CSV categories one-hot).
  options.category_hash_bits = hash_bits;
  if (hash_bits == 0) hash_bits = TextHashing{}.bits;
  if (categorical == "none") {
    options.categorical_auto = false;
  } else if (!categorical.empty() && categorical != "auto") {
    options.categorical = SplitAtCommas(categorical);
  }
  std::vector<std::string> repeated;  // terms that pair an earlier one's namespaces: once
  const std::string terms = WithoutDuplicateInteractions(interactions, &repeated);
  for (const std::string& term : repeated) {
    const std::string message = "interactions " + DuplicateInteractionWarning(interactions, term);
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
  }
  options.hashing = {.bits = hash_bits,
                     .ngrams = ngrams,
                     .char_min = char_min,
                     .char_max = char_max,
                     .interactions = terms};
  options.labels_optional = labels_optional;
  options.ignore_columns = ignore_columns;
  const std::optional<CsvMissing> rule = FindByName<CsvMissing>(kCsvMissings, missing);
  if (!rule) {
    throw py::value_error(fmt::format(
        "missing '{}': expected error, zero, mean, median, most-frequent or indicator", missing));
  }
  options.missing = *rule;
  CheckTextHashing(options.hashing);
  Dataset data;
  {
    py::gil_scoped_release release;
    if (like.empty()) {
      data = LoadDataset(path, options);
    } else {
      // Another file of the same data: read as the first was (data/reading.hpp: a table's
      // columns by name, hashed text's hashing, LIBSVM's index base), or refused.
      const Dataset first = LoadDataset(like, options);
      const DataReading reading = ReadingOf(first, ZeroBased::kAuto);
      const std::string whose = "the data " + like;
      ReadAlike(reading, path, whose, options);
      options.csv_schema_source = like;
      options.label_by_schema = true;
      options.ignore_columns = {};  // the first file's, by name where both have a header
      if (reading.zero_based != ZeroBased::kAuto) options.zero_based = reading.zero_based;
      data = LoadDataset(path, options);
      CheckReadAlike(reading, data, whose);
    }
  }
  if (hash_bits_given && !data.hashing() &&
      !(data.csv_schema() && data.csv_schema()->HasCategorical())) {
    throw py::value_error(fmt::format(
        "hash_bits would be ignored: it hashes fastText and VW text and the values of CSV "
        "categorical columns, and {} has none of them",
        data.source()));
  }
  py::object weights = py::none();
  if (!data.weights().empty()) weights = Copy<float>(data.weights());
  return py::make_tuple(Copy<int64_t>(data.offsets()), Copy<int32_t>(data.indices()),
                        Copy<float>(data.values()), Copy<float>(data.labels()), data.features(),
                        data.class_names(), weights);
}

}  // namespace

void BindData(py::module_& m) {
  m.def("load_file", &LoadFile, py::arg("path"), py::arg("format"), py::arg("hash_bits"),
        py::arg("ngrams"), py::arg("char_min"), py::arg("char_max"), py::arg("interactions"),
        py::arg("labels_optional"), py::arg("categorical"), py::arg("like"),
        py::arg("ignore_columns"), py::arg("missing"),
        "(indptr, indices, data, labels, features, class_names, weights) of a data file");
  py::class_<PyDataset>(m, "Dataset",
                        "Rows for the library: CSR arrays whose values, indices and labels are "
                        "borrowed from numpy (not copied); the row offsets are a uint64 copy.")
      .def(py::init(&MakeData), py::arg("indptr"), py::arg("indices"), py::arg("data"),
           py::arg("labels"), py::arg("features"), py::arg("real_labels") = false,
           py::arg("classes") = std::vector<float>{}, py::arg("source") = "X")
      .def_static("from_dense", &MakeDenseData, py::arg("X"), py::arg("labels"),
                  py::arg("real_labels") = false, py::arg("classes") = std::vector<float>{},
                  py::arg("source") = "X",
                  "The rows of a dense float32 C-contiguous matrix, converted once to CSR "
                  "(zeros dropped)")
      .def("with_weights", &WithWeights, py::arg("weights"),
           "The same rows, each of the weight given (float32, finite, 0 or more; the arrays "
           "are shared, the weights copied)")
      .def_property_readonly("rows", [](const PyDataset& d) { return d.data.rows(); })
      .def_property_readonly("features", [](const PyDataset& d) { return d.data.features(); })
      .def_property_readonly("nnz", [](const PyDataset& d) { return d.data.nnz(); })
      // Where the library reads each array: the no-copy path is tested against numpy's addresses.
      .def_property_readonly("values_address",
                             [](const PyDataset& d) { return Address(d.data.values().data()); })
      .def_property_readonly("indices_address",
                             [](const PyDataset& d) { return Address(d.data.indices().data()); })
      .def_property_readonly("labels_address",
                             [](const PyDataset& d) { return Address(d.data.labels().data()); });
}

}  // namespace parsgd::python
