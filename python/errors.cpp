// The library's errors as Python exceptions: every parsgd::Error (a bad setting, bad data, a
// diverging run, a model that does not fit) is a ValueError with the library's message, as
// scikit-learn raises for bad parameters and data. std::bad_alloc is pybind11's MemoryError.
#include <algorithm>

#include "bindings.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::python {

std::string Spell(const Spelling& spelling, std::string_view key) {
  const auto at = spelling.find(std::string(key));
  if (at != spelling.end()) return at->second;
  std::string name(key);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

void ThrowSettingError(const SettingError& e, const Spelling& spelling) {
  throw py::value_error(e.Render([&](std::string_view key) { return Spell(spelling, key); }));
}

void BindErrors(py::module_& m) {
  (void)m;
  // Outside a training run (which spells the keys as its estimator names them) a SettingError
  // reads with the keys bare, as what() has them.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace parsgd::python
