#include "parsgd/util/page_budget.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "parsgd/util/error.hpp"

namespace parsgd {

uint64_t ResidentFileBytes() {
  // statm: size resident shared text lib data dt, in pages; "shared" is RssFile + RssShmem.
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0, shared = 0;
  const int read = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
  std::fclose(f);
  if (read != 3) return 0;
  return static_cast<uint64_t>(shared) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

PageBudget::PageBudget(std::vector<std::shared_ptr<const MappedFile>> files, uint64_t budget_bytes,
                       int interval_ms)
    : files_(std::move(files)), budget_(budget_bytes), floor_(ResidentFileBytes()) {
  if (budget_bytes < static_cast<uint64_t>(::sysconf(_SC_PAGESIZE))) {
    throw Error("page budget: less than one page");
  }
  watcher_ = std::thread([this, interval_ms] { Watch(interval_ms); });
}

PageBudget::~PageBudget() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

bool PageBudget::Check() {
  std::lock_guard lock(mutex_);
  const uint64_t held = ResidentFileBytes();
  // The floor follows the process's other file pages down (a library's pages reclaimed).
  if (held < floor_) floor_ = held;
  if (held - floor_ <= budget_ / 2) return false;
  for (const std::shared_ptr<const MappedFile>& file : files_) {
    file->Release(file->chars(), file->size());
  }
  floor_ = ResidentFileBytes();
  ++releases_;
  return true;
}

uint64_t PageBudget::releases() const {
  std::lock_guard lock(mutex_);
  return releases_;
}

void PageBudget::Watch(int interval_ms) {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms));
    if (stopping_) break;
    lock.unlock();
    Check();
    lock.lock();
  }
}

}  // namespace parsgd
