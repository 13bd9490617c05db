// Internal: sequential reading of a file that may be gzip-compressed (zlib's gz* interface inflates
// gzip members and passes anything else through unchanged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace parsgd::data_internal {

// The path that names standard input.
inline constexpr const char* kStdin = "-";

class ByteStream {
 public:
  // Throws parsgd::Error naming the path and the OS reason if the file cannot be opened. kStdin
  // reads standard input (gzip-compressed or not, as a file).
  explicit ByteStream(const std::string& path);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  // Reads up to `size` bytes into dst and returns how many were read (fewer only at the end of
  // the stream). Throws DataError "path: byte N: cannot decompress: ..." on a damaged gzip stream.
  std::size_t Read(void* dst, std::size_t size);

  // Bytes delivered so far (decompressed): the position of the next byte.
  uint64_t offset() const { return offset_; }
  // True if the file is gzip-compressed (known after the first Read).
  bool compressed() const;
  // True if the stream ended inside a gzip member (a cut-off .gz file).
  bool cut_short() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* file_ = nullptr;  // gzFile; void* keeps zlib.h out of this header
  uint64_t offset_ = 0;
};

// Every byte of `path` (kStdin: standard input), inflated if gzip-compressed. Throws DataError
// for a damaged or cut-off gzip stream.
std::string ReadAll(const std::string& path);
// The rest of `in` appended to `text` (ReadAll from a stream already begun).
void ReadRest(ByteStream& in, std::string& text);

// Whether the file at `path` starts with the gzip magic (false for kStdin or an unreadable path).
bool IsGzip(const std::string& path);

}  // namespace parsgd::data_internal
