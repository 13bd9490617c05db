// Shared by the libFuzzer targets: a file whose bytes each input sets (the readers take paths), and
// the invariants every Dataset a reader returns must hold.
//
// A target calls the reader and catches parsgd::Error, the one way the readers may refuse input.
// Anything else is a finding: a sanitizer report, an uncaught exception (std::bad_alloc from a size
// taken on trust, std::length_error, ...), or a broken invariant (std::abort here).
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parsgd/data/dataset.hpp"

namespace parsgd::fuzz {

// A memory-only file (memfd), named by its /proc/self/fd path; rewritten for each input, so no
// disk I/O and no file left behind.
class InputFile {
 public:
  InputFile() : fd_(::memfd_create("parsgd-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) Die("memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }

  void Set(const void* data, std::size_t size) {
    if (::ftruncate(fd_, 0) != 0) Die("ftruncate failed");
    const char* p = static_cast<const char*>(data);
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::pwrite(fd_, p + done, size - done, static_cast<off_t>(done));
      if (n <= 0) Die("pwrite failed");
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  [[noreturn]] static void Die(const char* what) {
    std::fprintf(stderr, "fuzz harness: %s\n", what);
    std::abort();
  }
  int fd_;
  std::string path_;
};

// Aborts (a finding) unless `data` is what Dataset promises: row offsets from 0, non-decreasing, up
// to nnz; indices strictly ascending within a row and below features(); values and labels finite.
inline void CheckDataset(const Dataset& data) {
  auto check = [](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "broken Dataset invariant: %s\n", what);
      std::abort();
    }
  };
  check(data.offsets().size() == data.rows() + 1, "offsets size");
  check(data.offsets()[0] == 0 && data.offsets()[data.rows()] == data.nnz(), "offsets span");
  check(data.features() <= (uint64_t{1} << 32), "features <= 2^32");
  for (uint64_t r = 0; r < data.rows(); ++r) {
    check(data.offsets()[r] <= data.offsets()[r + 1], "offsets non-decreasing");
    check(std::isfinite(data.label(r)), "finite label");
    const SparseRow row = data.row(r);
    for (uint32_t k = 0; k < row.nnz; ++k) {
      check(row.index[k] < data.features(), "index < features");
      check(k == 0 || row.index[k] > row.index[k - 1], "indices ascending");
      check(std::isfinite(row.value[k]), "finite value");
    }
  }
}

}  // namespace parsgd::fuzz
