// parsgd device: where the offload backend's target regions run on this machine, and the CPU's
// vector path the sparse kernels take.
#include <cstdio>

#include "commands.hpp"
#include "options.hpp"
#include "parsgd/kernel/isa.hpp"
#include "parsgd/offload/device.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::cli {

int Device(std::span<const std::string> args) {
  bool require_gpu = false;
  OptionParser parser("device",
                      "Run one OpenMP target region and report where it ran (the offload backend's "
                      "device, or the host fallback), and the vector path of the CPU's sparse "
                      "kernels (PARSGD_ISA=scalar|avx2|avx512 forces one).");
  parser.Switch("require-gpu", &require_gpu, "exit with an error unless the region ran on a GPU");
  if (!parser.Parse(args)) {
    std::printf("%s", parser.Help().c_str());
    return 0;
  }
  std::printf("cpu kernels:     %s\n", DescribeIsa().c_str());
  const DeviceInfo info = ProbeDevice();
  std::printf("OpenMP devices:  %d\n", info.devices);
  std::printf("device code:     %s\n", info.built_for_device ? "nvptx (PARSGD_OFFLOAD on)"
                                                             : "none (host-only build)");
  std::printf("target region:   ran on %s\n", info.ran_on_host ? "the host" : "the device");
  std::printf("backend offload: %s\n", DescribeDevice(info).c_str());
  if (require_gpu && info.ran_on_host) {
    throw Error("--require-gpu: the target region ran on the host; GOMP_DEBUG=1 shows why the "
                "device was dropped");
  }
  return 0;
}

}  // namespace parsgd::cli
