// The extension module parsgd._parsgd: the library's stable API as Python sees it, one concept per
// file: errors (errors.cpp), the settings table (settings_binding.cpp), data over numpy's memory
// (data_binding.cpp), class labels (label_binding.cpp), trained models (model_binding.cpp) and a
// training run (training_binding.cpp).
// The scikit-learn estimators are written in Python on top of these (python/parsgd/).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "parsgd/config/settings.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/model.hpp"

namespace parsgd::python {

namespace py = pybind11;

// Rows for training or prediction. The Dataset's values, indices and labels point into the numpy
// arrays they came from where their layout allows (float32 values, 32-bit indices, float32
// labels), each kept alive by a reference the Dataset's arrays hold; the row offsets are always a
// uint64 copy of scipy's indptr (the library's offsets are 64-bit).
struct PyDataset {
  Dataset data;
};

// A trained model of either family (model/model.hpp).
struct PyModel {
  Model model;
};

// How the estimators name the library's settings: key -> keyword (a key not in the map is spelled
// with '_' for '-').
using Spelling = std::unordered_map<std::string, std::string>;
std::string Spell(const Spelling& spelling, std::string_view key);

// A SettingError as Python's ValueError, its keys spelled as the estimator's keywords.
[[noreturn]] void ThrowSettingError(const SettingError& e, const Spelling& spelling);

void BindErrors(py::module_& m);
void BindSettings(py::module_& m);
void BindData(py::module_& m);
void BindLabels(py::module_& m);
void BindModel(py::module_& m);
void BindTraining(py::module_& m);

}  // namespace parsgd::python
