// Internal: the parts of parsgd built as shared objects of their own and loaded on first use, so
// that a process that never trains an MLP or runs across ranks never loads oneDNN or Open MPI
// (loading them took 2.2 ms of the 4.1 ms `parsgd --version`; bench/README.md, "Small tables"):
// libparsgd_onednn.so (the MLP's oneDNN engine and sgemm) and libparsgd_mpi.so (the MPI
// communicator). Each exports C functions only (the objects they make are parsgd's own abstract
// classes, whose code stays in them: they are never unloaded).
#pragma once

#include <string_view>

namespace parsgd {

// The address of `symbol` in the plugin `library` (a file name, e.g. "libparsgd_onednn.so"),
// loaded once: from beside the program or module that holds this code (the parsgd program, the
// Python module), else from the directory the build wrote it to. `global`: its symbols, and its
// libraries', are made visible to libraries loaded later (Open MPI loads its own components so).
// Throws parsgd::Error naming the file, the places looked in and `what` needs it.
void* PluginSymbol(std::string_view library, const char* symbol, std::string_view what,
                   bool global = false);

}  // namespace parsgd
