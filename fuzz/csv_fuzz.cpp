// libFuzzer target: the CSV text reader (ParseCsv, the function ReadCsv calls on the mapped file).
// The input is the text itself. Its size picks the chunk size (1 to 64 bytes, so that lines spread
// over many chunks), the header setting (auto, yes, no), the label column (the first, the last, or
// a name), the missing-value rule, a weight column or none and one-hot or hashed categorical
// values, so the seeds stay plain CSV files. A text that parses is parsed again by its own schema
// (as predict reads a file by the model's), labels optional. One oneTBB thread: the chunks still
// go through the parallel code.
#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tbb::task_arena arena(1);
  parsgd::CsvOptions options;
  options.chunk_bytes = 1 + size % 64;
  options.header = static_cast<parsgd::CsvHeader>(size / 64 % 3);
  const char* columns[] = {"", "-1", "y"};
  options.label_column = columns[size / 192 % 3];
  options.missing = static_cast<parsgd::CsvMissing>(size / 576 % 2);
  options.weight_column = size / 1152 % 2 ? "1" : "";
  options.category_hash_bits = size / 2304 % 2 ? 3 : 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arena.execute([&] {
    try {
      const parsgd::Dataset data = parsgd::ParseCsv(text, "fuzz.csv", options);
      parsgd::fuzz::CheckDataset(data);
      parsgd::CsvOptions again = options;
      again.schema = data.csv_schema();
      again.labels_optional = true;
      again.label_by_schema = true;
      parsgd::fuzz::CheckDataset(parsgd::ParseCsv(text, "fuzz.csv", again));
    } catch (const parsgd::Error&) {
      // refused: the expected outcome for most inputs
    }
  });
  return 0;
}
