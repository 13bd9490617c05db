// The offload backend's target regions for the linear models. Every array a region names is
// already mapped (DeviceArray) and is named with map(alloc: ...), so no region copies data; only
// the scalars of a reduction come back. The loop bodies are the CPU backend's own step functions
// (parsgd/model/linear/linear_step.hpp, the optimiser rules, the schemes' write policies): GCC
// compiles them for the device because the regions call them, so both backends run the same
// arithmetic.
//
// Shared parameters are written only through std::atomic_ref (relaxed load/store for hogwild and
// sequential, compare-and-swap for atomic) or `omp atomic` (the sync scheme's gradient sums).
//
// GCC 12 cannot reduce two variables in one nvptx region (it asks for a 16-byte atomic compare-and-
// swap that the device lacks: "unresolved symbol __atomic_compare_exchange_16"), so every region
// here reduces at most one; a second sum goes through an array and SumOnDevice.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>

#include "model/linear/gradient_sum.hpp"
#include "model/linear/linear_runner.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/linear_step.hpp"

namespace parsgd::offload {

// A CSR set, its targets and its row weights, by their (mapped) host addresses.
struct Rows {
  const uint64_t* offsets;  // rows + 1
  const uint32_t* indices;  // nnz
  const float* values;      // nnz
  const float* targets;     // rows
  uint64_t rows;
  uint64_t nnz;
  const float* weights = nullptr;  // rows; null: every row 1
};

// The model's arrays: weights and optimiser state of `size` floats each (state null when the
// optimiser has none), per-feature rates (null when no feature needs one).
struct Params {
  float* weights;
  float* state0;
  float* state1;
  uint64_t size;
  const FeatureRate* rates;
  uint64_t features;
  int outputs;
};

// Launch shape: teams of `threads` threads (on the host fallback: one team).
struct Geometry {
  int teams;
  int threads;
};

// One epoch of an asynchronous scheme: worker w walks order[shard[w] .. shard[w + 1]) and updates
// the shared parameters after each sample; its step size is contexts[i / kStepBlock] at its i-th
// sample (the CPU backend's schedule).
//
// `stop` and `done` are host addresses, passed into the region as they are (is_device_ptr): set
// them only on the host fallback, where the region runs in the host's memory. There each worker
// checks the stop flag every kStepBlock samples, as CPU workers do, and writes how many samples it
// processed to done[w]. On a device both are null: the host cannot reach into a running region,
// and every worker walks its whole shard.
struct AsyncEpoch {
  const uint32_t* order;        // rows entries
  const uint64_t* shard;        // workers + 1
  const RuleContext* contexts;  // blocks
  uint64_t blocks;
  float* scratch;  // workers * outputs
  int workers;
  const std::atomic<bool>* stop = nullptr;
  uint64_t* done = nullptr;  // workers entries
};

template <class Head, class Rule, class Scheme>
EpochTotals RunAsyncEpoch(const Rows& d, const Params& p, const AsyncEpoch& a, Geometry g) {
  const uint64_t* off = d.offsets;
  const uint32_t* idx = d.indices;
  const float* val = d.values;
  const float* tgt = d.targets;
  const float* rw = d.weights;
  const uint64_t rows = d.rows, nnz = d.nnz, size = p.size, nrw = rw ? rows : 0;
  float* w = p.weights;
  float* s0 = p.state0;
  float* s1 = p.state1;
  const uint64_t n0 = s0 ? size : 0, n1 = s1 ? size : 0;
  const FeatureRate* rates = p.rates;
  const uint64_t nr = rates ? p.features : 0, features = p.features;
  const int outputs = p.outputs, workers = a.workers;
  const uint32_t* order = a.order;
  const uint64_t* shard = a.shard;
  const RuleContext* ctx = a.contexts;
  const uint64_t blocks = a.blocks, nz = static_cast<uint64_t>(workers) * outputs;
  float* scratch = a.scratch;
  const std::atomic<bool>* stop = a.stop;
  uint64_t* done = a.done;
  double loss = 0;
#pragma omp target teams distribute parallel for num_teams(g.teams) thread_limit(g.threads) \
    reduction(+ : loss) map(tofrom : loss)                                                 \
    map(alloc : off[0 : rows + 1], idx[0 : nnz], val[0 : nnz], tgt[0 : rows], rw[0 : nrw],  \
            w[0 : size], s0[0 : n0], s1[0 : n1], rates[0 : nr], order[0 : rows],           \
            shard[0 : workers + 1], ctx[0 : blocks], scratch[0 : nz])                      \
    is_device_ptr(stop, done)
  for (int worker = 0; worker < workers; ++worker) {
    const LinearParams params{ParamArrays{w, s0, s1}, features, outputs, rates};
    Scheme scheme;
    float* z = scratch + static_cast<uint64_t>(worker) * outputs;
    const uint64_t begin = shard[worker], end = shard[worker + 1];
    double worker_loss = 0;
    uint64_t i = begin;
    for (; i < end; ++i) {
      if (stop != nullptr && (i - begin) % kStepBlock == 0 &&
          stop->load(std::memory_order_relaxed)) {
        break;
      }
      const uint32_t r = order[i];
      const SparseRow x{idx + off[r], val + off[r], static_cast<uint32_t>(off[r + 1] - off[r])};
      worker_loss +=
          LinearSgdStep<Head, Rule, Scheme, false>(Head{}, scheme, params, x, tgt[r],
                                                   rw != nullptr ? rw[r] : 1.f,
                                                   ctx[(i - begin) / kStepBlock], z);
    }
    if (done != nullptr) done[worker] = i - begin;
    loss += worker_loss;
  }
  uint64_t updates = rows;
  if (done != nullptr) {
    updates = 0;
    for (int worker = 0; worker < workers; ++worker) updates += done[worker];
  }
  return {loss, updates};
}

// The sync scheme's device buffers. Between steps `sum` and `count` are zero and the step's
// touched counter is zero; consecutive steps use the two counters in turn, so that each step's
// second region can clear the next step's counter.
struct SyncBuffers {
  const uint32_t* order;    // rows entries: the epoch's samples in batch order
  double* losses;           // rows entries: each sample's loss, by its position in `order`
  float* d;                 // batch * outputs: the step's loss derivatives
  float* sum;               // (features + 1) * outputs: the step's summed gradient
  uint32_t* count;          // features: how many of the step's samples have feature j
  uint32_t* touched;        // features: the features the step touched, in no particular order
  uint32_t* touched_count;  // 2
  uint64_t batch;
};

// One synchronous minibatch step over order[first, first + size): every sample's derivatives from
// the same weights, summed per coordinate (float atomics: the sum's association order varies), then
// the rule applied once to each touched coordinate with the mean, exactly as GradientSum does on
// the CPU. `bound` is at least the number of features the step can touch (its samples' nonzeros).
template <class Head, class Rule>
void RunSyncStep(const Rows& d, const Params& p, const SyncBuffers& b, uint64_t first,
                 uint64_t size, uint64_t bound, int parity, const RuleContext rc, int threads,
                 bool on_host) {
  const uint64_t* off = d.offsets;
  const uint32_t* idx = d.indices;
  const float* val = d.values;
  const float* tgt = d.targets;
  const float* rw = d.weights;
  const uint64_t rows = d.rows, nnz = d.nnz, psize = p.size, nrw = rw ? rows : 0;
  float* w = p.weights;
  float* s0 = p.state0;
  float* s1 = p.state1;
  const uint64_t n0 = s0 ? psize : 0, n1 = s1 ? psize : 0;
  const FeatureRate* rates = p.rates;
  const uint64_t nr = rates ? p.features : 0, features = p.features;
  const int outputs = p.outputs;
  const uint32_t* order = b.order;
  double* losses = b.losses;
  float* dd = b.d;
  float* sum = b.sum;
  uint32_t* count = b.count;
  uint32_t* touched = b.touched;
  uint32_t* tc = b.touched_count;
  const uint64_t nd = b.batch * outputs, nsum = (features + 1) * outputs;
  const uint64_t bias = features * outputs;
  auto teams_for = [&](uint64_t n) {
    return on_host ? 1 : static_cast<int>((n + threads - 1) / threads);
  };

  // Derivatives and the scattered gradient sum.
#pragma omp target teams distribute parallel for num_teams(teams_for(size)) thread_limit(threads) \
    map(alloc                                                                                     \
        : off [0:rows + 1], idx [0:nnz], val [0:nnz], tgt [0:rows], rw [0:nrw], w [0:psize],      \
          rates [0:nr], order [0:rows], losses [0:rows], dd [0:nd], sum [0:nsum],                 \
          count [0:features], touched [0:features], tc [0:2])
  for (uint64_t i = 0; i < size; ++i) {
    const LinearParams params{ParamArrays{w, nullptr, nullptr}, features, outputs, rates};
    const uint32_t r = order[first + i];
    const SparseRow x{idx + off[r], val + off[r], static_cast<uint32_t>(off[r + 1] - off[r])};
    float* z = dd + i * outputs;
    LinearScores<Head::kOutputs, StoreWrite, false>(params, x, z);
    losses[first + i] =
        WeightedLossAndGradient(Head{}, z, outputs, tgt[r], rw != nullptr ? rw[r] : 1.f);
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const uint32_t j = x.index[e];
      const float input = StepInputOf(x.value[e], rates, j);
      float* s = sum + static_cast<uint64_t>(j) * outputs;
      for (int k = 0; k < outputs; ++k) {
#pragma omp atomic update
        s[k] += z[k] * input;
      }
      uint32_t before;
#pragma omp atomic capture
      {
        before = count[j];
        count[j] += 1;
      }
      if (before == 0) {
        uint32_t slot;
#pragma omp atomic capture
        {
          slot = tc[parity];
          tc[parity] += 1;
        }
        touched[slot] = j;
      }
    }
    for (int k = 0; k < outputs; ++k) {
#pragma omp atomic update
      sum[bias + k] += z[k];
    }
  }

