// Trained models for Python: their parameters as read-only numpy views (no copy: the view keeps the
// model alive), their scores, classes and probabilities on a Dataset through the library's own
// prediction (train/evaluate.hpp), and the model file (io/model_file.hpp), which pickling uses.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <type_traits>
#include <vector>

#include "bindings.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/evaluate.hpp"

namespace parsgd::python {
namespace {

const ClassLabels& LabelsOf(const Model& model) {
  return std::visit([](const auto& m) -> const ClassLabels& { return m.labels(); }, model);
}

std::span<const float> ParamsOf(const Model& model) {
  if (const auto* linear = std::get_if<LinearModel>(&model)) return linear->weights();
  return std::get<MlpModel>(model).params();
}

// Scores per row: outputs() floats for a linear model, classes() for the MLP.
int Outputs(const Model& model) {
  if (const auto* linear = std::get_if<LinearModel>(&model)) return linear->outputs();
  return std::get<MlpModel>(model).classes();
}

// A 1-d view of `values`, owned by `self` (the Python model object).
py::array_t<float> View(std::span<const float> values, const py::object& self) {
  return py::array_t<float>({static_cast<py::ssize_t>(values.size())}, {sizeof(float)},
                            values.data(), self);
}

py::array_t<float> Scores(const PyModel& m, const PyDataset& d, int threads) {
  const int outputs = Outputs(m.model);
  std::vector<float> scores;
  {
    py::gil_scoped_release release;
    const auto executor = MakeTbbExecutor(threads);
    scores = std::visit(
        [&](const auto& model) {
          return PredictScores(model, d.data, 0, d.data.rows(), *executor);
        },
        m.model);
  }
  py::array_t<float> out(
      {static_cast<py::ssize_t>(d.data.rows()), static_cast<py::ssize_t>(outputs)});
  std::copy(scores.begin(), scores.end(), out.mutable_data());
  return out;
}

py::array_t<int64_t> Classes(const PyModel& m, const PyDataset& d, int threads) {
  std::vector<int> classes;
  {
    py::gil_scoped_release release;
    const auto executor = MakeTbbExecutor(threads);
    classes = std::visit(
        [&](const auto& model) { return PredictClasses(model, d.data, *executor); }, m.model);
  }
  py::array_t<int64_t> out(static_cast<py::ssize_t>(classes.size()));
  std::copy(classes.begin(), classes.end(), out.mutable_data());
  return out;
}

// Class probabilities of scores (rows x outputs) as Probabilities() computes them.
py::array_t<float> ProbabilitiesOf(const PyModel& m,
                                   const py::array_t<float, py::array::c_style>& scores) {
  const ModelKind kind = KindOf(m.model);
  if (!HasProbabilities(kind)) {
    throw py::value_error(std::string("model ") + NameOf<ModelKind>(kModelKinds, kind) +
                          " gives no probabilities (logistic, softmax and mlp do)");
  }
  const int outputs = Outputs(m.model);
  const int classes = LabelsOf(m.model).classes();
  if (scores.ndim() != 2 || scores.shape(1) != outputs) {
    throw py::value_error("scores: expected an array of rows x " + std::to_string(outputs));
  }
  const py::ssize_t rows = scores.shape(0);
  py::array_t<float> out({rows, static_cast<py::ssize_t>(classes)});
  const float* z = scores.data();
  float* p = out.mutable_data();
  for (py::ssize_t i = 0; i < rows; ++i)
    Probabilities(kind, z + i * outputs, classes, p + i * classes);
  return out;
}

void Save(const PyModel& m, const std::string& path, const std::string& settings) {
  std::visit([&](const auto& model) { SaveModel(model, path, settings); }, m.model);
}

py::list Layers(const PyModel& m) {
  py::list out;
  if (const auto* mlp = std::get_if<MlpModel>(&m.model)) {
    for (const MlpLayer& l : mlp->layers()) {
      out.append(py::make_tuple(l.inputs, l.outputs, l.weights_at, l.bias_at));
    }
  }
  return out;
}

}  // namespace

void BindModel(py::module_& m) {
  py::class_<PyModel>(m, "Model", "A trained model, linear or MLP (parsgd's model file holds one).")
      .def_property_readonly(
          "kind", [](const PyModel& p) { return NameOf<ModelKind>(kModelKinds, KindOf(p.model)); })
      .def_property_readonly("features",
                             [](const PyModel& p) {
                               if (const auto* l = std::get_if<LinearModel>(&p.model))
                                 return l->features();
                               return static_cast<uint64_t>(std::get<MlpModel>(p.model).inputs());
                             })
      .def_property_readonly("outputs", [](const PyModel& p) { return Outputs(p.model); })
      .def_property_readonly(
          "labels",
          [](const PyModel& p) -> py::object {
            const ClassLabels& labels = LabelsOf(p.model);
            if (!labels.names.empty()) return py::cast(labels.names);
            return py::cast(labels.values);
          },
          "the class labels as the training data wrote them: the names (str) where it wrote text "
          "classes, else the numbers")
      .def_property_readonly("sizes",
                             [](const PyModel& p) {
                               const auto* mlp = std::get_if<MlpModel>(&p.model);
                               return mlp != nullptr ? mlp->sizes() : std::vector<int>{};
                             })
      .def_property_readonly(
          "layers", &Layers,
          "mlp: (inputs, outputs, weights_at, bias_at) per layer; weights row-major "
          "inputs x outputs at weights_at of params, then the bias")
      .def_property_readonly(
          "params",
          [](const py::object& self) {
            return View(ParamsOf(self.cast<const PyModel&>().model), self);
          },
          "All parameters (a view, no copy). Linear: weight (j, k) at j * outputs + k, the biases "
          "last; mlp: see layers.")
      .def_property_readonly(
          "input_scale",
          [](const py::object& self) -> py::object {
            const auto* mlp = std::get_if<MlpModel>(&self.cast<const PyModel&>().model);
            if (mlp == nullptr) return py::none();
            return View(mlp->input_scale(), self);
          },
          "mlp: the factor applied to each input feature (maxabs scaling); None for linear models")
      .def("scores", &Scores, py::arg("data"), py::arg("threads"),
           "Scores of every row: rows x outputs (the decision values before any link)")
      .def("classes", &Classes, py::arg("data"), py::arg("threads"),
           "The class index each row is predicted to be (binary: 0 negative, 1 positive)")
      .def("probabilities", &ProbabilitiesOf, py::arg("scores"),
           "Class probabilities of scores (rows x classes)")
      .def("save", &Save, py::arg("path"), py::arg("settings") = "",
           "Writes the model file (atomically); `settings`: key=value lines for the record")
      .def_static(
          "load", [](const std::string& path) { return PyModel{LoadModel(path).model}; },
          py::arg("path"), "Reads a model file written by parsgd train --save or Model.save");
}

}  // namespace parsgd::python
