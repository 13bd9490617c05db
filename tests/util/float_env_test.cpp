#include "parsgd/util/float_env.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "parsgd/exec/executor.hpp"
#include "parsgd/offload/device.hpp"

namespace parsgd {
namespace {

// A subnormal read and a subnormal result, through volatile so the compiler cannot fold them.
bool ArithmeticFlushes() {
  volatile float subnormal = 1e-40f, smallest_normal = 1.17549435e-38f;
  const float read = subnormal, half = smallest_normal * 0.5f;
  return read == 0.f && half == 0.f;
}

TEST(FloatEnv, ScopeFlushesSubnormalsAndRestoresTheCallersMode) {
  ASSERT_FALSE(FlushesDenormals()) << "the test process starts in IEEE mode";
  EXPECT_FALSE(ArithmeticFlushes());
  {
    FlushDenormalsScope flush;
    EXPECT_TRUE(FlushesDenormals());
    EXPECT_TRUE(ArithmeticFlushes());
    {
      FlushDenormalsScope nested;
      EXPECT_TRUE(FlushesDenormals());
    }
    EXPECT_TRUE(FlushesDenormals()) << "the inner scope restores the outer one's mode";
  }
  EXPECT_FALSE(FlushesDenormals());
  EXPECT_FALSE(ArithmeticFlushes());
}

TEST(FloatEnv, SetFlushDenormalsTurnsTheModeOnAndOff) {
  SetFlushDenormals(true);
  EXPECT_TRUE(FlushesDenormals());
  EXPECT_TRUE(ArithmeticFlushes());
  SetFlushDenormals(false);
  EXPECT_FALSE(FlushesDenormals());
  EXPECT_FALSE(ArithmeticFlushes());
}

// Every body an executor runs computes with subnormals flushed, on whichever thread runs it, and
// the caller's mode is left as it was.
void ExpectWorkersFlush(Executor& executor) {
  std::atomic<int> flushing{0}, bodies{0};
  auto record = [&] {
    bodies.fetch_add(1);
    if (FlushesDenormals() && ArithmeticFlushes()) flushing.fetch_add(1);
  };
  executor.RunWorkers(2, [&](int) { record(); });
  executor.ParallelFor(64, [&](uint64_t) { record(); });
  EXPECT_EQ(bodies.load(), 66);
  EXPECT_EQ(flushing.load(), 66);
  EXPECT_FALSE(FlushesDenormals());
}

TEST(FloatEnv, TbbExecutorBodiesFlushSubnormals) { ExpectWorkersFlush(*MakeTbbExecutor(2)); }

TEST(FloatEnv, ThreadExecutorBodiesFlushSubnormals) { ExpectWorkersFlush(*MakeThreadExecutor(2)); }

TEST(FloatEnv, ExecuteLeavesTheModeAlone) {
  // Execute runs the data readers: a subnormal value in a file must be read as written.
  auto executor = MakeTbbExecutor(2);
  bool flushing = true;
  executor->Execute([&] { flushing = FlushesDenormals(); });
  EXPECT_FALSE(flushing);
}

// The offload kernels' host fallback runs each target region on a libgomp team started from the
// calling thread (the trainer's, inside its FlushDenormalsScope): the team takes that mode.
TEST(FloatEnv, OffloadHostFallbackTeamsTakeTheCallersMode) {
  if (!ProbeDevice().ran_on_host) GTEST_SKIP() << "target regions run on a GPU here";
  EXPECT_EQ(TargetThreadsFlushingDenormals(2), 0);
  {
    FlushDenormalsScope flush;
    EXPECT_EQ(TargetThreadsFlushingDenormals(2), 2);
    EXPECT_EQ(TargetThreadsFlushingDenormals(1), 1);
  }
  EXPECT_EQ(TargetThreadsFlushingDenormals(2), 0);
}

}  // namespace
}  // namespace parsgd