  // The rule on each touched coordinate (one thread per feature), then the bias; clears as it goes.
  const float inv = 1.f / static_cast<float>(size);
#pragma omp target teams distribute parallel for num_teams(teams_for(bound + 1)) \
    thread_limit(threads)                                                      \
    map(alloc : w[0 : psize], s0[0 : n0], s1[0 : n1], rates[0 : nr], sum[0 : nsum], \
            count[0 : features], touched[0 : features], tc[0 : 2])
  for (uint64_t t = 0; t <= bound; ++t) {
    const ParamArrays arrays{w, s0, s1};
    if (t == 0) tc[1 - parity] = 0;
    if (t == bound) {
      ApplyBiasMean<Rule, StoreWrite>(arrays, bias, outputs, sum, inv, rc);
    } else if (t < tc[parity]) {
      const uint32_t j = touched[t];
      ApplyFeatureMean<Rule, StoreWrite>(arrays, rates, j, outputs, sum, count[j], inv, rc);
      count[j] = 0;
    }
  }
}

// Sum of a[0 .. n) on the device, in double.
template <class T>
double SumOnDevice(const T* a, uint64_t n, Geometry g) {
  double total = 0;
#pragma omp target teams distribute parallel for num_teams(g.teams) thread_limit(g.threads) \
    reduction(+ : total) map(tofrom : total) map(alloc : a[0 : n])
  for (uint64_t i = 0; i < n; ++i) total += static_cast<double>(a[i]);
  return total;
}

