// The scheme axis (--scheme): how the workers meet what they share. Every fact about a scheme is
// one row of kSchemes: its name, help and citation, its family (the shape of its runner), whether
// its result repeats run to run, whether it takes minibatches, and which models, solvers and
// backends it runs and whether it runs inside a rank. The predicates below, the `--scheme` help,
// every "use X, Y or Z" message (SchemeNames) and the checks of ValidateConfig are derived from
// the rows; the runners are chosen from the row's family (scheme/runner.hpp and each model's
// runner factory). A new scheme is a row here and its runner.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "parsgd/exec/backend.hpp"
#include "parsgd/model/model_kind.hpp"
#include "parsgd/solver/solver.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd {

// A run's own copy of this value never leaves the process; checkpoints and model files name the
// scheme (kSchemes' name).
enum class SchemeKind {
  kAuto,
  kSequential,
  kHogwild,
  kLocked,
  kStriped,
  kAtomic,
  kSync,
  kAverage,
  kGossip,
  kPipeline,
  kVertical,
  kSubnet,
  kElastic,
};

// The shape of a scheme's runner (scheme/runner.hpp).
enum class SchemeFamily {
  kAuto,       // resolved once per run (run/scheme_choice.hpp)
  kAsync,      // every worker updates the shared model as it goes, under a write policy
               // (scheme/async_runner.hpp, scheme/write_policy.hpp)
  kSync,       // one global minibatch a step, gradients summed in a fixed order
               // (scheme/sync_runner.hpp)
  kReplica,    // a replica per worker, combined every --period (scheme/replica_runner.hpp)
  kPartition,  // the MLP's model partitions (model/mlp/partition/partitions.hpp)
};

// The models, solvers and backends a scheme runs, as bit sets.
enum SchemeRuns : unsigned {
  kLinearModels = 1u << 0,
  kMlpModel = 1u << 1,
  kSgdSolver = 1u << 2,
  kCdSolver = 1u << 3,
  kDualCdSolver = 1u << 4,
  kCpuBackend = 1u << 5,
  kOffloadBackend = 1u << 6,
  kInsideRanks = 1u << 7,  // runs inside each rank of a run across ranks
  kNewtonSolver = 1u << 8,
};

struct SchemeInfo {
  SchemeKind kind;
  const char* name;
  SchemeFamily family;
  // The result does not depend on thread timing (--deterministic accepts it; auto then chooses
  // among these).
  bool deterministic;
  // Linear models: takes --batch > 1 (the per-sample asynchronous schemes do not; the MLP always
  // takes minibatches).
  bool minibatch;
  unsigned runs;         // SchemeRuns
  const char* help;      // one line, without the citation
  const char* citation;  // "" where none
};

// clang-format off
inline constexpr unsigned kEverything = kLinearModels | kMlpModel | kSgdSolver | kCdSolver |
                                        kDualCdSolver | kCpuBackend | kOffloadBackend | kInsideRanks;
inline constexpr unsigned kMlpOnly = kMlpModel | kSgdSolver | kCpuBackend;
inline constexpr SchemeInfo kSchemes[] = {
  // kind                  name          family                  determ. minibatch runs
  {SchemeKind::kAuto,       "auto",       SchemeFamily::kAuto,      true,  true,
   kEverything | kNewtonSolver,
   "chosen once per run from the model, the data and the machine (docs/schemes.md, the default "
   "scheme)", ""},
  {SchemeKind::kSequential, "sequential", SchemeFamily::kAsync,     true,  true,  kEverything,
   "one worker, the reference (with --batch > 1 minibatch SGD)", ""},
  {SchemeKind::kHogwild,    "hogwild",    SchemeFamily::kAsync,     false, false, kEverything,
   "lock-free, racy relaxed reads and writes", "Hogwild!, Niu, Recht, Re and Wright, NIPS 2011"},
  {SchemeKind::kLocked,     "locked",     SchemeFamily::kAsync,     false, false,
   kLinearModels | kMlpModel | kSgdSolver | kDualCdSolver | kCpuBackend | kInsideRanks,
   "one mutex held for each whole sample update", ""},
  {SchemeKind::kStriped,    "striped",    SchemeFamily::kAsync,     false, false,
   kLinearModels | kSgdSolver | kDualCdSolver | kCpuBackend | kInsideRanks,
   "per-cache-line locks on the coordinates a sample touches (an MLP minibatch touches all of "
   "them: locked)", ""},
  {SchemeKind::kAtomic,     "atomic",     SchemeFamily::kAsync,     false, false, kEverything,
   "lock-free, every coordinate by atomic read-modify-write", ""},
  {SchemeKind::kSync,       "sync",       SchemeFamily::kSync,      true,  true,
   kLinearModels | kMlpModel | kSgdSolver | kNewtonSolver | kCpuBackend | kOffloadBackend |
       kInsideRanks,
   "synchronous minibatch: one global --batch per step, gradients summed in a fixed order "
   "(--solver newton: every pass over the data shared by the threads)", ""},
  {SchemeKind::kAverage,    "average",    SchemeFamily::kReplica,   true,  true,
   kLinearModels | kMlpModel | kSgdSolver | kCdSolver | kCpuBackend | kInsideRanks,
   "model averaging: per-worker replicas, averaged every --period minibatches (--solver cd: the "
   "workers' blocks merged once an epoch, CoCoA+)",
   "McDonald, Hall and Mann 2010; DimmWitted, Zhang and Re 2014"},
  {SchemeKind::kGossip,     "gossip",     SchemeFamily::kReplica,   true,  true,
   kLinearModels | kMlpModel | kSgdSolver | kCpuBackend | kInsideRanks,
   "decentralised averaging: per-worker replicas, each mixed with its ring neighbours every "
   "--period minibatches", "D-PSGD, Lian et al. 2017"},
  {SchemeKind::kPipeline,   "pipeline",   SchemeFamily::kPartition, true,  true,  kMlpOnly,
   "mlp: the layers cut into stages balanced by FLOPs, one worker a stage, each minibatch in "
   "--micro-batches flowing through them", "GPipe, Huang et al. 2019"},
  {SchemeKind::kVertical,   "vertical",   SchemeFamily::kPartition, true,  true,  kMlpOnly,
   "mlp: each worker owns a slice of every layer's units, the partial sums it lacks exchanged at "
   "every layer", ""},
  {SchemeKind::kSubnet,     "subnet",     SchemeFamily::kPartition, true,  true,  kMlpOnly,
   "mlp: every --period, each hidden layer's units outside a shared skeleton (--skeleton-ratio) "
   "dealt at random to the workers, each training its subnetwork on its own samples",
   "independent subnet training, Yuan et al. 2019"},
  {SchemeKind::kElastic,    "elastic",    SchemeFamily::kReplica,   true,  true,
   kLinearModels | kMlpModel | kSgdSolver | kCpuBackend | kInsideRanks,
   "elastic averaging: per-worker replicas and a centre, pulled toward each other by "
   "--elastic-alpha every --period minibatches; the centre is the model",
   "EASGD, Zhang, Choromanska and LeCun 2015"},
};
// clang-format on

