#include "train_start.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <string_view>
#include <vector>

#include "parsgd/io/checkpoint.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::cli {
namespace {

// The identity keys a resumed run may change: its length (only the linear schedule depends on it),
// and the identity's version (kIdentityVersion: every version writes the same lines).
constexpr std::string_view kRunLength[] = {"epochs", "identity"};

// The epochs of the run that wrote a checkpoint (its identity's "epochs=" line).
int CheckpointEpochs(const Checkpoint& c, const std::string& path) {
  const std::string text = IdentityValue(c.run, "epochs");
  int epochs = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), epochs);
  if (error != std::errc() || end != text.data() + text.size() || epochs < 1) {
    throw Error(fmt::format("--resume {}: the checkpoint's run identity has no valid epochs ('{}')",
                            path, text));
  }
  return epochs;
}

// With the linear schedule a longer (or shorter) run re-plans the rest of its schedule: the epochs
// left take the step sizes of a run of the new length, eta0 * (1 - e / epochs), down to 0 at its
// end. (Starting from the old plan's step size instead would start a finished run from 0.)
std::string PlanLine(const TrainConfig& config, const ResolvedSettings& s, int done, int before) {
  if (config.schedule != ScheduleKind::kLinear) return "";
  const StepSize now(ScheduleKind::kLinear, s.eta0, s.decay, s.epochs);
  const StepSize old(ScheduleKind::kLinear, s.eta0, s.decay, before);
  return fmt::format(
      "  schedule linear re-planned for {} epochs: eta {:.4g} at epoch {} (the {}-epoch plan's "
      "{:.4g}), down to 0 at epoch {}\n",
      s.epochs, now.At(done, 0), done, before, old.At(done, 0), s.epochs);
}

}  // namespace

SchemeKind CheckpointScheme(const Checkpoint& c, const std::string& path) {
  const std::string name = IdentityValue(c.run, "scheme");
  const std::optional<SchemeKind> scheme = FindByName<SchemeKind>(kSchemeKinds, name);
  if (!scheme || *scheme == SchemeKind::kAuto) {
    throw Error(fmt::format("--resume {}: the checkpoint's run identity names no scheme ('{}')",
                            path, name));
  }
  return *scheme;
}

int CheckpointBatch(const Checkpoint& c, const std::string& path) {
  const std::string value = IdentityValue(c.run, "batch");
  try {
    const int batch = std::stoi(value);
    if (batch >= 1) return batch;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("--resume {}: the checkpoint's run identity names no minibatch ('{}')",
                          path, value));
}

std::string Resume(Trainer& trainer, const Checkpoint& c,
                   const std::string& path) {
  // Other data first: the settings made from it (eta0, l2, ...) differ with it and would hide the
  // cause. But the data's identity across ranks hashes each rank's share: another rank count
  // changes it for the same data, and the settings name the ranks.
  const std::string run = IdentityDifferences(c.run, trainer.RunIdentity(), kRunLength);
  const std::string data = IdentityDifferences(c.data, trainer.DataIdentity());
  if (!data.empty() && run.find("  ranks: ") == std::string::npos) {
    throw Error(
        fmt::format("--resume {}: the checkpoint was trained on other data:\n{}", path, data));
  }
  if (!run.empty()) {
    throw Error(
        fmt::format("--resume {}: the checkpoint comes from a run with other settings; give "
                    "the same flags as that run (only --epochs may grow):\n{}",
                    path, run));
  }
  const ResolvedSettings& s = trainer.settings();
  const int before = CheckpointEpochs(c, path);
  const uint64_t done = c.state.Counter("epochs_done");
  if (done > static_cast<uint64_t>(s.epochs)) {
    throw Error(
        fmt::format("--resume {}: the checkpoint is after epoch {}, beyond this run's {} "
                    "epochs{}: give --epochs {} or more to continue it",
                    path, done, s.epochs, s.epochs_auto ? " (auto)" : "", done));
  }
  trainer.Restore(c.state);
  std::string out = fmt::format("  resuming after epoch {} from {}", done, path);
  if (before == s.epochs) return out + "\n";
  out += fmt::format(", a run of {} epochs continued to {}\n", before, s.epochs);
  return out + PlanLine(trainer.config(), s, static_cast<int>(done), before);
}

void TakeModelDefaults(const OptionParser& parser, const LoadedModel& model, RunArgs& run) {
  uint64_t features = 0;
  if (const auto* mlp = std::get_if<MlpModel>(&model.model)) {
    features = static_cast<uint64_t>(mlp->inputs());
    const std::vector<int>& sizes = mlp->sizes();
    if (!parser.Given("hidden")) run.config.hidden.assign(sizes.begin() + 1, sizes.end() - 1);
  } else {
    const LinearModel& linear = std::get<LinearModel>(model.model);
    features = linear.features();
    // A binary loss's model of an output a class was trained one-vs-rest: so is its sequel.
    if (!parser.Given("multiclass") && IsBinary(KindOf(model.model)) && linear.outputs() > 1) {
      run.config.multiclass = Multiclass::kOneVsRest;
    }
  }
  if (!parser.Given("model")) run.config.model = KindOf(model.model);
  if (!parser.Given("features")) run.features = features;
}

std::string StartFromModel(Trainer& trainer, const LoadedModel& model, const std::string& path) {
  try {
    trainer.StartFrom(model.model);
  } catch (const Error& e) {
    throw Error(fmt::format("--init {}: {}", path, e.what()));
  }
  return fmt::format("  starting from the model in {} (optimiser state zero)\n", path);
}

}  // namespace parsgd::cli
