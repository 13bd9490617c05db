// Writes a file so that it appears complete or not at all: the bytes go to a temporary file in the
// same folder, which Commit() flushes, syncs and renames over the final name. If the writer is
// destroyed without Commit() (an error, an exception), the temporary file is removed and whatever
// was at the final path before is untouched. A symbolic link is followed: the file it names is
// replaced, the link kept. A path that is a stream, not a file (a device such as /dev/null, a
// pipe, `-` or /dev/stdout for standard output, /proc/self/fd/N) is written through as it comes: it
// cannot be replaced.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace parsgd {

class AtomicFileWriter {
 public:
  // Creates the temporary file now, so an unwritable destination fails before any work is done.
  // Throws parsgd::Error naming the path and the OS reason.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // Appends bytes (buffered). Throws parsgd::Error on a write failure (disk full, ...).
  void Write(const void* data, std::size_t size);
  void Write(std::string_view text) { Write(text.data(), text.size()); }
  // Flushes the buffer to the temporary file (still invisible under the final name).
  void Flush();
  // Flush, fsync, rename to the final path. After Commit() the writer accepts no more bytes.
  void Commit();

  const std::string& path() const { return path_; }

 private:
  void WriteAll(const char* data, std::size_t size);

  std::string path_;
  std::string target_;     // the file replaced: path_, or the file a symbolic link there names
  std::string temp_path_;
  bool stream_ = false;    // written through (IsStream in atomic_file.cpp)
  int fd_ = -1;
  std::vector<char> buffer_;
  bool committed_ = false;
};

// Removes the temporary files of every AtomicFileWriter alive, for a signal handler about to end
// the process (async-signal-safe: atomic exchanges and unlink). Their writers cannot commit after.
void RemoveUnfinishedFiles() noexcept;

}  // namespace parsgd