// The row of `kind`.
constexpr const SchemeInfo& SchemeOf(SchemeKind kind) {
  for (const SchemeInfo& s : kSchemes) {
    if (s.kind == kind) return s;
  }
  return kSchemes[0];  // unreachable: every kind has a row (checked below)
}

// The rows as a name table (util/named.hpp), for the settings' `scheme` choice and lookups by
// name; each help with its citation.
namespace scheme_detail {
constexpr std::array<Named<SchemeKind>, std::size(kSchemes)> MakeNamed() {
  std::array<Named<SchemeKind>, std::size(kSchemes)> out{};
  for (std::size_t i = 0; i < std::size(kSchemes); ++i)
    out[i] = {kSchemes[i].kind, kSchemes[i].name, kSchemes[i].help};
  return out;
}
constexpr bool EveryKindOnce() {
  for (std::size_t i = 0; i < std::size(kSchemes); ++i) {
    if (static_cast<std::size_t>(kSchemes[i].kind) != i) return false;
  }
  return true;
}
static_assert(EveryKindOnce(), "kSchemes: one row per SchemeKind, in the enum's order");
}  // namespace scheme_detail
inline constexpr std::array<Named<SchemeKind>, std::size(kSchemes)> kSchemeKinds =
    scheme_detail::MakeNamed();

inline const char* SchemeName(SchemeKind kind) { return SchemeOf(kind).name; }

// The predicates, from the rows.
constexpr bool IsReplicaScheme(SchemeKind kind) {
  return SchemeOf(kind).family == SchemeFamily::kReplica;
}
constexpr bool IsModelPartition(SchemeKind kind) {
  return SchemeOf(kind).family == SchemeFamily::kPartition;
}
constexpr bool IsDeterministic(SchemeKind kind) { return SchemeOf(kind).deterministic; }
constexpr bool TrainsModel(const SchemeInfo& s, ModelKind model) {
  return (s.runs & (IsLinear(model) ? kLinearModels : kMlpModel)) != 0;
}
// The solver's bit among SchemeRuns.
constexpr unsigned SolverBit(Solver solver) {
  switch (solver) {
    case Solver::kSgd:
      return kSgdSolver;
    case Solver::kCd:
      return kCdSolver;
    case Solver::kDualCd:
      return kDualCdSolver;
    case Solver::kNewton:
      return kNewtonSolver;
  }
  return 0;
}
constexpr bool RunsSolver(const SchemeInfo& s, Solver solver) {
  return (s.runs & SolverBit(solver)) != 0;
}
constexpr bool RunsOn(const SchemeInfo& s, Backend backend) {
  return (s.runs & (backend == Backend::kCpu ? kCpuBackend : kOffloadBackend)) != 0;
}
constexpr bool RunsInsideRanks(const SchemeInfo& s) { return (s.runs & kInsideRanks) != 0; }

// "sequential, sync, average and gossip": the names of the rows `pred` accepts (auto left out),
// for messages and help.
template <class Pred>
std::string SchemeNames(Pred pred, const char* last_joint = " and ") {
  std::string out;
  const SchemeInfo* pending = nullptr;
  for (const SchemeInfo& s : kSchemes) {
    if (s.kind == SchemeKind::kAuto || !pred(s)) continue;
    if (pending != nullptr) out += out.empty() ? pending->name : std::string(", ") + pending->name;
    pending = &s;
  }
  if (pending != nullptr)
    out += out.empty() ? pending->name : last_joint + std::string(pending->name);
  return out;
}

}  // namespace parsgd
