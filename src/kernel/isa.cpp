#include "parsgd/kernel/isa.hpp"

#include <cstdlib>

#include "parsgd/util/error.hpp"

namespace parsgd {

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kScalar:
      break;
  }
  return "scalar";
}

bool CpuSupports(Isa isa) {
  // libgcc's probe checks the operating system's saved state (XCR0) as well as CPUID.
  __builtin_cpu_init();
  switch (isa) {
    case Isa::kScalar:
      return true;
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512:
      return CpuSupports(Isa::kAvx2) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq");
  }
  return false;
}

Isa CpuIsa() {
  if (CpuSupports(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuSupports(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kScalar;
}

namespace {

Isa ChooseIsa() {
  const char* env = std::getenv("PARSGD_ISA");
  if (env == nullptr || *env == '\0') return CpuIsa();
  for (Isa isa : kIsas) {
    if (IsaName(isa) != env) continue;
    if (!CpuSupports(isa)) {
      throw Error("PARSGD_ISA=" + std::string(env) + ": this CPU has no " + std::string(env) +
                  " (its widest path is " + std::string(IsaName(CpuIsa())) + ")");
    }
    return isa;
  }
  throw Error("PARSGD_ISA='" + std::string(env) + "' is not a path; choose scalar, avx2 or avx512");
}

}  // namespace

Isa ActiveIsa() {
  static const Isa isa = ChooseIsa();
  return isa;
}

std::string DescribeIsa() {
  const Isa active = ActiveIsa(), cpu = CpuIsa();
  std::string out(IsaName(active));
  if (active != cpu) out += " (PARSGD_ISA; the CPU has " + std::string(IsaName(cpu)) + ")";
  return out;
}

}  // namespace parsgd
