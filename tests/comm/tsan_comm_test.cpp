// The in-process group of ranks (MakeThreadGroup) under real concurrency: its collectives hand
// buffers between threads through a barrier, and ThreadSanitizer checks that every read of another
// rank's buffer happens between the barriers that publish and release it.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

TEST(TsanThreadGroup, CollectivesRepeatedlyGiveEveryRankTheSameResult) {
  constexpr int kRanks = 4;
  auto group = MakeThreadGroup(kRanks);
  std::vector<std::string> errors(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      Communicator& comm = *group[r];
      for (int round = 0; round < 200; ++round) {
        std::vector<double> v(16, 1.0 + r);
        comm.SumAll(v);
        for (double x : v) EXPECT_EQ(x, 10.0);
        std::vector<uint64_t> m(3, static_cast<uint64_t>(r + round));
        comm.MaxAll(m);
        EXPECT_EQ(m[0], static_cast<uint64_t>(kRanks - 1 + round));
        std::string word(5, r == round % kRanks ? 'a' + r : '?');
        comm.Broadcast(std::as_writable_bytes(std::span<char>(word.data(), word.size())),
                       round % kRanks);
        EXPECT_EQ(word, std::string(5, 'a' + round % kRanks));
      }
      try {
        comm.AgreeOn([&] {
          if (r == 2) throw Error("two");
        });
      } catch (const Error& e) {
        errors[r] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "two");
}

}  // namespace
}  // namespace parsgd
