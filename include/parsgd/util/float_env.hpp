// Subnormal floats in the calling thread: flushed to zero while parsgd computes.
//
// An Intel core takes a microcode assist (on the order of a hundred cycles) for each operation
// that reads or produces a subnormal float; AMD cores pay far less. Training makes them: the
// momentum or moment state of a coordinate whose gradient stays exactly zero (a dead ReLU unit, a
// pixel never lit) decays by mu each step into the subnormal range, and since round-to-nearest of
// mu times the smallest subnormal is that subnormal again, it stays there. On the default MLP job
// (an Intel Xeon) this made every epoch after the first 2.5-2.8x slower than the first
// (bench/README.md, "Subnormals").
//
// FlushDenormalsScope sets flush-to-zero and denormals-are-zero (x86-64: MXCSR FTZ and DAZ;
// AArch64: FPCR.FZ) for its lifetime and restores the caller's mode after: every worker the
// executors run, the trainer's calling thread during an epoch (the offload host fallback's
// OpenMP teams start from it), and the oneDNN engine's OpenMP team (which takes its caller's
// mode) compute with it. Numerically: a result below 2^-126 in magnitude (1.2e-38) becomes zero,
// and such an input reads as zero; nothing else changes. Cost: two register writes per scope.
#pragma once

#include <cstdint>

namespace parsgd {

class FlushDenormalsScope {
 public:
  FlushDenormalsScope();
  ~FlushDenormalsScope();
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
  uint64_t saved_;
};

// Whether the calling thread flushes subnormals now (both flags on where the CPU has two); false
// on CPUs without the control.
bool FlushesDenormals();

// Sets the calling thread's mode to flushing (true) or not (false). For threads that a library
// owns (an OpenMP team), made to match the thread that hands them work.
void SetFlushDenormals(bool on);

}  // namespace parsgd
