// The CPU's vector units, chosen once per process: the sparse linear kernels
// (parsgd/kernel/sparse_kernels.hpp) have a scalar path, which runs anywhere, and AVX2 and AVX-512
// paths, compiled for those units alone (function target attributes, not -march), so one binary
// built for baseline x86-64 uses what the machine it runs on has.
//
// The choice: the widest path the CPU and the operating system support, unless PARSGD_ISA names
// one (scalar, avx2 or avx512; a path this CPU lacks is an error, never a silent fallback).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace parsgd {

enum class Isa : uint8_t { kScalar, kAvx2, kAvx512 };

inline constexpr Isa kIsas[] = {Isa::kScalar, Isa::kAvx2, Isa::kAvx512};

// "scalar", "avx2", "avx512": PARSGD_ISA's words.
std::string_view IsaName(Isa isa);

// Whether this CPU (and the operating system, which must save its registers) runs `isa`'s path:
// avx2 needs AVX2 and FMA; avx512 needs AVX-512 F, VL, BW and DQ as well.
bool CpuSupports(Isa isa);

// The widest path CpuSupports.
Isa CpuIsa();

// The path in use: PARSGD_ISA when set (checked against CpuSupports), else CpuIsa(). Read once; an
// unknown name or a path the CPU lacks throws parsgd::Error naming the variable and the choices.
Isa ActiveIsa();

// The path for kernels over a model of `size` floats: the vector paths address a weight by a
// signed 32-bit lane, so a model of 2^31 floats or more takes the scalar path.
inline Isa KernelIsa(Isa active, uint64_t size) {
  return size < (uint64_t{1} << 31) ? active : Isa::kScalar;
}

// One line for a report: the path in use, and what the CPU offers when PARSGD_ISA chose a
// narrower one ("avx512", "avx2 (PARSGD_ISA; the CPU has avx512)").
std::string DescribeIsa();

}  // namespace parsgd
