// Class weights (--class-weight): each class's rows weigh more or less in the loss, as
// scikit-learn's class_weight and LIBLINEAR's -wi weigh them.
//
//   none                    every class 1
//   balanced                class c: n / (k n_c), n rows, k classes present, n_c rows of class c
//                           (scikit-learn's "balanced": each class weighs as much in all)
//   LABEL:W,LABEL:W,...     the classes named (by their label as the data writes it; a label
//                           holding ':' is split at its last one), the others 1
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parsgd/model/class_labels.hpp"
#include "parsgd/model/targets.hpp"

namespace parsgd {

struct ClassWeightSpec {
  bool balanced = false;
  std::vector<std::pair<std::string, double>> given;  // label text, weight (finite, 0 or more)

  bool none() const { return !balanced && given.empty(); }
};

// Parses the text above; throws parsgd::Error saying what is wrong ("class weight 'a:x': ...").
ClassWeightSpec ParseClassWeights(std::string_view text);

// The rows of each class of `targets` (Targets::ClassOf), unweighted.
std::vector<uint64_t> ClassCounts(const Targets& targets);

// Each class's weight under `spec`, for classes `labels` with `counts` rows each (of the whole
// training data: every rank's). Throws parsgd::Error for a label that is none of the classes
// (naming them) and for a label given twice.
std::vector<double> ClassWeightsOf(const ClassWeightSpec& spec, const ClassLabels& labels,
                                   std::span<const uint64_t> counts);

// Multiplies each row's weight in `targets` (1 where it has none) by its class's. Weights that
// are all 1 after it are none (Targets::weights empty).
void WeighClasses(Targets& targets, std::span<const double> class_weights);

// The model file's record of the class weights a run resolved, for `eval` to weigh the rows as
// train's --test does: the settings line "class_weights=W0,W1,...\n", one weight a class in the
// model's class order (each the shortest text that reads back as it).
std::string ClassWeightsRecord(std::span<const double> class_weights);
// The class weights recorded in a model's settings text (the line above): none where the text has
// none (no --class-weight, or a model file from before the record). Throws parsgd::Error for a
// line that is not a list of finite weights, 0 or more.
std::optional<std::vector<double>> RecordedClassWeights(std::string_view settings);

}  // namespace parsgd
