#include "parsgd/util/atomic_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;

[[noreturn]] void Fail(const std::string& path, const char* what, int err) {
  throw Error(path + ": " + what + ": " + std::strerror(err));
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("empty output path");
  temp_path_ = path_ + ".tmp.XXXXXX";
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  if (fd_ < 0) Fail(path_, "cannot create a file beside it", errno);
  // mkstemp creates 0600; give the usual 0666 & ~umask, as a plain open() would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  buffer_.reserve(kBufferSize);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::Write(const void* data, std::size_t size) {
  if (committed_) throw Error(path_ + ": write after commit");
  const char* p = static_cast<const char*>(data);
  if (buffer_.size() + size > kBufferSize) Flush();
  if (size >= kBufferSize) {
    WriteAll(p, size);  // large blocks skip the buffer
    return;
  }
  buffer_.insert(buffer_.end(), p, p + size);
}

void AtomicFileWriter::Flush() {
  WriteAll(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFileWriter::WriteAll(const char* p, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail(path_, "cannot write", errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::Commit() {
  Flush();
  if (::fsync(fd_) != 0) Fail(path_, "cannot sync", errno);
  if (::close(fd_) != 0) {
    fd_ = -1;
    Fail(path_, "cannot close", errno);
  }
  fd_ = -1;
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) Fail(path_, "cannot rename into place", errno);
  committed_ = true;
}

}  // namespace parsgd
