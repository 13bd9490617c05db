// Where OpenMP target regions run: the offload backend's answer to "did this really use the GPU?".
// GCC 12 runs a target region on the host, silently, when no device can take it (none present, no
// plugin, a build without offload; OMP_TARGET_OFFLOAD=MANDATORY does not change that), so the
// answer comes from inside a region: omp_is_initial_device() written by the region itself.
#pragma once

#include <string>

namespace parsgd {

struct DeviceInfo {
  int devices = 0;                // omp_get_num_devices()
  bool ran_on_host = true;        // omp_is_initial_device() inside a target region
  bool built_for_device = false;  // this build carries device code (PARSGD_OFFLOAD active)
  std::string name;               // the GPU's name (through the CUDA driver), or "host-fallback"
};

// Runs one empty target region on the default device and reports where it ran. Cheap after the
// first call (which starts the device runtime, and on a GPU JIT-compiles the device code).
DeviceInfo ProbeDevice();

// Runs a target region of one team of `threads` threads (as the offload kernels run on the host
// fallback) and returns how many of them read a subnormal float as zero and flush a subnormal
// result to zero. On the host fallback that is all of them when the caller flushes subnormals
// (util/float_env.hpp: the team starts from the calling thread's mode) and none otherwise; on a
// GPU, the device's own rule.
int TargetThreadsFlushingDenormals(int threads);

// One line for people: "NVIDIA H200 (1 device)" or "host-fallback (0 devices, ...)".
std::string DescribeDevice(const DeviceInfo& info);

}  // namespace parsgd
