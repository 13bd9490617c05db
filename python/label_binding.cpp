// Class labels of a numeric array encoded in two passes, in place of numpy's unique(y,
// return_inverse=True) and scikit-learn's check_classification_targets, which sort the labels
// (three sorts of y in all): near a tenth of a fit on a large sparse set (bench/README.md, "The
// Python module against scikit-learn"). Exact on the array's own type (no rounding to the
// library's float32): the estimators take classes_ as y[first] (numpy's values, numpy's dtype).
#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace parsgd::python {
namespace {

// More distinct values than this and the caller takes numpy's way (a linear search a label is
// only cheap for a few classes).
constexpr std::size_t kMaxEncodedClasses = 64;

// The distinct values of y sorted, each with the position of its first occurrence, and each
// label's rank among them; nullopt if y holds more than kMaxEncodedClasses values or a value that
// is not a whole number (scikit-learn's "continuous" target, NaN included: the caller's checks
// give their own error).
template <class T>
std::optional<std::pair<std::vector<int64_t>, std::vector<float>>> Encode(const T* y,
                                                                          std::size_t n) {
  struct Seen {
    T value;
    int64_t first;
  };
  std::vector<Seen> seen;
  std::size_t hit = 0;  // the last label's entry: labels come in runs
  for (std::size_t i = 0; i < n; ++i) {
    const T v = y[i];
    if (!seen.empty() && seen[hit].value == v) continue;
    if constexpr (std::is_floating_point_v<T>) {
      if (!(std::trunc(v) == v)) return std::nullopt;
    }
    hit = 0;
    while (hit < seen.size() && !(seen[hit].value == v)) ++hit;
    if (hit == seen.size()) {
      if (seen.size() == kMaxEncodedClasses) return std::nullopt;
      seen.push_back({v, static_cast<int64_t>(i)});
    }
  }
  std::sort(seen.begin(), seen.end(),
            [](const Seen& a, const Seen& b) { return a.value < b.value; });
  std::vector<int64_t> first(seen.size());
  for (std::size_t k = 0; k < seen.size(); ++k) first[k] = seen[k].first;
  std::vector<float> codes(n);
  hit = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T v = y[i];
    if (!(seen[hit].value == v)) {
      hit = 0;
      while (!(seen[hit].value == v)) ++hit;
    }
    codes[i] = static_cast<float>(hit);
  }
  return std::make_pair(std::move(first), std::move(codes));
}

template <class T>
py::object EncodeArray(const py::array& y) {
  const auto* data = static_cast<const T*>(y.data());
  const auto n = static_cast<std::size_t>(y.size());
  std::optional<std::pair<std::vector<int64_t>, std::vector<float>>> out;
  {
    py::gil_scoped_release release;
    out = Encode(data, n);
  }
  if (!out) return py::none();
  py::array_t<int64_t> first(static_cast<py::ssize_t>(out->first.size()));
  std::copy(out->first.begin(), out->first.end(), first.mutable_data());
  py::array_t<float> codes(static_cast<py::ssize_t>(n));
  std::copy(out->second.begin(), out->second.end(), codes.mutable_data());
  return py::make_tuple(first, codes);
}

// (first, codes) for a 1-d C-contiguous array of float64, float32, int64 or int32 (else None):
// see Encode.
py::object EncodeClasses(const py::object& y) {
  if (!py::isinstance<py::array>(y)) return py::none();
  const auto a = y.cast<py::array>();
  if (a.ndim() != 1 || a.size() == 0 || !(a.flags() & py::array::c_style)) return py::none();
  if (py::isinstance<py::array_t<double>>(a)) return EncodeArray<double>(a);
  if (py::isinstance<py::array_t<float>>(a)) return EncodeArray<float>(a);
  if (py::isinstance<py::array_t<int64_t>>(a)) return EncodeArray<int64_t>(a);
  if (py::isinstance<py::array_t<int32_t>>(a)) return EncodeArray<int32_t>(a);
  return py::none();
}

}  // namespace

void BindLabels(py::module_& m) {
  m.def("encode_classes", &EncodeClasses, py::arg("y"),
        "For a 1-d numeric array of whole-number labels with at most 64 distinct values: "
        "(first, codes), `first` the position of each distinct value's first occurrence in "
        "ascending order of value (so y[first] is numpy.unique(y)), `codes` each label's index "
        "among them as float32. None for anything else (the caller takes numpy's way).");
}

}  // namespace parsgd::python
