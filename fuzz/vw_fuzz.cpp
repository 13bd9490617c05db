// libFuzzer target: the VW text reader (ParseVw, the function ReadVw calls on the
// mapped file). The input is the text itself. Its size picks the chunk size (1 to 64 bytes, so
// that lines spread over many chunks), whether labels are needed (training) or optional (data to
// predict), the hash bits (1 to 31) and the interactions (none, pairs, triples), so the seeds stay
// plain text files. One oneTBB thread: the chunks still go through the
// parallel code.
#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "parsgd/data/vw.hpp"
#include "parsgd/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tbb::task_arena arena(1);
  parsgd::VwOptions options;
  options.chunk_bytes = 1 + size % 64;
  options.labels_optional = size / 64 % 2 == 1;
  options.hashing.bits = static_cast<uint32_t>(1 + size / 128 % 31);
  const char* interactions[] = {"", "ab", "aa,abc", "  ,a b"};  // the last is refused
  options.hashing.interactions = interactions[size % 4];
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arena.execute([&] {
    try {
      parsgd::fuzz::CheckDataset(parsgd::ParseVw(text, "fuzz.vw", options));
    } catch (const parsgd::Error&) {
      // refused: the expected outcome for malformed inputs
    }
  });
  return 0;
}
