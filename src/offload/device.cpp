#include "parsgd/offload/device.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <omp.h>

namespace parsgd {
namespace {

// The GPU's name from the CUDA driver API, loaded at run time (the driver comes with the GPU; the
// build needs no CUDA). Empty when the driver is missing or says no.
std::string CudaDeviceName(int ordinal) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) return {};
  using InitFn = int (*)(unsigned);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto get = reinterpret_cast<GetFn>(dlsym(cuda, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(cuda, "cuDeviceGetName"));
  std::string result;
  int device = 0;
  char buffer[256] = {};
  if (init && get && name && init(0) == 0 && get(&device, ordinal) == 0 &&
      name(buffer, sizeof buffer - 1, device) == 0) {
    result = buffer;
  }
  dlclose(cuda);
  return result;
}

}  // namespace

DeviceInfo ProbeDevice() {
  DeviceInfo info;
  info.devices = omp_get_num_devices();
#ifdef PARSGD_OFFLOAD_NVPTX
  info.built_for_device = true;
#endif
  int initial = 1;
#pragma omp target map(from : initial)
  { initial = omp_is_initial_device(); }
  info.ran_on_host = initial != 0;
  if (info.ran_on_host) {
    info.name = "host-fallback";
  } else {
    info.name = CudaDeviceName(omp_get_default_device());
    if (info.name.empty()) info.name = fmt::format("OpenMP device {}", omp_get_default_device());
  }
  return info;
}

int TargetThreadsFlushingDenormals(int threads) {
  volatile float subnormal = 1e-40f, smallest_normal = 1.17549435e-38f;
  const float x = subnormal, y = smallest_normal;
  int flushed = 0;
#pragma omp target teams distribute parallel for num_teams(1) thread_limit(threads) \
    schedule(static, 1) reduction(+ : flushed) map(tofrom : flushed)
  for (int t = 0; t < threads; ++t) {
    volatile float in = x, half = y;
    const float read = in, produced = half * 0.5f;  // DAZ reads 0; FTZ writes 0
    flushed += read == 0.f && produced == 0.f ? 1 : 0;
  }
  return flushed;
}

std::string DescribeDevice(const DeviceInfo& info) {
  if (!info.ran_on_host) return fmt::format("{} ({} device{})", info.name, info.devices,
                                            info.devices == 1 ? "" : "s");
  return fmt::format("host-fallback ({} device{}, {})", info.devices, info.devices == 1 ? "" : "s",
                     info.built_for_device ? "built with nvptx offload"
                                           : "built without offload: PARSGD_OFFLOAD=off or no "
                                             "gcc-offload-nvptx");
}

}  // namespace parsgd
