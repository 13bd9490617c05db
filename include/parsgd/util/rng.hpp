// Small, fast, portable random number generation. Every random stream in parsgd is a pure function
// of (seed, stream identifiers), so runs repeat exactly on any machine and any thread count.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace parsgd {

__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang extension, for 64x64->128 products

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Derives an independent stream seed from a base seed and identifiers (epoch, worker, ...).
constexpr uint64_t DeriveSeed(uint64_t seed, std::initializer_list<uint64_t> ids) {
  uint64_t h = Mix64(seed);
  for (uint64_t id : ids) h = Mix64(h ^ Mix64(id + 0x632be59bd9b4e019ULL));
  return h;
}

// xoshiro256** (Blackman and Vigna 2018), seeded through SplitMix64. Not thread-safe: one per
// thread. Cost: a few cycles per draw.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      s = Mix64(seed - 0x9e3779b97f4a7c15ULL);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire 2019, multiply-and-reject).
  uint64_t Uniform(uint64_t n) {
    Uint128 m = static_cast<Uint128>(Next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<Uint128>(Next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Standard normal (Box-Muller; the second value is discarded to keep the stream simple).
  double Normal() {
    double u1 = UniformDouble();
    double u2 = UniformDouble();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace parsgd
