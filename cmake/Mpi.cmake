# Ranks across processes and machines through MPI (src/comm/mpi_communicator.cpp): -DPARSGD_MPI=
# auto (the default: built when CMake finds an MPI, Debian's libopenmpi-dev or libmpich-dev), on
# (an error without one) or off. The sanitizer presets set it off: Open MPI's own allocations at
# MPI_Init and MPI_Finalize are reported as leaks by LeakSanitizer, and its transports are not
# built for ThreadSanitizer.
# Results: PARSGD_MPI_ACTIVE, and when active the target MPI::MPI_CXX (the C API, from C++) and MPIEXEC_EXECUTABLE (the
# tests launch `mpirun -np 2` through ctest).
set(PARSGD_MPI "auto" CACHE STRING "MPI ranks: auto, on or off")
set_property(CACHE PARSGD_MPI PROPERTY STRINGS auto on off)
if(NOT PARSGD_MPI MATCHES "^(auto|on|off)$")
  message(FATAL_ERROR "PARSGD_MPI must be auto, on or off, not '${PARSGD_MPI}'")
endif()
set(PARSGD_MPI_ACTIVE OFF)
set(MPI_CXX_SKIP_MPICXX ON)  # the C API only: MPI 3 deprecated the C++ bindings
if(NOT PARSGD_MPI STREQUAL "off")
  if(PARSGD_MPI STREQUAL "on")
    find_package(MPI REQUIRED COMPONENTS CXX)
  else()
    find_package(MPI QUIET COMPONENTS CXX)
  endif()
  if(MPI_CXX_FOUND)
    set(PARSGD_MPI_ACTIVE ON)
  endif()
endif()
message(STATUS "parsgd: MPI ranks ${PARSGD_MPI_ACTIVE} (PARSGD_MPI=${PARSGD_MPI})")
