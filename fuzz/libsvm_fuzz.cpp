// libFuzzer target: the LIBSVM text reader (ParseLibsvm, the function ReadLibsvm calls on the
// mapped file). The input is the text itself. Its size picks the chunk size (1 to 64 bytes, so
// that lines spread over many chunks, as in a large file), whether max_features is set and the
// index base (auto, yes, no), so the seeds stay plain LIBSVM files. One oneTBB thread: the chunks
// still go through the parallel code.
#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tbb::task_arena arena(1);
  parsgd::LibsvmOptions options;
  options.chunk_bytes = 1 + size % 64;
  options.max_features = size % 3 == 0 ? 1000 : 0;
  options.zero_based = static_cast<parsgd::ZeroBased>(size / 3 % 3);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arena.execute([&] {
    try {
      const parsgd::Dataset d = parsgd::ParseLibsvm(text, "fuzz.svm", options);
      parsgd::fuzz::CheckDataset(d);
      if (options.max_features != 0 && d.features() != options.max_features) std::abort();
      if (d.zero_based() == parsgd::ZeroBased::kAuto) std::abort();  // always decided
      if (options.zero_based != parsgd::ZeroBased::kAuto && d.zero_based() != options.zero_based) {
        std::abort();
      }
    } catch (const parsgd::Error&) {
      // refused: the expected outcome for most inputs
    }
  });
  return 0;
}
