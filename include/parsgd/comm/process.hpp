// The communicator of this process: MPI's world when this parsgd was built with MPI (PARSGD_MPI)
// and an MPI launcher started it (mpirun, mpiexec, srun: found by the environment they set), else
// this process alone.
#pragma once

#include <memory>

#include "parsgd/comm/communicator.hpp"

namespace parsgd {

// Whether this build has the MPI communicator.
bool MpiBuilt();

// Ranks the launcher started this process among, as its environment says (Open MPI's
// OMPI_COMM_WORLD_SIZE, MPICH's and Slurm's PMI_SIZE), 1 if none.
int LaunchedRanks();

// MPI's world (initialised here, MPI_THREAD_FUNNELED; finalised when the last user lets go) when
// built with MPI and launched by an MPI launcher; else a SoloCommunicator. Throws parsgd::Error
// when launched among several ranks by a build without MPI (each rank would train alone).
std::shared_ptr<Communicator> ProcessCommunicator();

}  // namespace parsgd
