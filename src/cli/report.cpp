#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis.hpp"
#include "parsgd/config/settings.hpp"

namespace parsgd::cli {
namespace {

std::string JsonNumber(double v) { return fmt::format("{}", v); }

std::string JsonOptional(const std::optional<double>& v) { return v ? JsonNumber(*v) : "null"; }

// A regression's fit on the rows of `set` as fields: ,"SET_rmse":..,"SET_mae":..,"SET_r2":..
std::string FitJson(const char* set, const std::optional<RegressionScores>& fit) {
  if (!fit) return "";
  return fmt::format(R"(,"{0}_rmse":{1},"{0}_mae":{2},"{0}_r2":{3})", set, JsonNumber(fit->rmse),
                     JsonNumber(fit->mae), JsonNumber(fit->r2));
}

}  // namespace

std::string HumanCount(double value) {
  if (value >= 1e9) return fmt::format("{:.3g}G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.3g}M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.3g}k", value / 1e3);
  return fmt::format("{:.3g}", value);
}

std::string EpochHeader(bool has_test, bool dual, bool has_validation, bool regression,
                        bool suboptimality) {
  // A regression shows the root mean squared residual where a classifier shows its accuracy.
  const char* measure = regression ? "rmse" : "acc";
  return fmt::format(
             "{:>7}  {:>10}  {:>10}  {:>9}{}  {:>9}  {:>9}  {:>8}", "epoch", "objective",
             "train-loss", fmt::format("train-{}", measure),
             (has_test ? fmt::format("  {:>9}  {:>8}", "test-loss", fmt::format("test-{}", measure))
                       : "") +
                 (has_validation
                      ? fmt::format("  {:>9}  {:>8} ", "val-loss", fmt::format("val-{}", measure))
                      : ""),
             "samples/s", dual ? "rel-gap" : "lr", "elapsed") +
         (suboptimality ? fmt::format("  {:>10}", "rel-subopt") : "");
}

namespace {

// The accuracy in `width` characters ("85.21%"), or a regression's RMSE where it has a fit.
std::string Measure(std::optional<double> accuracy, const std::optional<RegressionScores>& fit,
                    int width) {
  if (fit) return fmt::format("{:>{}.4g}", fit->rmse, width);
  return fmt::format("{:>{}.2f}%", 100 * accuracy.value_or(0), width - 1);
}

}  // namespace

std::string EpochLine(const EpochReport& r, int epochs, double elapsed, bool has_test,
                      bool has_validation, std::optional<double> optimum) {
  std::string test;
  if (has_test) {
    test = fmt::format("  {:>9.5f}  {}", r.test_loss.value_or(0),
                       Measure(r.test_accuracy, r.test_fit, 8));
  }
  if (has_validation) {  // the best epoch so far marked
    test += fmt::format("  {:>9.5f}  {}{}", r.validation_loss.value_or(0),
                        Measure(r.validation_accuracy, r.validation_fit, 8),
                        r.best_epoch == r.epoch ? "*" : " ");
  }
  return fmt::format("{:>7}  {:>10.6f}  {:>10.6f}  {}{}  {:>9}  {:>9.3g}  {:>7.2f}s",
                     // the epoch as wide as the last, so that the rows stay aligned
                     fmt::format("{:>{}}/{}", r.epoch, fmt::formatted_size("{}", epochs), epochs),
                     r.objective, r.progressive_loss, Measure(r.train_accuracy, r.train_fit, 9),
                     test, HumanCount(r.samples_per_second()),
                     r.relative_gap().value_or(r.learning_rate), elapsed) +
         (optimum
              ? fmt::format("  {:>10.3e}", compare::RelativeSuboptimality(r.objective, *optimum))
              : "");
}

std::string EpochJson(const EpochReport& r, const TrainConfig& given, const TrainConfig& resolved,
                      const ResolvedSettings& s, double elapsed, std::optional<double> optimum) {
  // --deterministic promises the same bytes run to run, and with --workers on any thread count:
  // wall-clock values and the thread count are written as null.
  auto clock = [&](double seconds) {
    return given.deterministic ? std::string("null") : JsonNumber(seconds);
  };
  const std::string threads = given.deterministic ? "null" : std::to_string(s.threads);
  // The run's settings as the settings table records them (SettingRecord::metrics), resolved.
  return fmt::format(
      R"({{"epoch":{},{}"scheme_auto":{},"device":"{}","threads":{},"workers":{},"updates":{},)"
      R"("train_seconds":{},"eval_seconds":{},)"
      R"("elapsed_seconds":{},"samples_per_second":{},"learning_rate":{},"objective":{},)"
      R"("progressive_loss":{},"train_accuracy":{},"test_loss":{},"test_accuracy":{}{}{}{}{}{}{}}})",
      r.epoch, MetricsFields(resolved), given.scheme == SchemeKind::kAuto, s.device, threads,
      s.workers, r.updates, clock(r.train_seconds), clock(r.eval_seconds), clock(elapsed),
      clock(r.samples_per_second()), JsonNumber(r.learning_rate), JsonNumber(r.objective),
      JsonNumber(r.progressive_loss),
      // A regression has no accuracy: its fits instead.
      r.train_fit ? std::string("null") : JsonNumber(r.train_accuracy), JsonOptional(r.test_loss),
      r.test_fit ? std::string("null") : JsonOptional(r.test_accuracy),
      // The linear models: the weights that are not 0.
      (r.nonzero_weights ? fmt::format(R"(,"nonzero_weights":{})", *r.nonzero_weights) : "") +
          FitJson("train", r.train_fit) + FitJson("test", r.test_fit) +
          FitJson("validation", r.validation_fit),
      // Weighted rows: the weighted accuracies.
      (r.train_weighted_accuracy
           ? fmt::format(R"(,"train_weighted_accuracy":{})", JsonNumber(*r.train_weighted_accuracy))
           : "") +
          (r.test_weighted_accuracy ? fmt::format(R"(,"test_weighted_accuracy":{})",
                                                  JsonNumber(*r.test_weighted_accuracy))
                                    : ""),
      (r.dual_objective ? fmt::format(R"(,"dual_objective":{})", JsonNumber(*r.dual_objective))
                        : "") +
          (optimum ? fmt::format(R"(,"suboptimality":{})",
                                 JsonNumber(compare::RelativeSuboptimality(r.objective, *optimum)))
                   : "") +
          // Early stopping: the held-out rows' measures and the best epoch so far.
          (r.validation_loss
               ? fmt::format(R"(,"validation_loss":{},"validation_accuracy":{}{},"best_epoch":{})",
                             JsonNumber(*r.validation_loss), JsonNumber(*r.validation_accuracy),
                             r.validation_auc ? fmt::format(R"(,"validation_auc":{})",
                                                            JsonNumber(*r.validation_auc))
                                              : "",
                             r.best_epoch)
               : ""),
      // Across ranks: how many, and rank 0's seconds combining the models (within train_seconds).
      s.ranks > 1 ? fmt::format(R"(,"ranks":{},"ranks_period":{},"comm_seconds":{})", s.ranks,
                                s.ranks_period, clock(r.comm_seconds))
                  : "",
      // The model partitions: the bytes their workers exchanged; the pipeline's bubble.
      IsModelPartition(s.scheme) ? fmt::format(R"(,"exchanged_bytes":{})", r.exchanged_bytes) : "",
      r.bubble ? fmt::format(R"(,"bubble":{})", clock(*r.bubble)) : "");
}

}  // namespace parsgd::cli
