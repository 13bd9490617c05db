#include "data/source/byte_stream.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "parsgd/util/error.hpp"

namespace parsgd::data_internal {
namespace {

gzFile Gz(void* file) { return static_cast<gzFile>(file); }

// zlib's read buffer (it allocates twice as much again for output): 128 KiB, since its default of
// 8 KiB is slow on large files, but no more than the file needs, down to that default: a 50-byte
// labels file should not cost 384 KiB (and each such block is an mmap and munmap under ASan).
unsigned BufferSize(const std::string& path) {
  constexpr uint64_t kLarge = 1 << 17, kSmall = 1 << 13;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || st.st_size < 0) return kLarge;
  return static_cast<unsigned>(std::clamp<uint64_t>(st.st_size, kSmall, kLarge));
}

}  // namespace

ByteStream::ByteStream(const std::string& path) : path_(path) {
  errno = 0;
  if (path == kStdin) {
    const int fd = ::dup(STDIN_FILENO);
    if (fd < 0) throw Error(std::string("standard input: cannot read: ") + std::strerror(errno));
    file_ = gzdopen(fd, "rb");
    if (file_ == nullptr) ::close(fd);
  } else {
    file_ = gzopen(path.c_str(), "rb");
  }
  if (file_ == nullptr) {
    throw Error(path + ": cannot open: " + (errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(Gz(file_), BufferSize(path));  // before the first read
}

ByteStream::~ByteStream() {
  if (file_ != nullptr) gzclose(Gz(file_));
}

std::size_t ByteStream::Read(void* dst, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size - done, 1u << 30));
    const int n = gzread(Gz(file_), static_cast<char*>(dst) + done, chunk);
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(Gz(file_), &code);
      throw DataError(path_, 0, 0,
                      "byte " + std::to_string(offset_ + done) + ": cannot decompress: " + message);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  offset_ += done;
  return done;
}

bool ByteStream::compressed() const { return gzdirect(Gz(file_)) == 0; }

void ReadRest(ByteStream& in, std::string& text) {
  constexpr std::size_t kStep = std::size_t{1} << 20;
  for (;;) {
    const std::size_t at = text.size();
    text.resize(at + kStep);
    const std::size_t n = in.Read(text.data() + at, kStep);
    text.resize(at + n);
    if (n < kStep) break;
  }
  if (in.cut_short()) {
    throw DataError(in.path() == kStdin ? "standard input" : in.path(), 0, 0,
                    "the gzip stream ends early, after " + std::to_string(in.offset()) +
                        " bytes: the file is cut short");
  }
}

std::string ReadAll(const std::string& path) {
  ByteStream in(path);
  std::string text;
  ReadRest(in, text);
  return text;
}

bool IsGzip(const std::string& path) {
  if (path == kStdin) return false;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[2] = {0, 0};
  const bool gzip = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::fclose(f);
  return gzip;
}

bool ByteStream::cut_short() const {
  int code = Z_OK;
  gzerror(Gz(file_), &code);
  return code == Z_BUF_ERROR;
}

}  // namespace parsgd::data_internal
