// --scheme auto, the default: the scheme a run takes when the user names none, decided once per
// run from the model and the machine, before anything is allocated.
//
// The rule (docs/schemes.md, "The default scheme"; the measurements behind it in bench/README.md):
//  - one thread: sequential (every scheme gives its result with one worker; it has no overhead);
//  - the offload backend: hogwild on a GPU's workers (sequential under --deterministic, sync with
//    --batch > 1);
//  - mlp: average. Every minibatch writes every weight, so a shared model moves all of its cache
//    lines between the cores each step; replicas share nothing between two averages;
//  - linear, --batch > 1: sync (the minibatch spread over the workers);
//  - linear, --deterministic: sequential (the schemes that repeat exactly and also update per
//    sample);
//  - linear otherwise: hogwild when a cache line's round trip between two of the run's threads is
//    at most kNearRoundTripNs (the cores share a cache), else sequential: where every write to a
//    hot weight pays a trip across the machine, a second Hogwild! worker slows the first more than
//    it helps (0.4-0.6x at 2 threads on such a VM, 1.6x where the same VM placed them near).
#pragma once

#include <string>

#include "parsgd/train/config.hpp"
#include "parsgd/train/executor.hpp"

namespace parsgd {

inline constexpr double kNearRoundTripNs = 250;

struct SchemeChoice {
  SchemeKind scheme;
  std::string reason;  // why, in a few words: the setup print and the metrics carry it
};

// Whether the rule needs the measured round trip for this config.
bool NeedsRoundTrip(const TrainConfig& config, int threads);

// The rule, pure: from the settings (scheme kAuto), the run's threads and the measured round trip
// in nanoseconds (ignored where NeedsRoundTrip is false; < 0: not measured, taken as far).
SchemeChoice ChooseScheme(const TrainConfig& config, int threads, double round_trip_ns);

// The round trip of a cache line between two of the executor's workers, in nanoseconds: a
// ping-pong of up to 1024 trips within 20 ms (about half a millisecond on an idle machine), timed
// in batches of 16, the lower quartile of the batches. Returns < 0 when the executor has fewer than
// two threads or fewer than 4 batches completed (the two workers did not run at the same time:
// a loaded machine).
double MeasureRoundTripNs(Executor& executor);

}  // namespace parsgd
