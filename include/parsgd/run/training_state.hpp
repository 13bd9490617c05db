// The state of a run between two epochs, as named float arrays and counters: the parameters, the
// optimiser state, the average scheme's replicas and their step counts, the epochs done. With the
// run's configuration it is everything needed to continue as if never stopped: the sample order,
// the step-size schedule and Adam's step count are pure functions of (seed, epoch, position), and
// no other random state survives an epoch. A checkpoint file (io/checkpoint.hpp) stores one.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace parsgd {

class TrainingState {
 public:
  void Put(const std::string& name, std::span<const float> values);
  void Put(const std::string& name, uint64_t value);

  bool Has(const std::string& name) const {
    return arrays_.contains(name) || counters_.contains(name);
  }
  // Copies array `name` into `out`; throws parsgd::Error when it is missing or of another size.
  void Get(const std::string& name, std::span<float> out) const;
  // Throws parsgd::Error when the counter is missing.
  uint64_t Counter(const std::string& name) const;

  const std::map<std::string, std::vector<float>>& arrays() const { return arrays_; }
  const std::map<std::string, uint64_t>& counters() const { return counters_; }

 private:
  std::map<std::string, std::vector<float>> arrays_;
  std::map<std::string, uint64_t> counters_;
};

}  // namespace parsgd
