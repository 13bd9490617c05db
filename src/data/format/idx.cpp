#include "parsgd/data/idx.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "data/cache/cache_rows.hpp"
#include "parsgd/util/error.hpp"
#include "data/format/stream_readers.hpp"

namespace parsgd {
namespace {

using data_internal::ByteStream;
using data_internal::CacheRows;
using data_internal::Chunk;

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;
constexpr uint64_t kImagesHeaderBytes = 16;
constexpr uint64_t kLabelsHeaderBytes = 8;
constexpr std::size_t kReadSize = std::size_t{1} << 18;

[[noreturn]] void Fail(const ByteStream& in, uint64_t at, const std::string& what) {
  throw DataError(in.path(), 0, 0, fmt::format("byte {}: {}", at, what));
}

[[noreturn]] void FailTruncated(const ByteStream& in, const std::string& what) {
  Fail(in, in.offset(),
       "truncated: " + what + (in.cut_short() ? " (the gzip stream is cut short)" : ""));
}

uint32_t ReadBigEndian32(ByteStream& in, const char* what) {
  unsigned char b[4];
  if (in.Read(b, 4) != 4) FailTruncated(in, std::string("expected the ") + what);
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | uint32_t{b[3]};
}

// IDX element type codes 0x08-0x0E (0x0A is unused).
const char* TypeName(uint32_t code) {
  constexpr const char* kNames[] = {"unsigned byte", "signed byte", "unknown", "short",
                                    "int",           "float",       "double"};
  return code >= 0x08 && code <= 0x0E ? kNames[code - 0x08] : "unknown";
}

// Checks the magic number is `expected` (`what`: "images" or "labels") and returns the count.
uint64_t ReadMagicAndCount(ByteStream& in, uint32_t expected, const char* what) {
  const uint32_t magic = ReadBigEndian32(in, "IDX magic number");
  if (magic >> 16 != 0) {
    Fail(in, 0,
         fmt::format("not an IDX file: expected the magic number 0x{:08x} ({}), found "
                     "0x{:08x}",
                     expected, what, magic));
  }
  const uint32_t type = (magic >> 8) & 0xff;
  if (type != 0x08) {
    Fail(in, 2,
         fmt::format("element type 0x{:02x} ({}) is not supported: expected unsigned "
                     "bytes (0x08)",
                     type, TypeName(type)));
  }
  if ((magic & 0xff) != (expected & 0xff)) {
    Fail(in, 3,
         fmt::format("{} dimensions: expected {} for {}", magic & 0xff, expected & 0xff, what));
  }
  const uint32_t count = ReadBigEndian32(in, "item count");
  if (count == 0) Fail(in, 4, fmt::format("no {}: the count is 0", what));
  return count;
}

struct ImageShape {
  uint64_t count;
  uint64_t rows;
  uint64_t cols;
  uint64_t pixels() const { return rows * cols; }
};

ImageShape ReadImageHeader(ByteStream& in) {
  ImageShape shape;
  shape.count = ReadMagicAndCount(in, kImagesMagic, "images");
  shape.rows = ReadBigEndian32(in, "image height");
  shape.cols = ReadBigEndian32(in, "image width");
  if (shape.rows == 0 || shape.cols == 0 || shape.pixels() >= (uint64_t{1} << 32)) {
    Fail(in, 8,
         fmt::format("image size {}x{} is absurd: expected 1 to 2^32 - 1 pixels", shape.rows,
                     shape.cols));
  }
  return shape;
}

// A raw file must hold what its header declares; a gzip stream is checked as it is read.
void CheckRawSize(const ByteStream& in, uint64_t header_bytes, uint64_t declared,
                  const std::string& what) {
  struct stat st {};
  if (in.compressed() || ::stat(in.path().c_str(), &st) != 0) return;
  const auto size = static_cast<uint64_t>(st.st_size);
  const uint64_t have = size > header_bytes ? size - header_bytes : 0;
  if (have < declared) {
    Fail(in, header_bytes,
         fmt::format("truncated: the header declares {} ({} bytes), the file "
                     "holds {} bytes after the header",
                     what, declared, have));
  }
}

void ExpectEnd(ByteStream& in, const char* what) {
  unsigned char extra;
  if (in.Read(&extra, 1) == 1)
    Fail(in, in.offset() - 1, fmt::format("data after the last {}", what));
}

// The vector grows with the bytes read, never to a size taken from the header alone.
AlignedArray<float> ReadLabels(ByteStream& in, uint64_t count) {
  CheckRawSize(in, kLabelsHeaderBytes, count, fmt::format("{} labels", count));
  std::vector<unsigned char> bytes;
  while (bytes.size() < count) {
    const std::size_t have = bytes.size();
    const std::size_t want = std::min<uint64_t>(kReadSize, count - have);
    bytes.resize(have + want);
    const std::size_t got = in.Read(bytes.data() + have, want);
    if (got < want) {
      FailTruncated(in,
                    fmt::format("expected {} labels, the stream ends after {}", count, have + got));
    }
  }
  AlignedArray<float> labels(count);
  std::copy(bytes.begin(), bytes.end(), labels.begin());
  return labels;
}

// The images' pixel bytes as read: pieces of kReadSize bytes (the last shorter), allocated as
// the stream delivers them, so a header's count alone never sizes an allocation and no piece is
// copied again.
struct RawPixels {
  struct Piece {
    std::unique_ptr<unsigned char[]> bytes;  // not zeroed: the stream fills them
    std::size_t size;
  };
  std::vector<Piece> pieces;

