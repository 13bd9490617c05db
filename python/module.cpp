// The extension module parsgd._parsgd (see bindings.hpp for its parts).
#include "bindings.hpp"

PYBIND11_MODULE(_parsgd, m) {
  m.doc() =
      "parsgd's library for Python: settings, data, models and training runs. The estimators "
      "of the parsgd package are built on it.";
  using namespace parsgd::python;
  BindErrors(m);
  BindSettings(m);
  BindData(m);
  BindLabels(m);
  BindModel(m);
  BindTraining(m);
}