// Sum of the squared weights, biases excluded.
inline double SquaredNormOnDevice(const Params& p, Geometry g) {
  const float* w = p.weights;
  const uint64_t size = p.size, n = p.features * p.outputs;
  double total = 0;
#pragma omp target teams distribute parallel for num_teams(g.teams) thread_limit(g.threads) \
    reduction(+ : total) map(tofrom : total) map(alloc : w[0 : size])
  for (uint64_t i = 0; i < n; ++i) total += static_cast<double>(w[i]) * w[i];
  return total;
}

// Mean weighted loss, accuracy and weighted accuracy of the model on a set, as the CPU Evaluate
// has them (the weighted losses' sum over the rows; the weights' share of the rows predicted
// right). Columns beyond the model's features contribute nothing (test data wider than the
// training data). scratch holds teams * threads * outputs floats (one score vector per device
// thread), row_loss and row_right rows doubles each.
template <class Head>
Evaluation RunEvaluate(const Rows& d, const Params& p, float* scratch, double* row_loss,
                       double* row_right, Geometry g) {
  const uint64_t* off = d.offsets;
  const uint32_t* idx = d.indices;
  const float* val = d.values;
  const float* tgt = d.targets;
  const float* rw = d.weights;
  const uint64_t rows = d.rows, nnz = d.nnz, size = p.size, features = p.features;
  const uint64_t nrw = rw ? rows : 0;
  const float* w = p.weights;
  const int outputs = p.outputs, threads = g.threads;
  const uint64_t nz = static_cast<uint64_t>(g.teams) * g.threads * outputs;
  uint64_t correct = 0;
#pragma omp target teams distribute parallel for num_teams(g.teams) thread_limit(g.threads) \
    reduction(+ : correct) map(tofrom : correct)                                           \
    map(alloc : off[0 : rows + 1], idx[0 : nnz], val[0 : nnz], tgt[0 : rows], rw[0 : nrw],  \
            w[0 : size], scratch[0 : nz], row_loss[0 : rows], row_right[0 : rows])
  for (uint64_t i = 0; i < rows; ++i) {
    const int slot = omp_get_team_num() * threads + omp_get_thread_num();
    float* z = scratch + static_cast<uint64_t>(slot) * outputs;
    const float* bias = w + features * outputs;
    for (int k = 0; k < outputs; ++k) z[k] = bias[k];
    for (uint64_t e = off[i]; e < off[i + 1]; ++e) {
      const uint32_t j = idx[e];
      if (j >= features) continue;
      const float* wj = w + static_cast<uint64_t>(j) * outputs;
      for (int k = 0; k < outputs; ++k) z[k] += val[e] * wj[k];
    }
    const double weight = rw != nullptr ? rw[i] : 1.0;
    const bool right = Head{}.Correct(z, outputs, tgt[i]);
    row_loss[i] = weight * Head{}.Value(z, outputs, tgt[i]);
    row_right[i] = right ? weight : 0.0;
    correct += right ? 1 : 0;
  }
  Evaluation e;
  e.rows = rows;
  if (rows > 0) {
    e.mean_loss = SumOnDevice(row_loss, rows, g) / static_cast<double>(rows);
    e.accuracy = static_cast<double>(correct) / static_cast<double>(rows);
  }
  e.weight_sum = rw != nullptr ? SumOnDevice(rw, rows, g) : static_cast<double>(rows);
  if (e.weight_sum > 0) e.weighted_accuracy = SumOnDevice(row_right, rows, g) / e.weight_sum;
  return e;
}

}  // namespace parsgd::offload
