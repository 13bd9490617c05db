// A read-only memory mapping of a whole file (POSIX mmap), kept alive by shared ownership so that
// arrays pointing into it (SharedArray) outlive the object that opened it.
#pragma once

#include <cstddef>
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

 private:
  MappedFile() = default;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace parsgd
