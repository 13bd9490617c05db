// DeviceArray<T>: a host array mapped onto the OpenMP default device for the object's lifetime
// (unstructured `target enter data` / `target exit data`). Target regions then name the host
// pointer with map(alloc: p[0:n]), which finds the existing mapping and copies nothing. On the host
// fallback every mapping is the host array itself and every transfer is a no-op.
// Include only from the offload sources (compiled with OpenMP, see src/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace parsgd::offload {

enum class Transfer {
  kCopyIn,    // the device copy starts as the host array
  kAllocate,  // device scratch: its initial contents are undefined
};

template <class T>
class DeviceArray {
 public:
  using Mutable = std::remove_const_t<T>;

  DeviceArray() = default;
  DeviceArray(T* host, uint64_t count, Transfer transfer = Transfer::kCopyIn)
      : host_(const_cast<Mutable*>(host)), count_(host != nullptr ? count : 0) {
    Mutable* p = host_;
    const uint64_t n = count_;
    if (n == 0) return;
    if (transfer == Transfer::kCopyIn) {
#pragma omp target enter data map(to : p[0 : n])
    } else {
#pragma omp target enter data map(alloc : p[0 : n])
    }
  }
  ~DeviceArray() { Release(); }

  DeviceArray(DeviceArray&& other) noexcept
      : host_(std::exchange(other.host_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    if (this != &other) {
      Release();
      host_ = std::exchange(other.host_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  // The host address, which target regions translate to the device copy.
  T* get() const { return host_; }
  uint64_t size() const { return count_; }

  // Host -> device (the first `count` elements; all by default).
  void ToDevice(uint64_t count = ~uint64_t{0}) {
    Mutable* p = host_;
    const uint64_t n = count < count_ ? count : count_;
    if (n == 0) return;
#pragma omp target update to(p[0 : n])
  }
  // Device -> host.
  void FromDevice() {
    Mutable* p = host_;
    const uint64_t n = count_;
    if (n == 0) return;
#pragma omp target update from(p[0 : n])
  }

 private:
  void Release() {
    Mutable* p = host_;
    const uint64_t n = count_;
    if (n == 0) return;
#pragma omp target exit data map(delete : p[0 : n])
    host_ = nullptr;
    count_ = 0;
  }

  Mutable* host_ = nullptr;
  uint64_t count_ = 0;
};

}  // namespace parsgd::offload