  // fn(pixel byte) for the bytes [begin, end) of the whole, in order.
  template <class Fn>
  void ForEach(uint64_t begin, uint64_t end, Fn&& fn) const {
    while (begin < end) {
      const Piece& piece = pieces[begin / kReadSize];
      const uint64_t at = begin % kReadSize;
      const uint64_t stop = std::min<uint64_t>(piece.size, at + (end - begin));
      for (uint64_t i = at; i < stop; ++i) fn(piece.bytes[i]);
      begin += stop - at;
    }
  }
};

RawPixels ReadRawPixels(ByteStream& in, const ImageShape& shape) {
  CheckRawSize(in, kImagesHeaderBytes, shape.count * shape.pixels(),
               fmt::format("{} images of {}x{} pixels", shape.count, shape.rows, shape.cols));
  RawPixels raw;
  uint64_t remaining = shape.count * shape.pixels(), read = 0;
  while (remaining > 0) {
    const std::size_t want = std::min<uint64_t>(kReadSize, remaining);
    RawPixels::Piece& piece = raw.pieces.emplace_back(
        RawPixels::Piece{std::unique_ptr<unsigned char[]>(new unsigned char[want]), want});
    const std::size_t got = in.Read(piece.bytes.get(), want);
    read += got;
    if (got < want) {
      FailTruncated(in, fmt::format("expected {} images of {}x{} pixels, the stream ends inside "
                                    "image {}",
                                    shape.count, shape.rows, shape.cols, read / shape.pixels()));
    }
    remaining -= got;
  }
  return raw;
}

// Pixels to CSR rows, zeros left out, scaled to [0, 1]: the nonzeros of each image counted, then
// every image's entries written at its offset (both passes parallel over images, in the caller's
// oneTBB arena), each array allocated once at its size.
void PixelsToRows(const RawPixels& raw, const ImageShape& shape, Dataset::Parts& parts) {
  static const std::array<float, 256> kScale = [] {
    std::array<float, 256> scale;
    for (int i = 0; i < 256; ++i) scale[i] = static_cast<float>(i) / 255.f;
    return scale;
  }();
  const uint64_t images = shape.count, pixels = shape.pixels();
  AlignedArray<uint64_t> offsets(images + 1);
  offsets[0] = 0;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, images), [&](const auto& r) {
    for (uint64_t i = r.begin(); i < r.end(); ++i) {
      uint64_t nonzeros = 0;
      raw.ForEach(i * pixels, (i + 1) * pixels, [&](unsigned char b) { nonzeros += b != 0; });
      offsets[i + 1] = nonzeros;
    }
  });
  for (uint64_t i = 0; i < images; ++i) offsets[i + 1] += offsets[i];
  AlignedArray<uint32_t> indices(offsets[images]);
  AlignedArray<float> values(offsets[images]);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, images), [&](const auto& r) {
    for (uint64_t i = r.begin(); i < r.end(); ++i) {
      uint64_t at = offsets[i];
      uint32_t pixel = 0;
      raw.ForEach(i * pixels, (i + 1) * pixels, [&](unsigned char b) {
        if (b != 0) {
          indices[at] = pixel;
          values[at] = kScale[b];
          ++at;
        }
        ++pixel;
      });
    }
  });
  parts.offsets = SharedArray<uint64_t>(std::move(offsets));
  parts.indices = SharedArray<uint32_t>(std::move(indices));
  parts.values = SharedArray<float>(std::move(values));
}

// The label file at `path` opened into `labels` and its header checked against the images'
// count; none where `path` is empty (images to predict: every label 0).
void OpenLabels(std::optional<ByteStream>& labels, const std::string& path, const ImageShape& shape,
                const std::string& images_path) {
  if (path.empty()) return;
  labels.emplace(path);
  const uint64_t label_count = ReadMagicAndCount(*labels, kLabelsMagic, "labels");
  if (label_count != shape.count) {
    Fail(*labels, 4,
         fmt::format("image and label counts differ: {} labels, {} images in {}", label_count,
                     shape.count, images_path));
  }
}

}  // namespace

