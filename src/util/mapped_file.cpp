#include "parsgd/util/mapped_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

// The mappings the SIGBUS handler knows: each slot's range and its message, written before the
// range is published and read by the handler only (async-signal-safe: atomics, write, _exit).
struct FaultSlot {
  std::atomic<bool> taken{false};
  std::atomic<uintptr_t> begin{0}, end{0};
  char path[512];
  char message[640];          // the file cut short
  char changed_message[640];  // the file written in place
  std::size_t length = 0, changed_length = 0;
  struct stat opened {};
};
constexpr int kFaultSlots = 64;
FaultSlot g_slots[kFaultSlots];
struct sigaction g_previous_bus {
}, g_previous_segv{};

// The message, the unfinished outputs' temporary files removed, exit status 1.
void Say(const char* message, std::size_t length) {
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, message, length);
  RemoveUnfinishedFiles();
  ::_exit(1);
}

void PassOn(const struct sigaction& previous, int signal, siginfo_t* info, void* context) {
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else {
    ::signal(signal, SIG_DFL);  // the fault repeats, with the default action
  }
}

// SIGBUS inside a mapping: its file was cut short. SIGSEGV (or SIGBUS elsewhere) while a mapped
// file differs from the one mapped (size, modification time): its rows, read as they now are,
// led the run astray (an index out of range); said as such rather than as a crash.
void OnFault(int signal, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (FaultSlot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin == 0) continue;
    if (signal == SIGBUS && at >= begin && at < slot.end.load(std::memory_order_acquire)) {
      Say(slot.message, slot.length);
    }
    struct stat now {};
    if (::stat(slot.path, &now) == 0 && now.st_ino == slot.opened.st_ino &&
        now.st_dev == slot.opened.st_dev &&
        (now.st_size != slot.opened.st_size || now.st_mtim.tv_sec != slot.opened.st_mtim.tv_sec ||
         now.st_mtim.tv_nsec != slot.opened.st_mtim.tv_nsec)) {
      Say(slot.changed_message, slot.changed_length);
    }
  }
  PassOn(signal == SIGBUS ? g_previous_bus : g_previous_segv, signal, info, context);
}

// The slot for [data, data + size) of `path`, or -1 when every slot is taken (a fault there is
// then the default one).
int WatchFaults(const void* data, std::size_t size, const std::string& path,
                const struct stat& opened) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = OnFault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous_bus);
    ::sigaction(SIGSEGV, &action, &g_previous_segv);
  });
  if (path.size() >= sizeof(FaultSlot::path)) return -1;
  for (int i = 0; i < kFaultSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].taken.compare_exchange_strong(expected, true)) continue;
    FaultSlot& slot = g_slots[i];
    const std::string message =
        "parsgd: error: " + path.substr(0, 400) +
        ": the file was cut short while it was read (it must stay as it is for the whole run)\n";
    slot.length = std::min(message.size(), sizeof(slot.message));
    std::memcpy(slot.message, message.data(), slot.length);
    const std::string changed =
        "parsgd: error: " + path.substr(0, 400) +
        ": changed while the run read it (it was written to): the run stopped on what it read; "
        "it must stay as it is for the whole run\n";
    slot.changed_length = std::min(changed.size(), sizeof(slot.changed_message));
    std::memcpy(slot.changed_message, changed.data(), slot.changed_length);
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.opened = opened;
    slot.end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_release);
    slot.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
    return i;
  }
  return -1;
}

void UnwatchFaults(int i) {
  if (i < 0) return;
  g_slots[i].begin.store(0, std::memory_order_release);
  g_slots[i].end.store(0, std::memory_order_release);
  g_slots[i].taken.store(false, std::memory_order_release);
}

int64_t ModifiedNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw Error(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<std::size_t>(st.st_size);
  file->device_ = static_cast<uint64_t>(st.st_dev);
  file->inode_ = static_cast<uint64_t>(st.st_ino);
  file->modified_ns_ = ModifiedNs(st);
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw Error(path + ": cannot map: " + std::strerror(err));
    }
    file->data_ = static_cast<const std::byte*>(p);
    file->fault_slot_ = WatchFaults(p, file->size_, path, st);
  }
  ::close(fd);  // the mapping stays valid after close
  return file;
}

void MappedFile::Release(const void* at, std::size_t bytes) const {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(data_);
  uintptr_t begin = reinterpret_cast<uintptr_t>(at);
  uintptr_t end = begin + bytes;
  if (data_ == nullptr || begin < start || end > start + size_) return;  // not this mapping's
  begin = (begin + page - 1) / page * page;
  end = end / page * page;
  // MADV_DONTNEED on a read-only file mapping only unmaps: the file's bytes are read again if
  // touched. (On anonymous memory it would discard the contents: hence the range check.)
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::string MappedFile::Changed() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return "";  // removed: the mapping reads the file it had
  if (static_cast<uint64_t>(st.st_dev) != device_ || static_cast<uint64_t>(st.st_ino) != inode_) {
    return "";  // replaced by another file: the mapping reads the one it had
  }
  if (static_cast<std::size_t>(st.st_size) != size_) {
    return "its size changed from " + std::to_string(size_) + " to " + std::to_string(st.st_size) +
           " bytes";
  }
  if (ModifiedNs(st) != modified_ns_) return "it was written to";
  return "";
}

MappedFile::~MappedFile() {
  UnwatchFaults(fault_slot_);
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace parsgd
