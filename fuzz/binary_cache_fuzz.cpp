// libFuzzer target: the binary cache reader (ReadBinaryCache).
// Input layout: byte 0 flags, then the file. Checksums stop almost every mutation at the header, so
// the flags let the fuzzer reach the structural checks behind them: bit 0 recomputes the payload
// checksum, bit 1 the header checksum (after the payload's, which it covers). A file shorter than
// the header is written as it is.
#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "data/cache/cache_format.hpp"  // internal: the header layout and the checksums
#include "fuzz_support.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/util/error.hpp"

namespace {

using namespace parsgd::cache_internal;

// The checksum ReadBinaryCache computes over the payload [128, size) of `file`.
uint64_t PayloadChecksum(const std::string& file) {
  const auto* bytes = reinterpret_cast<const std::byte*>(file.data());
  const uint64_t payload = file.size() - kHeaderSize;
  std::vector<uint64_t> hashes;
  for (uint64_t b = 0; b < BlockCount(payload); ++b) {
    const uint64_t from = kHeaderSize + b * kBlockSize;
    const uint64_t to = std::min<uint64_t>(file.size(), from + kBlockSize);
    hashes.push_back(BlockHash({bytes + from, to - from}));
  }
  return CombineBlockHashes(hashes);
}

void FixChecksums(std::string& file, uint8_t flags) {
  if (file.size() < kHeaderSize) return;
  Header h;
  std::memcpy(&h, file.data(), sizeof(h));
  if (flags & 1) h.payload_checksum = PayloadChecksum(file);
  if (flags & 2) h.header_checksum = HeaderChecksum(h);
  std::memcpy(file.data(), &h, sizeof(h));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static parsgd::fuzz::InputFile input;
  static tbb::task_arena arena(1);
  if (size < 1) return 0;
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  FixChecksums(file, data[0]);
  input.Set(file.data(), file.size());
  arena.execute([&] {
    try {
      const parsgd::Dataset d = parsgd::ReadBinaryCache(input.path());
      parsgd::fuzz::CheckDataset(d);
      parsgd::fuzz::CheckDataset(parsgd::ResidentCopy(d));
    } catch (const parsgd::Error&) {
    }
  });
  return 0;
}
