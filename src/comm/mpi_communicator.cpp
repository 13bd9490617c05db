#include "mpi_communicator.hpp"

// The C API only (no C++ bindings, which MPI 3 deprecated).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

// MPI counts are ints: spans go in pieces of at most 2^30 elements.
constexpr std::size_t kPiece = std::size_t{1} << 30;

void Check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      owns_ = true;
      if (provided < MPI_THREAD_FUNNELED) {
        throw Error("this MPI does not give MPI_THREAD_FUNNELED, which parsgd's workers need");
      }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }

  ~MpiCommunicator() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_ && !finalised) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void SumAll(std::span<uint64_t> v) override {
    Allreduce(v.data(), v.size(), MPI_UINT64_T, MPI_SUM);
  }
  void MaxAll(std::span<uint64_t> v) override {
    Allreduce(v.data(), v.size(), MPI_UINT64_T, MPI_MAX);
  }

  // Floating sums: reduced to rank 0 and broadcast, so that every rank holds the same bits (an
  // allreduce need not give every rank the same rounding).
  void SumAll(std::span<double> v) override {
    for (std::size_t at = 0; at < v.size(); at += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, v.size() - at));
      double* p = v.data() + at;
      if (rank_ == 0) {
        Check(MPI_Reduce(MPI_IN_PLACE, p, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      } else {
        Check(MPI_Reduce(p, nullptr, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      }
      Check(MPI_Bcast(p, n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
  }

  // Two exchanges with the neighbours: this rank's values to the right while the left one's
  // arrive, then to the left while the right one's arrive (with two ranks both are the other).
  void ExchangeRing(std::span<const float> mine, std::span<float> left,
                    std::span<float> right) override {
    const int to_left = (rank_ + size_ - 1) % size_, to_right = (rank_ + 1) % size_;
    for (std::size_t at = 0; at < mine.size(); at += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, mine.size() - at));
      Check(MPI_Sendrecv(mine.data() + at, n, MPI_FLOAT, to_right, 0, left.data() + at, n, MPI_FLOAT,
                         to_left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
      Check(MPI_Sendrecv(mine.data() + at, n, MPI_FLOAT, to_left, 1, right.data() + at, n, MPI_FLOAT,
                         to_right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
    }
  }

  void Abort(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }

  void Broadcast(std::span<std::byte> bytes, int root) override {
    for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, bytes.size() - at));
      Check(MPI_Bcast(bytes.data() + at, n, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    }
  }

 private:
  void Allreduce(void* data, std::size_t count, MPI_Datatype type, MPI_Op op) {
    auto* bytes = static_cast<std::byte*>(data);
    int element = 0;
    MPI_Type_size(type, &element);
    for (std::size_t at = 0; at < count; at += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, count - at));
      Check(MPI_Allreduce(MPI_IN_PLACE, bytes + at * element, n, type, op, MPI_COMM_WORLD),
            "MPI_Allreduce");
    }
  }

  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

}  // namespace parsgd

// The plugin's export (util/plugin.hpp; comm/process.cpp calls it).
extern "C" __attribute__((visibility("default"))) parsgd::Communicator* parsgd_mpi_communicator() {
  return new parsgd::MpiCommunicator();
}
