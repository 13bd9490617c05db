// Internal: the Communicator over MPI_COMM_WORLD (built when PARSGD_MPI finds an MPI), in the
// plugin libparsgd_mpi.so (util/plugin.hpp): a process started without mpirun never loads MPI.
#pragma once

#include <memory>

#include "parsgd/comm/communicator.hpp"

namespace parsgd {

// Initialises MPI (MPI_THREAD_FUNNELED: collectives from one thread per rank) unless it already
// is, and finalises it when the communicator is destroyed, if it initialised it. Loads the plugin
// (comm/process.cpp).
std::shared_ptr<Communicator> MakeMpiCommunicator();

}  // namespace parsgd
