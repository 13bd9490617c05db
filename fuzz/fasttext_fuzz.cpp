// libFuzzer target: the fastText text reader (ParseFasttext, the function ReadFasttext calls on the
// mapped file). The input is the text itself. Its size picks the chunk size (1 to 64 bytes, so
// that lines spread over many chunks), whether labels are needed (training) or skipped (data to
// predict), the word n-grams (1 to 3), the hash bits (1 to 31) and character n-grams (none or 1
// to 4), so the seeds stay plain text files. One oneTBB thread: the chunks still go through the
// parallel code.
#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tbb::task_arena arena(1);
  parsgd::FasttextOptions options;
  options.chunk_bytes = 1 + size % 64;
  options.labels_optional = size / 64 % 2 == 1;
  options.hashing.ngrams = static_cast<uint32_t>(1 + size / 128 % 3);
  options.hashing.bits = static_cast<uint32_t>(1 + size / 384 % 31);
  if (size / 11904 % 2 == 1 || size % 5 == 0) {
    options.hashing.char_min = 1;
    options.hashing.char_max = 4;
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arena.execute([&] {
    try {
      parsgd::fuzz::CheckDataset(parsgd::ParseFasttext(text, "fuzz.txt", options));
    } catch (const parsgd::Error&) {
      // refused: the expected outcome for malformed inputs
    }
  });
  return 0;
}
