// Step-size schedules. A schedule is a pure function of training progress, measured in epochs
// (a real number: samples processed / rows), so workers compute it from their own counters without
// sharing any (as fastText does with its progress counter, minus the shared counter).
#pragma once

#include <cmath>
#include <cstdint>

#include "parsgd/util/named.hpp"

namespace parsgd {

enum class ScheduleKind { kConstant, kInvTime, kGeometric, kLinear, kOptimal, kAdaptive, kAuto };

inline constexpr Named<ScheduleKind> kScheduleKinds[] = {
    {ScheduleKind::kAuto, "auto",
     "adaptive where sgd plans at least 50 epochs and can end at a stall (the automatic epochs of "
     "a set of at most 20,000 rows, held-out rows, or --tol); linear otherwise"},
    {ScheduleKind::kConstant, "constant", "eta0 throughout"},
    {ScheduleKind::kInvTime, "invtime",
     "eta0 / (1 + decay * e), e = epochs done (fractional): eta ~ 1/t, as SGD theory asks"},
    {ScheduleKind::kGeometric, "geometric",
     "eta0 * decay^epoch, constant within an epoch (Hogwild!'s step-size backoff)"},
    {ScheduleKind::kLinear, "linear",
     "eta0 * (1 - e / epochs): down to 0 at the end of the run (fastText, word2vec)"},
    {ScheduleKind::kOptimal, "optimal",
     "1 / (l2 (t0 + t)), t = samples done: scikit-learn SGDClassifier's default (Bottou's t0); "
     "plain sgd with l2 > 0 and normalize none"},
    {ScheduleKind::kAdaptive, "adaptive",
     "eta0 until --patience epochs in a row do not lower the best objective (the held-out "
     "measure under early stopping) by more than --tol of the first epoch's, then a quarter of "
     "it, and so on; the run ends when the step has been cut 5 times (to eta0 / 1024) and "
     "stalls again (or at --epochs): independent of the planned epochs"},
};

// adaptive: the cuts of the step, each to a quarter, before a stall ends the run (eta0 / 1024 at
// the last, near the linear schedule's last epoch of a long plan; halving five times left the
// last iterate of a one-vs-rest hinge model noisy, 62% train accuracy against 83% and the linear
// schedule's 79%, tests/python/test_errors.py).
inline constexpr int kAdaptiveCuts = 5;

class StepSize {
 public:
  StepSize() = default;
  // decay: invtime's rate per epoch (> 0) or geometric's factor per epoch (in (0, 1]); unused by
  // constant and linear. epochs: the run's length (linear only). optimal is invtime with eta0 =
  // 1 / (l2 t0) and decay = rows / t0 (run/resolve.cpp derives both), so that the step after t
  // samples is 1 / (l2 (t0 + t)).
  StepSize(ScheduleKind kind, double eta0, double decay, int epochs = 1)
      : kind_(kind), eta0_(eta0), decay_(decay), epochs_(epochs) {}

  // adaptive: the step from the next epoch on is half the current one; `done`: the epochs done,
  // whose steps Sum counts from then on at the old size.
  void Cut(uint64_t done) {
    cut_sum_ += eta0_ * scale_ * static_cast<double>(done - cut_at_);
    cut_at_ = done;
    scale_ /= 4;
    ++cuts_;
  }
  int cuts() const { return cuts_; }
  // A checkpoint's: the cuts and the epoch of the last (adaptive; Cut's state).
  void Restore(int cuts, uint64_t cut_at, double cut_sum) {
    cuts_ = cuts;
    cut_at_ = cut_at;
    cut_sum_ = cut_sum;
    scale_ = std::ldexp(1.0, -2 * cuts);
  }
  uint64_t cut_at() const { return cut_at_; }
  double cut_sum() const { return cut_sum_; }

  // The step size at `epoch` (whole epochs done) plus `fraction` of the current one, in [0, 1).
  float At(uint64_t epoch, double fraction) const {
    switch (kind_) {
      case ScheduleKind::kConstant:
        return static_cast<float>(eta0_);
      case ScheduleKind::kAdaptive:
        return static_cast<float>(eta0_ * scale_);
      case ScheduleKind::kAuto:  // resolved before a StepSize is made (run/resolve.cpp)
        break;
      case ScheduleKind::kInvTime:
      case ScheduleKind::kOptimal:
        return static_cast<float>(eta0_ / (1.0 + decay_ * (static_cast<double>(epoch) + fraction)));
      case ScheduleKind::kGeometric:
        return static_cast<float>(eta0_ * std::pow(decay_, static_cast<double>(epoch)));
      case ScheduleKind::kLinear: {
        const double left = 1.0 - (static_cast<double>(epoch) + fraction) / epochs_;
        return static_cast<float>(eta0_ * (left > 0 ? left : 0.0));
      }
    }
    return 0.f;
  }

  // The integral of the step size over progress from 0 to `epoch` + `fraction` (in epochs times
  // the step size): times the steps an epoch takes, the sum of the step sizes of every step so
  // far (the clock of --l1's cumulative penalty, optimizer.hpp).
  double Sum(uint64_t epoch, double fraction) const {
    const double p = static_cast<double>(epoch) + fraction;
    switch (kind_) {
      case ScheduleKind::kConstant:
        return eta0_ * p;
      case ScheduleKind::kAdaptive:
        return cut_sum_ + eta0_ * scale_ * (p - static_cast<double>(cut_at_));
      case ScheduleKind::kAuto:
        break;
      case ScheduleKind::kInvTime:
      case ScheduleKind::kOptimal:
        return eta0_ / decay_ * std::log1p(decay_ * p);
      case ScheduleKind::kGeometric: {
        const double now = std::pow(decay_, static_cast<double>(epoch));  // decay^epoch
        const double whole = decay_ == 1.0 ? static_cast<double>(epoch) : (1 - now) / (1 - decay_);
        return eta0_ * (whole + now * fraction);
      }
      case ScheduleKind::kLinear: {
        const double q = p < epochs_ ? p : static_cast<double>(epochs_);
        return eta0_ * (q - q * q / (2.0 * epochs_));
      }
    }
    return 0;
  }

  ScheduleKind kind() const { return kind_; }
  double eta0() const { return eta0_; }
  double decay() const { return decay_; }

 private:
  ScheduleKind kind_ = ScheduleKind::kConstant;
  double eta0_ = 0.1;
  double decay_ = 1.0;
  int epochs_ = 1;  // the run's length, for the linear schedule
  // adaptive: the step's factor (4^-cuts), the epoch of the last cut and the steps' sum
  // (Sum) up to it.
  double scale_ = 1;
  int cuts_ = 0;
  uint64_t cut_at_ = 0;
  double cut_sum_ = 0;
};

}  // namespace parsgd
