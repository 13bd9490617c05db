// libFuzzer target: the checkpoint reader (LoadCheckpoint).
// Input layout: byte 0 flags, then the file. Bit 0 of the flags recomputes the trailing checksum
// (XXH64 of every byte before it), so that mutations reach the field checks behind it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/util/error.hpp"
#include "util/xxhash64.hpp"  // internal: the checksum

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static parsgd::fuzz::InputFile input;
  if (size < 1) return 0;
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) && file.size() >= 8) {
    const uint64_t checksum = parsgd::Xxh64(file.data(), file.size() - 8, 0);
    std::memcpy(file.data() + file.size() - 8, &checksum, sizeof(checksum));
  }
  input.Set(file.data(), file.size());
  try {
    const parsgd::Checkpoint c = parsgd::LoadCheckpoint(input.path());
    // What a loaded checkpoint must be: finite values, and no more of them than the file held.
    uint64_t values = 0;
    for (const auto& [name, array] : c.state.arrays()) {
      values += array.size();
      for (float v : array) {
        if (!std::isfinite(v)) std::abort();
      }
    }
    if (values * sizeof(float) > file.size()) std::abort();
  } catch (const parsgd::Error&) {
  }
  return 0;
}
