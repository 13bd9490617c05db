// Write policies: how a worker reads and writes a shared parameter, and the asynchronous schemes
// (sequential, hogwild, locked, striped, atomic: the family kAsync of scheme/scheme_kind.hpp) as
// small policy types with
//  - Write / BiasWrite: how one coordinate is updated (relaxed store, or an atomic
//  read-modify-write);
//  - Guard: what is held while one sample is read, its gradient computed and the update written;
//  - HoldAll (locked only): the lock over the whole model, for a worker that updates every
//    coordinate at once (an MLP minibatch).
// The training loops are templates over the policy, so none of this costs a call per sample.
//
// Every shared weight is read and written through std::atomic_ref: races between workers are part
// of the Hogwild! bargain, undefined behaviour is not. On x86 a relaxed atomic load or store of a
// float is a plain move, but the compiler does not vectorise loops of them. Weights one thread
// alone touches while it trains (the sequential scheme's, a replica's) are plain floats.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "parsgd/data/dataset.hpp"
#include "parsgd/scheme/scheme_kind.hpp"

namespace parsgd {

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
  static constexpr SchemeKind kKind = SchemeKind::kHogwild;
  using Write = StoreWrite;
  using BiasWrite = StoreWrite;
  using Guard = NoGuard;
};

// One worker and no concurrency: while its epoch runs no other thread reads or writes the
// parameters (the runner's other threads wait for it; a replica is its worker's own), so plain
// loads and stores, which let the loops over a softmax row's K outputs vectorise. The arithmetic
// is Hogwild!'s: one Hogwild! worker gives the same bits.
struct SequentialScheme {
  static constexpr SchemeKind kKind = SchemeKind::kSequential;
  using Write = PlainWrite;
  using BiasWrite = PlainWrite;
  using Guard = NoGuard;
};

// Lock-free but exact: every coordinate by compare-and-swap.
struct AtomicScheme {
  static constexpr SchemeKind kKind = SchemeKind::kAtomic;
  using Write = CasWrite;
  using BiasWrite = CasWrite;
  using Guard = NoGuard;
};

// The naive baseline Hogwild! beats: one mutex around each whole sample update.
struct LockedScheme {
  static constexpr SchemeKind kKind = SchemeKind::kLocked;
  using Write = StoreWrite;
  using BiasWrite = StoreWrite;
  struct Guard {
    Guard(LockedScheme& s, const SparseRow&) : lock(s.mutex) {}
    std::lock_guard<std::mutex> lock;
  };
  // The lock over the whole model: while it is held no other worker reads or writes.
  std::unique_lock<std::mutex> HoldAll() { return std::unique_lock<std::mutex>(mutex); }
  std::mutex mutex;
};

// Fine-grained locking: one spin lock per stripe of coordinates (a stripe covers about a cache line
// of weights). A sample locks the stripes of its features in ascending order (its indices ascend,
// so no two workers wait on each other in a cycle) and releases them after its update. The bias,
// touched by every sample, is updated by compare-and-swap outside the locks: locking it would
// serialise every update and make this scheme the single lock again.
class StripedScheme {
 public:
  static constexpr SchemeKind kKind = SchemeKind::kStriped;
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

// The asynchronous schemes' policy types, one per row of the family kAsync.
template <class... Policies>
struct AsyncPolicyList {};
using AsyncPolicies =
    AsyncPolicyList<SequentialScheme, HogwildScheme, LockedScheme, StripedScheme, AtomicScheme>;

// A policy type passed as a value (the policies themselves may hold a lock or need a size).
template <class Policy>
struct PolicyTag {
  using type = Policy;
};

// Calls fn(PolicyTag<Policy>{}) with the policy type of the asynchronous scheme `kind` when
// Accept{}(static_cast<Policy*>(nullptr)) (a captureless constexpr predicate: the schemes a model
// or solver runs) takes it, else other(). The one dispatch from an asynchronous scheme's row to
// its code.
template <class Accept, class Fn, class Other, class... Policies>
decltype(auto) WithPolicyIn(AsyncPolicyList<Policies...>, SchemeKind kind, Fn&& fn, Other&& other) {
  decltype(other()) out{};
  bool done = false;
  auto one = [&]<class P>(P*) {
    if constexpr (Accept{}(static_cast<P*>(nullptr))) {
      if (!done && kind == P::kKind) {
        out = fn(PolicyTag<P>{});
        done = true;
      }
    }
  };
  (one(static_cast<Policies*>(nullptr)), ...);
  if (!done) out = other();
  return out;
}
template <class Accept, class Fn, class Other>
decltype(auto) WithAsyncPolicy(SchemeKind kind, Accept, Fn&& fn, Other&& other) {
  return WithPolicyIn<Accept>(AsyncPolicies{}, kind, std::forward<Fn>(fn),
                              std::forward<Other>(other));
}

// Accepts every asynchronous scheme.
inline constexpr auto kAnyAsync = [](auto*) { return true; };

}  // namespace parsgd
