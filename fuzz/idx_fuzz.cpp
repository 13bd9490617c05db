// libFuzzer target: the IDX reader (ReadIdx), images and labels files together.
// Input layout: byte 0 flags (bit 0: gzip the images, bit 1: gzip the labels), bytes 1-2 the
// labels file's length L (little-endian, capped at what is left), then the images file, then the
// last L bytes: the labels file. Gzip is written here (zlib, level 1) so that the fuzzer mutates
// the content behind the reader's gzip path; raw .gz bytes reach it too (flags 0, 1f 8b start).
#include <tbb/task_arena.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "parsgd/data/idx.hpp"
#include "parsgd/util/error.hpp"

namespace {

// gzip member of `bytes`; aborts if zlib fails, which is not the reader's fault. A 512-byte window
// and the smallest memory level keep deflate's state at a few KiB (fuzz inputs are small; the
// default 256 KiB state would be mapped and unmapped for every input under ASan).
std::string Gzip(const uint8_t* bytes, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 9 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, size), '\0');
  z.next_in = const_cast<Bytef*>(bytes);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void SetFile(parsgd::fuzz::InputFile& file, const uint8_t* bytes, std::size_t size, bool gzip) {
  if (!gzip) return file.Set(bytes, size);
  const std::string packed = Gzip(bytes, size);
  file.Set(packed.data(), packed.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static parsgd::fuzz::InputFile images, labels;
  static tbb::task_arena arena(1);
  if (size < 3) return 0;
  const uint8_t flags = data[0];
  const std::size_t rest = size - 3;
  const std::size_t labels_size = std::min<std::size_t>(data[1] | data[2] << 8, rest);
  const uint8_t* body = data + 3;
  SetFile(images, body, rest - labels_size, flags & 1);
  SetFile(labels, body + rest - labels_size, labels_size, flags & 2);
  arena.execute([&] {
    try {
      const parsgd::Dataset d = parsgd::ReadIdx(images.path(), labels.path());
      parsgd::fuzz::CheckDataset(d);
    } catch (const parsgd::Error&) {
    }
    parsgd::HasIdxMagic(images.path());
  });
  return 0;
}
