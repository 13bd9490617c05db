// The backend axis (--backend): where the workers run. The offload backend runs the linear models
// on an OpenMP target device (a GPU through GCC's nvptx offload), or on the host when no device is
// available (host fallback).
#pragma once

#include "parsgd/util/named.hpp"

namespace parsgd {

enum class Backend { kCpu, kOffload };

inline constexpr Named<Backend> kBackends[] = {
    {Backend::kCpu, "cpu", "worker threads on this machine's cores"},
    {Backend::kOffload, "offload",
     "OpenMP target offload (GPU); falls back to the host when no device can run it"},
};

}  // namespace parsgd
