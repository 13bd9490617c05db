# OpenMP target offload for the offload backend (src/offload/): -DPARSGD_OFFLOAD=auto|nvptx|off.
#   auto:  on when the compiler can build and link an nvptx target region (GCC 12 with Debian's
#          gcc-offload-nvptx), else off;
#   nvptx: the same check, and a failure stops the configuration;
#   off:   host-only: target regions run on the host (the same code, the host fallback).
# Facts behind the flags (../shared/toolchain.md section 2): GCC 12 names PTX ISAs up to sm_80, and
# CUDA 13's ptxas, which nvptx-as uses to check the PTX when it is on PATH, refuses below sm_75; the
# H200 (sm_90) JIT-compiles the sm_80 PTX. The device needs newlib's libm (-lm) and no CET. With the
# package installed, plain -fopenmp compiles every target region for nvptx: 'off' must say
# -foffload=disable. FindOpenMP links libgomp by path; offload needs the -fopenmp driver flag at
# link time (crtoffload*.o, mkoffload). GCC 12's crtoffloadtable.o is not PIC: link with -no-pie.
#
# Results: PARSGD_OFFLOAD_ACTIVE, PARSGD_OFFLOAD_COMPILE_OPTIONS (for the offload sources only) and
# the INTERFACE target parsgd_offload_link (link options for every executable).
set(PARSGD_OFFLOAD "auto" CACHE STRING "OpenMP target offload: auto, nvptx or off")
set_property(CACHE PARSGD_OFFLOAD PROPERTY STRINGS auto nvptx off)
set(PARSGD_NVPTX_ARCH "sm_80" CACHE STRING "PTX ISA for GCC's nvptx offload (sm_75 or sm_80)")
if(NOT PARSGD_OFFLOAD MATCHES "^(auto|nvptx|off)$")
  message(FATAL_ERROR "PARSGD_OFFLOAD must be auto, nvptx or off, not '${PARSGD_OFFLOAD}'")
endif()

set(_parsgd_nvptx_link -foffload=nvptx-none
    "-foffload-options=nvptx-none=-march=${PARSGD_NVPTX_ARCH} -lm -fcf-protection=none")
set(PARSGD_OFFLOAD_ACTIVE OFF)
if(NOT PARSGD_OFFLOAD STREQUAL "off" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fopenmp")
  set(CMAKE_REQUIRED_LINK_OPTIONS -fopenmp ${_parsgd_nvptx_link} -no-pie)
  check_cxx_source_compiles([=[
    #include <cmath>
    int main() { float s = 0.f;
    #pragma omp target teams distribute parallel for reduction(+:s) map(tofrom:s)
      for (int i = 0; i < 64; ++i) s += std::exp(0.f);
      return s == 64.f ? 0 : 1; }]=] PARSGD_HAVE_NVPTX_${PARSGD_NVPTX_ARCH})
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(PARSGD_HAVE_NVPTX_${PARSGD_NVPTX_ARCH})
    set(PARSGD_OFFLOAD_ACTIVE ON)
  endif()
endif()
if(PARSGD_OFFLOAD STREQUAL "nvptx" AND NOT PARSGD_OFFLOAD_ACTIVE)
  message(FATAL_ERROR "PARSGD_OFFLOAD=nvptx, but the compiler cannot build nvptx offload code "
                      "(GCC with: apt-get install gcc-offload-nvptx libgomp-plugin-nvptx1)")
endif()

add_library(parsgd_offload_link INTERFACE)
if(PARSGD_OFFLOAD_ACTIVE)
  set(PARSGD_OFFLOAD_COMPILE_OPTIONS -fopenmp -fno-stack-protector -fcf-protection=none
      -DPARSGD_OFFLOAD_NVPTX=1)
  # -no-pie for executables only: with it a shared object (the Python module) would be linked as
  # a program (crt1.o, `main`); the module carries crtoffloadtable.o's text relocations instead.
  target_link_options(parsgd_offload_link INTERFACE -fopenmp ${_parsgd_nvptx_link}
                      $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(PARSGD_OFFLOAD_COMPILE_OPTIONS -fopenmp -foffload=disable)
  target_link_options(parsgd_offload_link INTERFACE -fopenmp -foffload=disable)
else()
  set(PARSGD_OFFLOAD_COMPILE_OPTIONS -fopenmp)
  target_link_options(parsgd_offload_link INTERFACE -fopenmp)
endif()
message(STATUS "parsgd: PARSGD_OFFLOAD=${PARSGD_OFFLOAD} -> device code ${PARSGD_OFFLOAD_ACTIVE}"
               " (${PARSGD_NVPTX_ARCH})")
