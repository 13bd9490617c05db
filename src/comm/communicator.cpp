#include "parsgd/comm/communicator.hpp"

#include <barrier>
#include <bit>
#include <cstring>

#include "parsgd/util/error.hpp"

namespace parsgd {

uint64_t Communicator::Sum(uint64_t value) {
  SumAll(std::span<uint64_t>(&value, 1));
  return value;
}

uint64_t Communicator::Max(uint64_t value) {
  MaxAll(std::span<uint64_t>(&value, 1));
  return value;
}

std::vector<uint64_t> Communicator::Gather(uint64_t value) {
  std::vector<uint64_t> all(size(), 0);
  all[rank()] = value;
  SumAll(all);
  return all;
}

void Communicator::MeanAll(std::span<float> values) {
  std::vector<double> sums(values.begin(), values.end());
  SumAll(sums);
  const double ranks = size();
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(sums[k] / ranks);
}

void Communicator::SumAll(std::span<float> values) {
  std::vector<double> sums(values.begin(), values.end());
  SumAll(sums);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(sums[k]);
}

void Communicator::MaxAllMagnitudes(std::span<float> values) {
  std::vector<uint64_t> bits(values.size());
  for (std::size_t j = 0; j < bits.size(); ++j) bits[j] = std::bit_cast<uint32_t>(values[j]);
  MaxAll(bits);
  for (std::size_t j = 0; j < bits.size(); ++j)
    values[j] = std::bit_cast<float>(static_cast<uint32_t>(bits[j]));
}

void Communicator::Broadcast(std::string& text, int root) {
  uint64_t length = text.size();
  Broadcast(std::as_writable_bytes(std::span<uint64_t>(&length, 1)), root);
  text.resize(length);
  Broadcast(std::as_writable_bytes(std::span<char>(text.data(), text.size())), root);
}

void Communicator::Agree(const std::optional<std::string>& error) {
  const std::vector<uint64_t> lengths = Gather(error ? error->size() + 1 : 0);
  int first = -1;
  for (int r = 0; r < size() && first < 0; ++r) {
    if (lengths[r] != 0) first = r;
  }
  if (first < 0) return;
  std::string message(lengths[first] - 1, '\0');
  if (rank() == first) message = *error;
  Broadcast(std::as_writable_bytes(std::span<char>(message.data(), message.size())), first);
  throw AgreedError(message);
}

namespace {

// The ranks' meeting place: each rank puts the address of its buffer in its slot, all wait, each
// reads what it needs from the others', all wait again before any buffer changes.
class ThreadGroup {
 public:
  explicit ThreadGroup(int ranks) : slots_(ranks), barrier_(ranks) {}

  int size() const { return static_cast<int>(slots_.size()); }

  template <class T, class Op>
  void Reduce(int rank, std::span<T> values, Op op) {
    slots_[rank] = values.data();
    barrier_.arrive_and_wait();
    std::vector<T> result(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
      T acc = static_cast<const T*>(slots_[0])[k];
      for (int r = 1; r < size(); ++r) acc = op(acc, static_cast<const T*>(slots_[r])[k]);
      result[k] = acc;
    }
    barrier_.arrive_and_wait();  // every rank has read every buffer
    std::copy(result.begin(), result.end(), values.begin());
  }

  void ExchangeRing(int rank, std::span<const float> mine, std::span<float> left,
                    std::span<float> right) {
    slots_[rank] = mine.data();
    barrier_.arrive_and_wait();
    const int n = size();
    const auto* from_left = static_cast<const float*>(slots_[(rank + n - 1) % n]);
    const auto* from_right = static_cast<const float*>(slots_[(rank + 1) % n]);
    std::copy_n(from_left, left.size(), left.begin());
    std::copy_n(from_right, right.size(), right.begin());
    barrier_.arrive_and_wait();
  }

  void Broadcast(int rank, std::span<std::byte> bytes, int root) {
    if (rank == root) slots_[root] = bytes.data();
    barrier_.arrive_and_wait();
    if (rank != root) std::memcpy(bytes.data(), slots_[root], bytes.size());
    barrier_.arrive_and_wait();
  }

 private:
  std::vector<const void*> slots_;
  std::barrier<> barrier_;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(std::shared_ptr<ThreadGroup> group, int rank)
      : group_(std::move(group)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  void SumAll(std::span<uint64_t> v) override {
    group_->Reduce(rank_, v, [](uint64_t a, uint64_t b) { return a + b; });
  }
  void SumAll(std::span<double> v) override {
    group_->Reduce(rank_, v, [](double a, double b) { return a + b; });
  }
  void MaxAll(std::span<uint64_t> v) override {
    group_->Reduce(rank_, v, [](uint64_t a, uint64_t b) { return a > b ? a : b; });
  }
  void Broadcast(std::span<std::byte> bytes, int root) override {
    group_->Broadcast(rank_, bytes, root);
  }
  void ExchangeRing(std::span<const float> mine, std::span<float> left,
                    std::span<float> right) override {
    group_->ExchangeRing(rank_, mine, left, right);
  }

 private:
  std::shared_ptr<ThreadGroup> group_;
  int rank_;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> MakeThreadGroup(int ranks) {
  if (ranks < 1) throw Error("a group of ranks needs at least one");
  auto group = std::make_shared<ThreadGroup>(ranks);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_unique<ThreadCommunicator>(group, r));
  return out;
}

}  // namespace parsgd
