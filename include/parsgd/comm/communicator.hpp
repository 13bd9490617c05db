// The processes of one run and what they exchange (the ranks of `mpirun`): the small interface the
// library's collective steps are written against, with three implementations: one process alone
// (SoloCommunicator), threads of one process standing in for ranks (MakeThreadGroup, for tests),
// and MPI (mpi_communicator.hpp, built when CMake finds MPI). Every call is collective: each rank
// of the group makes the same calls in the same order, from one thread (MPI_THREAD_FUNNELED).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parsgd/util/error.hpp"

namespace parsgd {

// The error every rank throws from Communicator::Agree: the same message on every rank, so one
// rank (rank 0) reports it for all.
class AgreedError : public Error {
 public:
  using Error::Error;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Elementwise sums over the ranks, in place on every rank, every rank getting the same bits
  // (threads: summed in rank order; MPI: the floating sums reduced on rank 0 in MPI's order and
  // broadcast).
  virtual void SumAll(std::span<uint64_t> values) = 0;
  virtual void SumAll(std::span<double> values) = 0;
  // Elementwise maxima over the ranks, in place on every rank.
  virtual void MaxAll(std::span<uint64_t> values) = 0;
  // `bytes` of rank `root` into `bytes` of every rank (the same length on every rank).
  virtual void Broadcast(std::span<std::byte> bytes, int root) = 0;
  // The ring's exchange: `left` gets rank r - 1's `mine` and `right` rank r + 1's (mod size); all
  // three of the same length on every rank. Alone: `mine` into both.
  virtual void ExchangeRing(std::span<const float> mine, std::span<float> left,
                            std::span<float> right) = 0;
  // Ends every rank of the group now, with exit status `code` (MPI_Abort), where one rank cannot
  // go on and the others may be waiting in a collective for it; returns where the group is this
  // process alone or threads of it (the caller then ends as it would alone).
  virtual void Abort(int /*code*/) {}

  // Built on the above.
  uint64_t Sum(uint64_t value);
  uint64_t Max(uint64_t value);
  // value of every rank, in rank order.
  std::vector<uint64_t> Gather(uint64_t value);
  // Every rank's `values` replaced by the ranks' elementwise mean, taken in double (the models'
  // average: every rank then holds the same bits).
  void MeanAll(std::span<float> values);
  // Every rank's `values` replaced by the ranks' elementwise sum, taken in double and rounded once
  // (every rank then holds the same bits). Cost: a double copy of `values` and SumAll.
  void SumAll(std::span<float> values);
  // Elementwise maxima of values >= 0 (such as |x_j|), in place on every rank: compared as their
  // bits, which order as the values for floats >= 0, so exact.
  void MaxAllMagnitudes(std::span<float> values);
  // Rank `root`'s text into `text` of every rank (of any length).
  void Broadcast(std::string& text, int root);
  // If any rank has an error, every rank throws AgreedError with the message of the lowest such
  // rank (the first in the data's order, where ranks hold it in order); else returns. A rank that
  // failed must still call this, so that no rank waits for it forever.
  void Agree(const std::optional<std::string>& error);
  // Runs fn and agrees on its outcome: a parsgd::Error (or std::exception) fn throws on one rank
  // ends every rank with its message (AgreedError). Alone (size 1), fn's exception itself.
  template <class Fn>
  void AgreeOn(Fn&& fn) {
    if (size() == 1) {
      fn();
      return;
    }
    std::optional<std::string> error;
    try {
      fn();
    } catch (const std::exception& e) {
      error = e.what();
    }
    Agree(error);
  }
};

// One process: every collective is the identity.
class SoloCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void SumAll(std::span<uint64_t>) override {}
  void SumAll(std::span<double>) override {}
  void MaxAll(std::span<uint64_t>) override {}
  void Broadcast(std::span<std::byte>, int) override {}
  void ExchangeRing(std::span<const float> mine, std::span<float> left,
                    std::span<float> right) override {
    std::copy(mine.begin(), mine.end(), left.begin());
    std::copy(mine.begin(), mine.end(), right.begin());
  }
};

// `ranks` communicators whose collectives meet in this process: rank r's to be used by one thread
// (each rank's thread making the same calls in the same order, as ranks of MPI do).
std::vector<std::unique_ptr<Communicator>> MakeThreadGroup(int ranks);

}  // namespace parsgd
