#include "parsgd/model/class_weights.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "parsgd/util/error.hpp"

namespace parsgd {

ClassWeightSpec ParseClassWeights(std::string_view text) {
  ClassWeightSpec spec;
  if (text == "none") return spec;
  if (text == "balanced") {
    spec.balanced = true;
    return spec;
  }
  if (text.empty()) throw Error("class weights: empty (none, balanced, or LABEL:W,...)");
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      throw Error(fmt::format("class weight '{}': expected LABEL:W (or none, or balanced)", item));
    }
    const std::string_view number = item.substr(colon + 1);
    double w = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), w);
    if (ec != std::errc() || end != number.data() + number.size() || number.empty() ||
        !std::isfinite(w) || w < 0) {
      throw Error(fmt::format("class weight '{}': the weight must be a finite number, 0 or more",
                              item));
    }
    spec.given.emplace_back(std::string(item.substr(0, colon)), w);
    at = comma + 1;
  }
  return spec;
}

std::vector<uint64_t> ClassCounts(const Targets& targets) {
  std::vector<uint64_t> counts(static_cast<std::size_t>(targets.classes), 0);
  for (uint64_t i = 0; i < targets.values.size(); ++i) {
    ++counts.at(static_cast<std::size_t>(targets.ClassOf(i)));
  }
  return counts;
}

std::vector<double> ClassWeightsOf(const ClassWeightSpec& spec, const ClassLabels& labels,
                                   std::span<const uint64_t> counts) {
  const std::size_t k = static_cast<std::size_t>(labels.classes());
  std::vector<double> weights(k, 1.0);
  if (spec.balanced) {
    uint64_t rows = 0, present = 0;
    for (uint64_t n : counts) {
      rows += n;
      present += n > 0;
    }
    for (std::size_t c = 0; c < k; ++c) {
      if (counts[c] > 0) {
        weights[c] = static_cast<double>(rows) /
                     (static_cast<double>(present) * static_cast<double>(counts[c]));
      }
    }
    return weights;
  }
  std::vector<bool> set(k, false);
  for (const auto& [label, w] : spec.given) {
    int c = -1;
    for (std::size_t j = 0; j < k && c < 0; ++j) {
      if (labels.Text(static_cast<int>(j)) == label) c = static_cast<int>(j);
    }
    if (c < 0) {
      std::string classes;
      for (std::size_t j = 0; j < k && j < 20; ++j) {
        classes += (j ? ", '" : "'") + labels.Text(static_cast<int>(j)) + "'";
      }
      if (k > 20) classes += fmt::format(", ... ({} in all)", k);
      throw Error(fmt::format("class weight for '{}': no class has that label; the classes are {}",
                              label, classes));
    }
    if (set[static_cast<std::size_t>(c)]) {
      throw Error(fmt::format("class weight for '{}' given twice", label));
    }
    set[static_cast<std::size_t>(c)] = true;
    weights[static_cast<std::size_t>(c)] = w;
  }
  return weights;
}

void WeighClasses(Targets& targets, std::span<const double> class_weights) {
  const uint64_t rows = targets.values.size();
  const bool had = !targets.weights.empty();
  AlignedArray<float> weights(rows);
  bool all_one = true;
  for (uint64_t i = 0; i < rows; ++i) {
    const double w = (had ? targets.weights[i] : 1.0) *
                     class_weights[static_cast<std::size_t>(targets.ClassOf(i))];
    weights[i] = static_cast<float>(w);
    all_one &= weights[i] == 1.f;
  }
  targets.weights = all_one ? AlignedArray<float>() : std::move(weights);
}

namespace {
constexpr std::string_view kRecordKey = "class_weights=";
}  // namespace

std::string ClassWeightsRecord(std::span<const double> class_weights) {
  return fmt::format("{}{}\n", kRecordKey, fmt::join(class_weights, ","));
}

std::optional<std::vector<double>> RecordedClassWeights(std::string_view settings) {
  for (std::size_t at = 0; at < settings.size();) {
    const std::size_t end = std::min(settings.find('\n', at), settings.size());
    const std::string_view line = settings.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(kRecordKey)) continue;
    std::vector<double> weights;
    for (std::string_view rest = line.substr(kRecordKey.size());;) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      double w = 0;
      const auto [stop, ec] = std::from_chars(rest.data(), rest.data() + comma, w);
      if (ec != std::errc() || stop != rest.data() + comma || !std::isfinite(w) || w < 0) {
        throw Error(fmt::format("the model's class weights '{}': expected finite weights, 0 or "
                                "more, separated by commas",
                                line.substr(kRecordKey.size())));
      }
      weights.push_back(w);
      if (comma == rest.size()) break;
      rest.remove_prefix(comma + 1);
    }
    return weights;
  }
  return std::nullopt;
}

}  // namespace parsgd
