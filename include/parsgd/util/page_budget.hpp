// A bound on the pages of memory-mapped files that this process holds, for data read from a file
// larger than the memory it may use (the block order, data/dataset.hpp's PagedView).
//
// A mapped file's pages count in the process's resident memory once touched and stay until the
// kernel needs them back; under a cgroup limit they count against it. A PageBudget watches the
// process's resident file pages (/proc/self/statm) and, once they have grown by more than half the
// budget since it last acted (the other half for the reads while its thread waits to run), gives
// back every page of the files it keeps (MappedFile::Release):
// the rows being read are mapped again from the page cache at their next touch, the others stay
// out. Readers that go through the data a few blocks at a time (the block order, a sequential pass)
// then hold at most the budget, whatever the file's size; correctness never depends on it (a
// released page reads the same bytes again).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "parsgd/util/mapped_file.hpp"

namespace parsgd {

class PageBudget {
 public:
  // Watches every `interval_ms` from a thread of its own; `budget_bytes` >= one page.
  PageBudget(std::vector<std::shared_ptr<const MappedFile>> files, uint64_t budget_bytes,
             int interval_ms = 2);
  ~PageBudget();
  PageBudget(const PageBudget&) = delete;
  PageBudget& operator=(const PageBudget&) = delete;

  uint64_t budget_bytes() const { return budget_; }
  // One look: gives the files' pages back if the process's resident file pages have grown by more
  // than half the budget since the last time it did (or since construction). Returns whether it
  // did.
  // Thread-safe (the watching thread calls it too).
  bool Check();
  // How many times the pages were given back.
  uint64_t releases() const;

 private:
  void Watch(int interval_ms);

  std::vector<std::shared_ptr<const MappedFile>> files_;
  uint64_t budget_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  uint64_t floor_ = 0;  // resident file bytes right after the last release
  uint64_t releases_ = 0;
  std::thread watcher_;
};

// This process's resident pages of files and shared memory (RssFile + RssShmem), in bytes.
uint64_t ResidentFileBytes();

}  // namespace parsgd
