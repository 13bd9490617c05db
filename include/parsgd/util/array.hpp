// Fixed-size arrays aligned to a cache line: AlignedArray owns and may be written; SharedArray is
// an immutable view that keeps its storage (a heap block or a memory-mapped file) alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace parsgd {

inline constexpr std::size_t kCacheLine = 64;

// 64-byte aligned memory from std::aligned_alloc; blocks of 2 MiB and more are 2 MiB aligned and
// marked for transparent huge pages (training reads rows in random order: with 4 KiB pages nearly
// every row costs a TLB miss). Throws std::bad_alloc. Free with std::free.
void* AllocateAligned(std::size_t bytes);

// Owning array of trivially copyable T, 64-byte aligned, size fixed at construction. Elements are
// left uninitialised (callers fill them); Zeroed() gives zeros. Copies are deep (O(size)); moves
// are O(1). Concurrent writes to distinct elements are fine.
template <class T>
class AlignedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t size) : size_(size) {
    if (size == 0) return;
    if (size > SIZE_MAX / sizeof(T)) throw std::bad_alloc();  // size * sizeof(T) would wrap
    data_.reset(static_cast<T*>(AllocateAligned(size * sizeof(T))));
  }
  AlignedArray(const AlignedArray& other) : AlignedArray(other.size_) {
    if (size_ > 0) std::memcpy(data_.get(), other.data_.get(), size_ * sizeof(T));
  }
  AlignedArray& operator=(const AlignedArray& other) {
    if (this != &other) *this = AlignedArray(other);
    return *this;
  }
  AlignedArray(AlignedArray&&) noexcept = default;
  AlignedArray& operator=(AlignedArray&&) noexcept = default;

  static AlignedArray Zeroed(std::size_t size) {
    AlignedArray a(size);
    for (std::size_t i = 0; i < size; ++i) a[i] = T{};
    return a;
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }
  std::span<T> span() { return {data(), size_}; }
  std::span<const T> span() const { return {data(), size_}; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0;
};

// Immutable, cheaply copyable view of n elements whose storage is kept alive by `owner`. Safe to
// read from any number of threads.
template <class T>
class SharedArray {
 public:
  SharedArray() = default;
  SharedArray(const T* data, std::size_t size, std::shared_ptr<const void> owner)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  // Takes ownership of an AlignedArray (no copy of the elements).
  explicit SharedArray(AlignedArray<T>&& array) {
    auto holder = std::make_shared<AlignedArray<T>>(std::move(array));
    data_ = holder->data();
    size_ = holder->size();
    owner_ = std::move(holder);
  }

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Elements [begin, begin + count), sharing this array's owner.
  SharedArray Slice(std::size_t begin, std::size_t count) const {
    return SharedArray(data_ + begin, count, owner_);
  }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::span<const T> span() const { return {data_, size_}; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
  std::shared_ptr<const void> owner_;
};

}  // namespace parsgd
