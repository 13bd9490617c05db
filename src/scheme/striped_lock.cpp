#include <thread>

#include "parsgd/scheme/write_policy.hpp"

namespace parsgd {
namespace {

constexpr int kFloatsPerLine = 16;  // 64-byte line / 4-byte float

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void Acquire(std::atomic<uint8_t>& lock) {
  for (int spins = 0;; ++spins) {
    // Test before test-and-set: spin on a shared read, not on writes that bounce the line.
    if (lock.load(std::memory_order_relaxed) == 0 &&
        lock.exchange(1, std::memory_order_acquire) == 0) {
      return;
    }
    if (spins < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();  // more workers than cores: let the holder run
    }
  }
}

}  // namespace

StripedScheme::StripedScheme(uint64_t features, int outputs) {
  // Features per stripe: the largest power of two whose weights fit in one cache line (at least 1).
  shift_ = 0;
  while ((2 << shift_) * outputs <= kFloatsPerLine) ++shift_;
  stripes_ = (features >> shift_) + 1;
  locks_ = std::make_unique<std::atomic<uint8_t>[]>(stripes_);
  for (uint64_t s = 0; s < stripes_; ++s) locks_[s].store(0, std::memory_order_relaxed);
}

void StripedScheme::LockRow(const SparseRow& row) {
  uint64_t last = ~uint64_t{0};
  for (uint32_t e = 0; e < row.nnz; ++e) {
    const uint64_t s = StripeOf(row.index[e]);
    if (s != last) Acquire(locks_[s]);  // indices ascend, so stripes ascend: no lock cycle
    last = s;
  }
}

void StripedScheme::UnlockRow(const SparseRow& row) {
  uint64_t last = ~uint64_t{0};
  for (uint32_t e = 0; e < row.nnz; ++e) {
    const uint64_t s = StripeOf(row.index[e]);
    if (s != last) locks_[s].store(0, std::memory_order_release);
    last = s;
  }
}

}  // namespace parsgd
