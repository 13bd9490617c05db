// Schemes: how workers meet the shared model. The asynchronous ones (every scheme but sync,
// average and gossip, which are epoch structures: see train/) are small policy types with
//  - Write / BiasWrite: how one coordinate is updated (relaxed store, or an atomic
//  read-modify-write);
//  - Guard: what is held while one sample is read, its gradient computed and the update written.
// The training loop is a template over the scheme, so none of this costs a call per sample.
//
// Every shared weight is read and written through std::atomic_ref: races between workers are part
// of the Hogwild! bargain, undefined behaviour is not. On x86 a relaxed atomic load or store of a
// float is a plain move.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "parsgd/data/dataset.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd {

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
  kSubnet
};

inline constexpr Named<SchemeKind> kSchemeKinds[] = {
    {SchemeKind::kAuto, "auto",
     "chosen once per run from the model and the machine (docs/schemes.md): sequential on one "
     "thread, average for mlp, hogwild or sequential for linear models by the threads' cache "
     "distance"},
    {SchemeKind::kSequential, "sequential", "one worker, the reference"},
    {SchemeKind::kHogwild, "hogwild", "lock-free, racy relaxed reads and writes (Niu et al. 2011)"},
    {SchemeKind::kLocked, "locked", "one mutex held for each whole sample update"},
    {SchemeKind::kStriped, "striped", "per-cache-line locks on the coordinates a sample touches"},
    {SchemeKind::kAtomic, "atomic", "lock-free, every coordinate by atomic read-modify-write"},
    {SchemeKind::kSync, "sync",
     "synchronous minibatch: one global --batch per step, gradients summed in a fixed order"},
    {SchemeKind::kAverage, "average",
     "model averaging: per-worker replicas, averaged every --period minibatches"},
    {SchemeKind::kGossip, "gossip",
     "decentralised averaging: per-worker replicas, each mixed with its ring neighbours every "
     "--period minibatches (D-PSGD, Lian et al. 2017)"},
    {SchemeKind::kPipeline, "pipeline",
     "mlp: the layers cut into stages balanced by FLOPs, one worker a stage, each minibatch in "
     "--micro-batches flowing through them (GPipe, Huang et al. 2019)"},
    {SchemeKind::kVertical, "vertical",
     "mlp: each worker owns a slice of every layer's units, the partial sums it lacks exchanged "
     "at every layer"},
    {SchemeKind::kSubnet, "subnet",
     "mlp: every --period, each hidden layer's units outside a shared skeleton (--skeleton-ratio) "
     "dealt at random to the workers, each training its subnetwork on its own samples "
     "(independent subnet training, Yuan et al. 2019)"},
};

// The schemes of per-worker replicas combined every --period minibatches
// (scheme/replica_runner.hpp).
inline bool IsReplicaScheme(SchemeKind kind) {
  return kind == SchemeKind::kAverage || kind == SchemeKind::kGossip;
}

// The MLP's model partitions (model/mlp/partition/partitions.hpp): workers own parts of the
// network, not samples or replicas of all of it.
inline bool IsModelPartition(SchemeKind kind) {
  return kind == SchemeKind::kPipeline || kind == SchemeKind::kVertical ||
         kind == SchemeKind::kSubnet;
}

// Schemes whose result does not depend on timing (--deterministic accepts only these; auto then
// chooses among them).
inline bool IsDeterministic(SchemeKind kind) {
  return kind == SchemeKind::kSequential || kind == SchemeKind::kSync || IsReplicaScheme(kind) ||
         IsModelPartition(kind) || kind == SchemeKind::kAuto;
}

inline float LoadRelaxed(const float& w) {
  return std::atomic_ref<float>(const_cast<float&>(w)).load(std::memory_order_relaxed);
}

// Write policies: Modify(x, f) replaces x by f(x) and returns the value written; Load(x) reads a
// variable another worker may write. Every policy evaluates the same f, so with one worker all
// schemes give the same bits.

// Relaxed load, then relaxed store: concurrent updates of the same variable may be lost.
struct StoreWrite {
  static float Load(const float& x) { return LoadRelaxed(x); }
  template <class F>
  static float Modify(float& x, F f) {
    std::atomic_ref<float> a(x);
    const float value = f(a.load(std::memory_order_relaxed));
    a.store(value, std::memory_order_relaxed);
    return value;
  }
};

// Compare-and-swap loop: no update is ever lost (a `lock cmpxchg` per variable on x86).
struct CasWrite {
  static float Load(const float& x) { return LoadRelaxed(x); }
  template <class F>
  static float Modify(float& x, F f) {
    std::atomic_ref<float> a(x);
    float old = a.load(std::memory_order_relaxed);
    float value = f(old);
    while (!a.compare_exchange_weak(old, value, std::memory_order_relaxed)) value = f(old);
    return value;
  }
};

// Writes straight to memory owned by one thread (a private replica or snapshot): plain loads and
// stores, so loops over many coordinates vectorise.
struct PlainWrite {
  static float Load(const float& x) { return x; }
  template <class F>
  static float Modify(float& x, F f) {
    x = f(x);
    return x;
  }
};

struct NoGuard {
  template <class Scheme>
  NoGuard(Scheme&, const SparseRow&) {}
};

// Hogwild! (Niu, Recht, Re, Wright, NIPS 2011): no locks; a worker reads the weights it needs,
// computes the gradient and writes the touched coordinates while others do the same.
struct HogwildScheme {
  using Write = StoreWrite;
  using BiasWrite = StoreWrite;
  using Guard = NoGuard;
};

// One worker and no concurrency: the same code path as Hogwild!.
struct SequentialScheme : HogwildScheme {};

// Lock-free but exact: every coordinate by compare-and-swap.
struct AtomicScheme {
  using Write = CasWrite;
  using BiasWrite = CasWrite;
  using Guard = NoGuard;
};

// The naive baseline Hogwild! beats: one mutex around each whole sample update.
struct LockedScheme {
  using Write = StoreWrite;
  using BiasWrite = StoreWrite;
  struct Guard {
    Guard(LockedScheme& s, const SparseRow&) : lock(s.mutex) {}
    std::lock_guard<std::mutex> lock;
  };
  std::mutex mutex;
};

// Fine-grained locking: one spin lock per stripe of coordinates (a stripe covers about a cache line
// of weights). A sample locks the stripes of its features in ascending order (its indices ascend,
// so no two workers wait on each other in a cycle) and releases them after its update. The bias,
// touched by every sample, is updated by compare-and-swap outside the locks: locking it would
// serialise every update and make this scheme the single lock again.
class StripedScheme {
 public:
  using Write = StoreWrite;
  using BiasWrite = CasWrite;

  // Stripes for `features` columns of `outputs` floats each.
  StripedScheme(uint64_t features, int outputs);

  class Guard {
   public:
    Guard(StripedScheme& s, const SparseRow& row) : scheme_(s), row_(row) { s.LockRow(row); }
    ~Guard() { scheme_.UnlockRow(row_); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    StripedScheme& scheme_;
    SparseRow row_;
  };

  uint64_t stripes() const { return stripes_; }
  uint64_t StripeOf(uint32_t feature) const { return feature >> shift_; }

 private:
  void LockRow(const SparseRow& row);
  void UnlockRow(const SparseRow& row);

  int shift_;
  uint64_t stripes_;
  std::unique_ptr<std::atomic<uint8_t>[]> locks_;
};

}  // namespace parsgd
