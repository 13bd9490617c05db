#include "parsgd/util/atomic_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;

// The temporary files of the writers alive, for RemoveUnfinishedFiles (a signal handler): slots of
// plain atomic pointers, nothing a handler may not touch. A writer that finds no free slot (more
// than kSlots at once) is simply not listed.
constexpr int kSlots = 64;
std::atomic<const char*> g_unfinished[kSlots];
static_assert(std::atomic<const char*>::is_always_lock_free);

void List(const char* path) {
  for (std::atomic<const char*>& slot : g_unfinished) {
    const char* none = nullptr;
    if (slot.compare_exchange_strong(none, path)) return;
  }
}

void Unlist(const char* path) {
  for (std::atomic<const char*>& slot : g_unfinished) {
    const char* mine = path;
    if (slot.compare_exchange_strong(mine, nullptr)) return;
  }
}

[[noreturn]] void Fail(const std::string& path, const char* what, int err) {
  throw Error(path + ": " + what + ": " + std::strerror(err));
}

std::string FolderOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// What a symbolic link at `path` names, as a path usable from here (a relative target is relative
// to the link's folder); `path` itself where it is no link or cannot be read.
std::string LinkTarget(const std::string& path) {
  if (char* resolved = ::realpath(path.c_str(), nullptr)) {
    std::string target(resolved);
    std::free(resolved);
    return target;
  }
  std::string target(4096, '\0');  // a dangling link: follow it once
  const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= target.size()) return path;
  target.resize(static_cast<std::size_t>(n));
  return target.front() == '/' ? target : FolderOf(path) + "/" + target;
}

// The descriptor a name of the process's own descriptors stands for ("-" and /dev/stdout for
// standard output, /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1.
int OwnDescriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix) || path.size() == prefix.size()) continue;
    int fd = 0;
    for (std::size_t i = prefix.size(); i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9' || fd > 1000000) return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

// A stream rather than a file to replace: one of the process's own descriptors (its file is
// shared with the process's other output, at the same offset), or something that exists and is
// not a regular file (a device such as /dev/null, a pipe, a terminal).
bool IsStream(const std::string& path) {
  if (OwnDescriptor(path) >= 0) return true;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("empty output path");
  buffer_.reserve(kBufferSize);
  if (IsStream(path_)) {
    // Written through: a device or pipe cannot be replaced (and must not be: renaming over
    // /dev/null as root would break every other program), and has no partial file to remove.
    stream_ = true;
    const int own = OwnDescriptor(path_);
    fd_ = own >= 0 ? ::fcntl(own, F_DUPFD_CLOEXEC, 0) : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) Fail(path_, "cannot open for writing", errno);
    return;
  }
  // Through a symbolic link, the file it names is replaced and the link kept.
  struct stat st;
  target_ = ::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode) ? LinkTarget(path_) : path_;
  temp_path_ = target_ + ".tmp.XXXXXX";
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(path_ + ": cannot create a temporary file in its folder " + FolderOf(target_) +
                ": " + std::strerror(err));
  }
  List(temp_path_.c_str());
  // mkstemp creates 0600; give the usual 0666 & ~umask, as a plain open() would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !stream_) {
    ::unlink(temp_path_.c_str());
    Unlist(temp_path_.c_str());
  }
}

void RemoveUnfinishedFiles() noexcept {
  for (std::atomic<const char*>& slot : g_unfinished) {
    if (const char* path = slot.exchange(nullptr)) ::unlink(path);
  }
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
  // Written through to a stream the program also prints to: what it printed comes first.
  if (stream_) std::fflush(nullptr);
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
  if (stream_) {
    if (::close(fd_) != 0) {
      fd_ = -1;
      Fail(path_, "cannot close", errno);
    }
    fd_ = -1;
    committed_ = true;
    return;
  }
  if (::fsync(fd_) != 0) Fail(path_, "cannot sync", errno);
  if (::close(fd_) != 0) {
    fd_ = -1;
    Fail(path_, "cannot close", errno);
  }
  fd_ = -1;
  // Unlisted after the rename (or the removal): a signal in between removes a name no longer there.
  if (std::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_path_.c_str());
    Unlist(temp_path_.c_str());
    committed_ = true;  // nothing left to remove
    Fail(path_, "cannot rename into place", err);
  }
  Unlist(temp_path_.c_str());
  committed_ = true;
}

}  // namespace parsgd
