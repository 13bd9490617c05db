// The settings table (config/settings.hpp) for Python: the estimators derive their keywords, their
// defaults and their docstrings from it, so that a setting is declared in one place only.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/exec/executor.hpp"

namespace parsgd::python {
namespace {

const char* TypeName(SettingType type) {
  switch (type) {
    case SettingType::kInt:
      return "int";
    case SettingType::kCount:
      return "count";
    case SettingType::kReal:
      return "real";
    case SettingType::kChoice:
      return "choice";
    case SettingType::kSwitch:
      return "switch";
    case SettingType::kSizes:
      return "sizes";
    case SettingType::kText:
      return "text";
  }
  return "?";
}

// A value as Python holds it; a number that stands for a word ("auto") is the word.
py::object ToPython(const Setting& s, const SettingValue& value) {
  const std::string text = SettingText(s, value);
  for (const SettingWord& w : s.words) {
    if (text == w.word) return py::str(text);
  }
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

py::dict Describe(const Setting& s) {
  py::dict d;
  d["key"] = s.key;
  d["type"] = TypeName(s.type);
  d["help"] = s.help;
  d["min"] = s.min;
  d["max"] = s.max;
  d["min_exclusive"] = s.min_exclusive;
  py::list words;
  for (const SettingWord& w : s.words) words.append(py::make_tuple(w.word, w.value));
  d["words"] = words;
  py::list choices;
  for (const auto& [name, help] : s.choices) choices.append(py::make_tuple(name, help));
  d["choices"] = choices;
  d["default"] = ToPython(s, s.get(TrainConfig{}));
  d["value_name"] = ValueName(s);
  return d;
}

}  // namespace

void BindSettings(py::module_& m) {
  m.def(
      "settings",
      [] {
        py::list out;
        for (const Setting& s : TrainSettings()) out.append(Describe(s));
        return out;
      },
      "Every training setting of the library's table, in the order of its help: a dict each with "
      "key, type (int, count, real, choice, switch, sizes), help, min, max, min_exclusive, words "
      "((word, value) pairs such as ('auto', 0)), choices ((name, help) pairs), default and "
      "value_name.");
  m.def("available_cores", &AvailableCores,
        "The cores this process may use (its CPU affinity mask): what n_jobs=-1 trains on.");
}

}  // namespace parsgd::python
