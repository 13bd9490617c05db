#include "parsgd/run/training_state.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "parsgd/util/error.hpp"

namespace parsgd {

void TrainingState::Put(const std::string& name, std::span<const float> values) {
  arrays_[name].assign(values.begin(), values.end());
}

void TrainingState::Put(const std::string& name, uint64_t value) { counters_[name] = value; }

void TrainingState::Get(const std::string& name, std::span<float> out) const {
  const auto at = arrays_.find(name);
  if (at == arrays_.end()) throw Error(fmt::format("training state: no array '{}'", name));
  if (at->second.size() != out.size()) {
    throw Error(fmt::format("training state: array '{}' holds {} values, the run needs {}", name,
                            at->second.size(), out.size()));
  }
  std::copy(at->second.begin(), at->second.end(), out.begin());
}

uint64_t TrainingState::Counter(const std::string& name) const {
  const auto at = counters_.find(name);
  if (at == counters_.end()) throw Error(fmt::format("training state: no counter '{}'", name));
  return at->second;
}

}  // namespace parsgd
