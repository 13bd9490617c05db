// --scheme auto, the default: the scheme a run takes when the user names none, decided once per
// run from the model and the machine, before anything is allocated.
//
// The rule (docs/schemes.md, "The default scheme"; the measurements behind each threshold in
// bench/README.md, "The default scheme rule"):
//  - one thread: sequential (every scheme gives its result with one worker; it has no overhead);
//  - the offload backend: hogwild on a GPU's workers (sequential under --deterministic, sync with
//    --batch > 1);
//  - mlp: average. Every minibatch writes every weight, so a shared model moves all of its cache
//    lines between the cores each step; replicas share nothing between two averages;
//  - linear, --batch > 1: sync when a cache line's round trip between two of the run's threads is
//    at most kNearRoundTripNs and the minibatch holds kSyncShare samples for each thread (near
//    cores share a minibatch's phases cheaply; below kSyncShare samples a thread the barriers
//    cost more than the work); else, or under --deterministic, sequential minibatch SGD (sync's
//    algorithm on one worker);
//  - linear, --deterministic: sequential (the schemes that repeat exactly and also update per
//    sample);
//  - linear otherwise: per-sample replicas (average, --batch 1, combined ten times an epoch) when
//    each worker's period holds at least kReplicaWork nonzeros per feature (per weight of a
//    binary model; each nonzero of a K-class model trains, and each feature averages, K): the
//    combining step and the model's cache lines crossing the machine after it are then small
//    beside the training, wherever the cores are. Else, where an epoch holds fewer than
//    kShareableWork nonzeros times the outputs (tables of a few hundred rows), sequential without
//    measuring: the round trip's measurement took 5-8 ms there, longer than the whole training,
//    and a second Hogwild! worker ran as fast as one. Else hogwild when a cache line's round trip
//    between two of the run's threads is at most kNearRoundTripNs (the cores share a cache), or
//    when the data spreads its writes over at least kSpreadWriteLines cache lines of weights (few
//    writes then meet a line the other worker holds); else sequential: where the writes
//    concentrate on hot weights and every write to one pays a trip across the machine, a second
//    Hogwild! worker slows the first more than it helps.
#pragma once

#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/exec/executor.hpp"
#include "scheme/replica_settings.hpp"

namespace parsgd {

inline constexpr double kNearRoundTripNs = 150;
inline constexpr double kSpreadWriteLines = 4096;
inline constexpr double kReplicaWork = 10;
inline constexpr int kSyncShare = 8;
inline constexpr double kShareableWork = 16384;

struct SchemeChoice {
  SchemeKind scheme;
  std::string reason;  // why, in a few words: the setup print and the metrics carry it
  int batch = 0;       // the minibatch the scheme is chosen with (0: the scheme's default)
};

// Whether the rule needs the measured round trip for this config (the trainer skips it when the
// data already decides for replicas: ReplicaWork >= kReplicaWork).
bool NeedsRoundTrip(const TrainConfig& config, int threads);

// The rule, pure: from the settings (scheme kAuto), the run's threads, the measured round trip in
// nanoseconds, the data's EffectiveWriteLines, its ReplicaWork and an epoch's nonzeros times the
// model's outputs (all ignored where NeedsRoundTrip is false; a round trip < 0: not measured,
// taken as far; lines < 0: not counted, taken as concentrated; work < 0: not computed, replicas
// not chosen; epoch work < 0: not computed, taken as large).
SchemeChoice ChooseScheme(const TrainConfig& config, int threads, double round_trip_ns,
                          double write_lines, double replica_work = -1, double epoch_work = -1);


// The nonzeros of one worker's automatic per-sample period per feature of the model (features + 1,
// the bias counted as one).
double ReplicaWork(const Dataset& data, int workers);

// Over how many 64-byte lines of a linear model's weights (`outputs` floats per feature) the
// training rows' writes are effectively spread: (sum_l n_l)^2 / sum_l n_l^2, n_l the nonzeros on
// the features of line l. The number of lines for uniform writes, far fewer when a few features
// carry most nonzeros. One pass over the nonzeros; memory: 8 bytes per line.
double EffectiveWriteLines(const Dataset& data, int outputs);

// The round trip of a cache line between two of the executor's workers, in nanoseconds: a
// ping-pong of up to 1024 trips within 20 ms (about half a millisecond on an idle machine), timed
// in batches of 16, the lower quartile of the batches. Returns < 0 when the executor has fewer than
// two threads or fewer than 4 batches completed (the two workers did not run at the same time:
// a loaded machine).
double MeasureRoundTripNs(Executor& executor);

}  // namespace parsgd
