#include "parsgd/model/targets.hpp"

#include <cmath>
#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

constexpr int kMaxClasses = 1 << 16;

[[noreturn]] void BadLabel(const Dataset& data, uint64_t row, float label, const std::string& why) {
  throw Error(fmt::format("{}: row {}: label {}: {}", data.source(), row + 1, label, why));
}

Targets BinaryTargets(ModelKind kind, const Dataset& data) {
  Targets t;
  t.values = AlignedArray<float>(data.rows());
  bool seen_minus = false, seen_zero = false;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const float y = data.label(i);
    if (y != 1.f && y != -1.f && y != 0.f) {
      BadLabel(data, i, y,
               fmt::format("model {} needs binary labels -1/+1 or 0/1 (use --model softmax for "
                           "class ids)",
                           NameOf<ModelKind>(kModelKinds, kind)));
    }
    seen_minus |= (y == -1.f);
    seen_zero |= (y == 0.f);
    if (seen_minus && seen_zero) {
      BadLabel(data, i, y, "labels mix -1 and 0; binary labels are -1/+1 or 0/1");
    }
    t.values[i] = y > 0 ? 1.f : -1.f;
  }
  t.labels.negative = seen_zero ? 0.f : -1.f;
  return t;
}

Targets ClassTargets(const Dataset& data, int classes) {
  Targets t;
  t.values = AlignedArray<float>(data.rows());
  float largest = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const float y = data.label(i);
    if (!(y >= 0) || y != std::floor(y) || y >= kMaxClasses) {
      BadLabel(data, i, y,
               fmt::format("softmax needs class ids 0, 1, 2, ... below {} (use --model logistic "
                           "for -1/+1 labels)",
                           kMaxClasses));
    }
    if (classes > 0 && y >= classes) {
      BadLabel(data, i, y, fmt::format("the model has {} classes (0..{})", classes, classes - 1));
    }
    largest = std::max(largest, y);
    t.values[i] = y;
  }
  t.classes = classes > 0 ? classes : std::max(2, static_cast<int>(largest) + 1);
  return t;
}

}  // namespace

Targets MakeTargets(ModelKind kind, const Dataset& data, int classes) {
  return IsBinary(kind) ? BinaryTargets(kind, data) : ClassTargets(data, classes);
}

}  // namespace parsgd