Dataset ReadIdx(const std::string& images_path, const std::string& labels_path) {
  ByteStream images(images_path);
  const ImageShape shape = ReadImageHeader(images);
  std::optional<ByteStream> labels;
  OpenLabels(labels, labels_path, shape, images_path);
  const RawPixels raw = ReadRawPixels(images, shape);
  ExpectEnd(images, "image");
  Dataset::Parts parts;
  if (labels) {
    parts.labels = SharedArray<float>(ReadLabels(*labels, shape.count));
    ExpectEnd(*labels, "label");
  } else {
    AlignedArray<float> zeros(shape.count);
    std::fill(zeros.begin(), zeros.end(), 0.f);
    parts.labels = SharedArray<float>(std::move(zeros));
  }
  PixelsToRows(raw, shape, parts);
  parts.features = shape.pixels();
  parts.source = images_path;
  return Dataset(std::move(parts));
}

CacheShape data_internal::StreamIdxToCache(const std::string& images_path,
                                           const std::string& labels_path, uint64_t max_features,
                                           const std::string& path) {
  AtomicFileWriter out(path);  // an unwritable destination fails before any reading
  ByteStream images(images_path);
  const ImageShape shape = ReadImageHeader(images);
  std::optional<ByteStream> labels;
  OpenLabels(labels, labels_path, shape, images_path);
  // The images' errors come first, then the labels', as ReadIdx finds them: a label file that
  // ends early is refused once the images are read.
  std::optional<std::string> labels_short;
  const uint64_t pixels = shape.pixels();
  CheckRawSize(images, kImagesHeaderBytes, shape.count * pixels,
               fmt::format("{} images of {}x{} pixels", shape.count, shape.rows, shape.cols));
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  CacheRows rows(folder.string(), false);
  // Pixels read 4 MiB at a time (never a size taken from the header alone); the images completed
  // in each go to the spill with their labels, a partial image's entries kept for the next.
  const uint64_t total = shape.count * pixels;
  std::vector<unsigned char> buffer(std::min<uint64_t>(uint64_t{4} << 20, total));
  std::vector<unsigned char> classes;
  Chunk chunk;
  uint64_t read = 0, image = 0, pixel = 0;
  while (read < total) {
    const std::size_t want = std::min<uint64_t>(buffer.size(), total - read);
    const std::size_t got = images.Read(buffer.data(), want);
    for (std::size_t i = 0; i < got; ++i) {
      if (buffer[i] != 0) {
        chunk.indices.push_back(static_cast<uint32_t>(pixel));
        chunk.values.push_back(static_cast<float>(buffer[i]) / 255.f);
      }
      if (++pixel == pixels) {
        pixel = 0;
        chunk.row_ends.push_back(chunk.indices.size());
      }
    }
    read += got;
    if (got < want) {
      FailTruncated(images, fmt::format("expected {} images of {}x{} pixels, the stream ends "
                                        "inside image {}",
                                        shape.count, shape.rows, shape.cols, read / pixels));
    }
    const uint64_t done = chunk.row_ends.size();
    if (done == 0) continue;
    classes.assign(done, 0);
    if (labels && !labels_short) {
      const std::size_t n = labels->Read(classes.data(), done);
      if (n < done) {
        labels_short =
            fmt::format("expected {} labels, the stream ends after {}", shape.count, image + n);
      }
    }
    chunk.labels.assign(classes.begin(), classes.end());
    Chunk rest;  // the partial image's entries
    const uint64_t end = chunk.row_ends.back();
    rest.indices.assign(chunk.indices.begin() + static_cast<std::ptrdiff_t>(end),
                        chunk.indices.end());
    rest.values.assign(chunk.values.begin() + static_cast<std::ptrdiff_t>(end), chunk.values.end());
    chunk.indices.resize(end);
    chunk.values.resize(end);
    rows.Take(chunk, images_path);
    chunk = std::move(rest);
    image += done;
  }
  ExpectEnd(images, "image");
  if (labels) {
    CheckRawSize(*labels, kLabelsHeaderBytes, shape.count, fmt::format("{} labels", shape.count));
    if (labels_short) FailTruncated(*labels, *labels_short);
    ExpectEnd(*labels, "label");
  }
  rows.NameClasses(images_path);
  return WriteCache(rows, FeaturesGiven(images_path, pixels, max_features), ZeroBased::kAuto, 0, {},
                    out, path);
}

bool HasIdxMagic(const std::string& path) {
  try {
    ByteStream in(path);
    unsigned char b[4];
    if (in.Read(b, 4) != 4) return false;
    return b[0] == 0 && b[1] == 0 && b[2] >= 0x08 && b[2] <= 0x0E && b[3] >= 1 && b[3] <= 4;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace parsgd
