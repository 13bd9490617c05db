#include "parsgd/util/float_env.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace parsgd {
namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr uint64_t kFlushBits = 0x8000 | 0x0040;  // MXCSR FTZ (bit 15) and DAZ (bit 6)
uint64_t ReadMode() { return _mm_getcsr(); }
void WriteMode(uint64_t mode) { _mm_setcsr(static_cast<unsigned>(mode)); }
#elif defined(__aarch64__)
constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR.FZ
uint64_t ReadMode() {
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
void WriteMode(uint64_t mode) { __asm__ __volatile__("msr fpcr, %0" : : "r"(mode)); }
#else
constexpr uint64_t kFlushBits = 0;
uint64_t ReadMode() { return 0; }
void WriteMode(uint64_t) {}
#endif

}  // namespace

FlushDenormalsScope::FlushDenormalsScope() : saved_(ReadMode()) { WriteMode(saved_ | kFlushBits); }

FlushDenormalsScope::~FlushDenormalsScope() { WriteMode(saved_); }

bool FlushesDenormals() { return kFlushBits != 0 && (ReadMode() & kFlushBits) == kFlushBits; }

void SetFlushDenormals(bool on) {
  const uint64_t mode = ReadMode();
  WriteMode(on ? mode | kFlushBits : mode & ~kFlushBits);
}

}  // namespace parsgd
