#include "parsgd/model/targets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_text.hpp"

namespace parsgd {
namespace {

constexpr std::size_t kMaxClasses = std::size_t{1} << 16;

// -0 and +0 are one label.
float Canonical(float label) { return label == 0.f ? 0.f : label; }

// The distinct labels of `data`, ascending; stops counting past kMaxClasses. The two labels met
// last are checked before the set: binary data rarely reaches it.
std::vector<float> DistinctLabels(const Dataset& data) {
  std::unordered_set<float> seen;
  float last = 0, before = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const float y = Canonical(data.label(i));
    if (i > 0 && (y == last || y == before)) continue;
    before = i > 0 ? last : y;
    last = y;
    seen.insert(y);
    if (seen.size() > kMaxClasses) break;
  }
  std::vector<float> labels(seen.begin(), seen.end());
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::string List(const std::vector<float>& labels) {
  constexpr std::size_t kShown = 10;
  if (labels.size() <= kShown) return fmt::format("{}", fmt::join(labels, ", "));
  return fmt::format("{}, ... ({} in all)",
                     fmt::join(labels.begin(), labels.begin() + kShown, ", "), labels.size());
}

// The class names of `found` (indices into data.class_names()), where the data has them.
ClassLabels Named(const Dataset& data, std::vector<float> found) {
  ClassLabels labels{std::move(found)};
  if (data.class_names().empty()) return labels;
  for (float v : labels.values) {
    labels.names.push_back(data.class_names().at(static_cast<std::size_t>(v)));
  }
  return labels;
}

std::string ListNames(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 10;
  const std::size_t shown = std::min(names.size(), kShown);
  std::string out;
  for (std::size_t i = 0; i < shown; ++i) out += fmt::format("{}'{}'", i ? ", " : "", names[i]);
  if (names.size() > shown) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

// More distinct labels than half the rows (and more than a handful): values, not classes, unless
// the model is one of classes only (softmax, mlp: never the default, so asked for by name).
bool LooksLikeValues(ModelKind kind, const Dataset& data, std::size_t distinct, uint64_t rows) {
  if (kind == ModelKind::kSoftmax || kind == ModelKind::kMlp) return false;
  return data.declared_classes().empty() && distinct > 10 && 2 * distinct > rows;
}

// Why labels that look like values (LooksLikeValues) are not trained as classes.
std::string ValuesNotClasses(ModelKind kind, const Dataset& data, std::size_t distinct,
                             uint64_t rows) {
  return fmt::format(
      "{}: {} distinct labels in {} rows: real values or ids, not classes (model {} would make "
      "{}); check --label-column{}",
      data.source(), distinct > kMaxClasses ? fmt::format("more than {}", kMaxClasses)
                                            : std::to_string(distinct),
      rows, NameOf<ModelKind>(kModelKinds, kind),
      IsBinary(kind) ? "two classes of them" : "one class of each",
      kind == ModelKind::kSquared
          ? "; model squared fits two classes here, and regresses real values in the Python "
            "module (SGDRegressor)"
          : "");
}

ClassLabels TwoLabels(ModelKind kind, const Dataset& data, std::vector<float> found,
                      bool one_vs_rest) {
  const bool named = !data.class_names().empty();
  if (!named && found.size() == 1 && (found[0] == -1.f || found[0] == 0.f || found[0] == 1.f)) {
    // One class of the pair -1/+1 or 0/1: the other is the one the file would have written.
    found = found[0] == 0.f ? std::vector<float>{0.f, 1.f} : std::vector<float>{-1.f, 1.f};
  }
  if (found.size() != 2) {
    throw Error(fmt::format(
        "{}: model {} is binary and needs two label values, the data has {}: {} (for more classes "
        "use model softmax or mlp{})",
        data.source(), NameOf<ModelKind>(kModelKinds, kind),
        found.size() > kMaxClasses ? fmt::format("more than {}", kMaxClasses)
                                   : std::to_string(found.size()),
        named ? ListNames(Named(data, found).names) : List(found),
        one_vs_rest ? "" : ", or --multiclass ovr"));
  }
  return Named(data, std::move(found));
}

ClassLabels MultiClassLabels(ModelKind kind, const Dataset& data, std::vector<float> found) {
  if (found.size() > kMaxClasses) {
    throw Error(
        fmt::format("{}: more than {} distinct labels (model {} makes one class of each): "
                    "are these regression targets?",
                    data.source(), kMaxClasses, NameOf<ModelKind>(kModelKinds, kind)));
  }
  if (found.size() < 2) {
    throw Error(fmt::format("{}: every row has the label {}: model {} needs at least two classes",
                            data.source(), Named(data, found).Text(0),
                            NameOf<ModelKind>(kModelKinds, kind)));
  }
  return Named(data, std::move(found));
}

// The data's row weights (Dataset::weights) into t.weights; none where it has none.
void CopyWeights(const Dataset& data, Targets& t) {
  if (data.weights().empty()) return;
  t.weights = AlignedArray<float>(data.rows());
  std::copy(data.weights().begin(), data.weights().end(), t.weights.begin());
}

// Real-valued labels (LabelKind::kValues, or any labels of a regressor): the regression losses fit
// them as they are. The model keeps the binary models' default labels; nothing maps through them.
Targets ValueTargets(ModelKind kind, const Dataset& data) {
  if (kind != ModelKind::kSquared && !IsRegressor(kind)) {
    throw Error(
        fmt::format("{}: real-valued labels are regressed by the models squared, huber and "
                    "epsilon-insensitive, not by {}",
                    data.source(), NameOf<ModelKind>(kModelKinds, kind)));
  }
  if (!data.class_names().empty()) {
    throw Error(fmt::format("{}: its labels are text ({}): classes, which model {} cannot regress",
                            data.source(), ListNames(data.class_names()),
                            NameOf<ModelKind>(kModelKinds, kind)));
  }
  Targets t;
  t.regression = true;
  t.values = AlignedArray<float>(data.rows());
  std::copy(data.labels().begin(), data.labels().end(), t.values.begin());
  CopyWeights(data, t);
  t.classes = 2;
  t.labels = ClassLabels::Default(true, 2);
  return t;
}

// The ascending, distinct union of every rank's `mine`. Collective.
std::vector<float> UnionOfRanks(std::vector<float> mine, Communicator& comm) {
  const std::vector<uint64_t> counts = comm.Gather(mine.size());
  std::vector<float> found;
  for (int r = 0; r < comm.size(); ++r) {
    std::vector<float> theirs = r == comm.rank() ? mine : std::vector<float>(counts[r]);
    comm.Broadcast(std::as_writable_bytes(std::span<float>(theirs)), r);
    found.insert(found.end(), theirs.begin(), theirs.end());
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// The classes of the labels `found`: two for a binary model, or (one_vs_rest) more, one binary
// classifier each; as many as there are for softmax and the MLP.
ClassLabels ClassesOf(ModelKind kind, const Dataset& data, std::vector<float> found,
                      bool one_vs_rest) {
  if (IsBinary(kind) && !(one_vs_rest && found.size() > 2)) {
    return TwoLabels(kind, data, std::move(found), one_vs_rest);
  }
  return MultiClassLabels(kind, data, std::move(found));
}

// The classes the labels are drawn from: those the data declares, else the rows' distinct labels.
std::vector<float> FoundLabels(const Dataset& data) {
  return data.declared_classes().empty() ? DistinctLabels(data) : data.declared_classes();
}

}  // namespace

Targets MakeTargets(ModelKind kind, const Dataset& data, bool one_vs_rest) {
  if (data.label_kind() == LabelKind::kValues || IsRegressor(kind)) return ValueTargets(kind, data);
  std::vector<float> found = FoundLabels(data);
  if (found.empty()) throw Error(data.source() + ": no rows, so no labels");
  if (LooksLikeValues(kind, data, found.size(), data.rows())) {
    throw Error(ValuesNotClasses(kind, data, found.size(), data.rows()));
  }
  return MakeTargets(kind, data, ClassesOf(kind, data, std::move(found), one_vs_rest));
}

Targets MakeShareTargets(ModelKind kind, const Dataset& share, Communicator& comm,
                         bool one_vs_rest) {
  if (share.label_kind() == LabelKind::kValues || IsRegressor(kind))
    return ValueTargets(kind, share);
  std::vector<float> found =
      UnionOfRanks(FoundLabels(share), comm);  // each at most kMaxClasses + 1
  if (found.empty()) throw Error(share.source() + ": no rows, so no labels");
  // Judged on the whole data, as MakeTargets judges it: every rank alike.
  const uint64_t rows = comm.Sum(share.rows());
  if (LooksLikeValues(kind, share, found.size(), rows)) {
    throw Error(ValuesNotClasses(kind, share, found.size(), rows));
  }
  return MakeTargets(kind, share, ClassesOf(kind, share, std::move(found), one_vs_rest));
}

Targets MakeTargets(ModelKind kind, const Dataset& data, const ClassLabels& labels) {
  if (data.label_kind() == LabelKind::kValues || IsRegressor(kind)) return ValueTargets(kind, data);
  Targets t;
  t.values = AlignedArray<float>(data.rows());
  t.classes = labels.classes();
  t.labels = labels;
  t.one_vs_rest = IsBinary(kind) && labels.classes() > 2;
  const bool binary = IsBinary(kind) && !t.one_vs_rest;
  const std::vector<std::string>& names = data.class_names();
  if (!names.empty() && labels.names.empty()) {
    throw Error(fmt::format("{}: its labels are text ({}), the model's classes are the numbers {}",
                            data.source(), ListNames(names), List(labels.values)));
  }
  // The class of a label of the data: by its text where the model's classes have names (the
  // data's own name for it, or the number as text), else by its number.
  auto class_of = [&](float y) {
    if (labels.names.empty()) return labels.Find(y);
    if (names.empty()) return labels.FindName(ShortestText(y));
    return labels.FindName(names.at(static_cast<std::size_t>(y)));
  };
  float last_label = 0, last_value = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const float y = Canonical(data.label(i));
    if (i == 0 || y != last_label) {
      const int k = class_of(y);
      if (k < 0) {
        const std::string label = names.empty() ? ShortestText(y)
                                                : "'" + names.at(static_cast<std::size_t>(y)) + "'";
        throw Error(
            fmt::format("{}: row {}: label {}: the model was trained on the labels {} and "
                        "never saw this one",
                        data.source(), i + 1, label,
                        labels.names.empty() ? List(labels.values) : ListNames(labels.names)));
      }
      last_label = y;
      last_value = binary ? (k == 1 ? 1.f : -1.f) : static_cast<float>(k);
    }
    t.values[i] = last_value;
  }
  CopyWeights(data, t);
  return t;
}

bool RegressesLabels(ModelKind kind, const Dataset& train, Communicator& comm) {
  if (IsRegressor(kind) || train.label_kind() == LabelKind::kValues) return true;
  if (kind != ModelKind::kSquared || !train.class_names().empty() ||
      !train.declared_classes().empty()) {
    return false;
  }
  // Up to three distinct labels of this rank's rows, then of every rank's together.
  std::vector<float> mine = DistinctLabels(train);
  mine.resize(std::min<std::size_t>(mine.size(), 3));
  return UnionOfRanks(std::move(mine), comm).size() > 2;
}

double MeanTarget(const Targets& targets, Communicator& comm) {
  std::vector<double> sums = {0, 0};  // sum w y, sum w
  for (uint64_t i = 0; i < targets.values.size(); ++i) {
    const double w = targets.weights.empty() ? 1.0 : targets.weights[i];
    sums[0] += w * targets.values[i];
    sums[1] += w;
  }
  comm.SumAll(std::span<double>(sums));
  return sums[1] > 0 ? sums[0] / sums[1] : 0;
}

Dataset AsRealValues(const Dataset& data) {
  if (data.label_kind() == LabelKind::kValues) return data;
  if (!data.class_names().empty()) {
    throw Error(fmt::format("{}: its labels are text ({}): classes, not values to regress",
                            data.source(), ListNames(data.class_names())));
  }
  Dataset::Parts parts = data.parts();
  parts.label_kind = LabelKind::kValues;
  parts.declared_classes.clear();
  return Dataset(std::move(parts));
}

bool ScaleWeightsToMeanOne(Targets& targets, const std::string& source, Communicator& ranks) {
  const double rows = static_cast<double>(targets.values.size());
  double sum = rows;
  if (!targets.weights.empty()) {
    sum = 0;
    for (float w : targets.weights) sum += w;
  }
  std::vector<double> sums = {sum, rows};
  ranks.SumAll(std::span<double>(sums));
  ranks.AgreeOn([&] {
    if (!(sums[0] > 0)) throw Error(source + ": every row weighs 0: nothing to train or measure");
  });
  const double scale = sums[1] / sums[0];
  if (scale != 1.0) {
    if (targets.weights.empty()) {
      targets.weights = AlignedArray<float>(targets.values.size());
      std::fill(targets.weights.begin(), targets.weights.end(), 1.f);
    }
    for (float& w : targets.weights) w = static_cast<float>(w * scale);
  }
  uint64_t not_one = 0;
  for (float w : targets.weights) not_one += w != 1.f;
  const bool weighted = ranks.Sum(not_one) > 0;
  if (!weighted) targets.weights = AlignedArray<float>();
  return weighted;
}

}  // namespace parsgd
