#include "parsgd/comm/process.hpp"

#include <cstdlib>
#include <string>

#include "parsgd/util/error.hpp"

#if PARSGD_HAVE_MPI
#include "mpi_communicator.hpp"
#include "util/plugin.hpp"
#endif

namespace parsgd {

#if PARSGD_HAVE_MPI
std::shared_ptr<Communicator> MakeMpiCommunicator() {
  using Make = Communicator* (*)();
  // Global: Open MPI loads components of its own that look for libmpi's symbols.
  const auto make = reinterpret_cast<Make>(
      PluginSymbol("libparsgd_mpi.so", "parsgd_mpi_communicator", "running across MPI ranks",
                   /*global=*/true));
  return std::shared_ptr<Communicator>(make());
}
#endif

bool MpiBuilt() { return PARSGD_HAVE_MPI != 0; }

int LaunchedRanks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      const int ranks = std::atoi(value);
      if (ranks >= 1) return ranks;
    }
  }
  return 1;
}

std::shared_ptr<Communicator> ProcessCommunicator() {
  const int ranks = LaunchedRanks();
#if PARSGD_HAVE_MPI
  if (ranks > 1 || std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return MakeMpiCommunicator();
#else
  if (ranks > 1) {
    throw Error("started as one of " + std::to_string(ranks) +
                " ranks, but this parsgd was built without MPI: install libopenmpi-dev "
                "(scripts/install-deps.sh does) and build again, or run it without mpirun");
  }
#endif
  return std::make_shared<SoloCommunicator>();
}

}  // namespace parsgd
