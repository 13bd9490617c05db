// A read-only memory mapping of a whole file (POSIX mmap), kept alive by shared ownership so that
// arrays pointing into it (SharedArray) outlive the object that opened it.
//
// A file cut short while mapped makes a read past its new end fault (SIGBUS): the process then
// ends at once with "parsgd: error: PATH: the file was cut short while it was read" and exit
// status 1, not a crash (the unfinished outputs' temporary files removed); a fault (SIGSEGV,
// SIGBUS) while a mapped file differs from the one mapped (written in place: garbage read as rows)
// ends it the same way, naming the file. The handlers are installed with the first mapping; any
// other fault goes to the handler there was before. A file changed in place while mapped is also
// told by Changed().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace parsgd {

class MappedFile {
 public:
  // Maps `path` read-only. Throws parsgd::Error naming the path and the OS reason when the file
  // cannot be opened or mapped. An empty file gives an empty span (no mapping is made).
  static std::shared_ptr<const MappedFile> Open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const char* chars() const { return reinterpret_cast<const char*>(data_); }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Gives back this process's pages of the mapped bytes [at, at + bytes) (the whole pages inside
  // them; a range outside the mapping is ignored): resident memory falls by them, and a later read
  // maps them again from the file. For a reader done with a part of the file.
  void Release(const void* at, std::size_t bytes) const;

  // What differs between the file at path() now and the one that was mapped (its size, its
  // modification time, or another file there), as a sentence; empty when nothing does. A file
  // replaced by a rename leaves the mapping reading the file it had: only a change in place is
  // told (the rows read since then may be another file's).
  std::string Changed() const;

 private:
  MappedFile() = default;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
  uint64_t device_ = 0, inode_ = 0;
  int64_t modified_ns_ = 0;
  int fault_slot_ = -1;  // its place among the mappings the SIGBUS handler names
};

}  // namespace parsgd
