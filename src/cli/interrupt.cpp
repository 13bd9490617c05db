#include "interrupt.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "parsgd/util/atomic_file.hpp"

namespace parsgd::cli {
namespace {

std::atomic<int> g_signal{0};
std::atomic<std::atomic<bool>*> g_stop{nullptr};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free &&
              std::atomic<std::atomic<bool>*>::is_always_lock_free);

// When the first signal came (CLOCK_MONOTONIC nanoseconds): a second SIGINT within
// kRepeatNs of it is the same interrupt delivered twice (GNU timeout signals the command and then
// its process group), not a user's second Ctrl-C.
std::atomic<int64_t> g_first_ns{0};
constexpr int64_t kRepeatNs = 100'000'000;
static_assert(std::atomic<int64_t>::is_always_lock_free);

int64_t NowNs() {
  struct timespec t {};
  ::clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

void OnSignal(int sig) {
  int none = 0;
  if (!g_signal.compare_exchange_strong(none, sig)) {
    const int64_t first = g_first_ns.load();  // 0 while the first handler is still running
    if (sig == SIGINT && first != 0 && NowNs() - first >= kRepeatNs) {
      // the second one: leave now, write nothing
      RemoveUnfinishedFiles();
      static const char kMessage[] = "\nparsgd: second interrupt: exiting without a checkpoint\n";
      [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
      ::_exit(128 + SIGINT);
    }
    return;
  }
  g_first_ns.store(NowNs());
  if (std::atomic<bool>* stop = g_stop.load()) stop->store(true, std::memory_order_relaxed);
}

// Outside training: the outputs' temporary files removed, then the signal's own ending.
void EndOnSignal(int sig) {
  RemoveUnfinishedFiles();
  static const char kMessage[] = "\nparsgd: interrupted; no output file written\n";
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void EndCleanlyOnSignals() {
  struct sigaction action {};
  action.sa_handler = EndOnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

InterruptGuard::InterruptGuard(std::atomic<bool>& stop) : own_(stop) {
  g_signal.store(0);
  g_first_ns.store(0);
  g_stop.store(&stop);
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_stop.store(nullptr);
}

int InterruptGuard::signal() const { return g_signal.load(); }

void InterruptGuard::Watch(std::atomic<bool>& stop) {
  g_stop.store(&stop);
  if (g_signal.load() != 0) stop.store(true, std::memory_order_relaxed);
}

}  // namespace parsgd::cli
