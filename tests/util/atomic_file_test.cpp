// AtomicFileWriter on what users name as outputs besides plain files: symbolic links, pipes and
// devices, the process's own descriptors (a walkthrough found each replaced by a regular file,
// `--output /dev/null` included).
#include "parsgd/util/atomic_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace parsgd {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int TempFiles(const fs::path& folder) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    n += entry.path().filename().string().find(".tmp.") != std::string::npos;
  }
  return n;
}

TEST(AtomicFile, ThroughASymbolicLinkReplacesTheFileItNamesAndKeepsTheLink) {
  testing::TempDir dir;
  fs::create_directory(dir.path() / "real");
  const std::string target = dir.Write("real/out.txt", "old");
  fs::create_symlink("real/out.txt", dir.path() / "link.txt");
  {
    AtomicFileWriter w(dir.File("link.txt"));
    w.Write("new");
    EXPECT_EQ(Read(target), "old") << "nothing shows before Commit";
    w.Commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.txt"));
  EXPECT_EQ(Read(target), "new");
  {
    AtomicFileWriter failed(dir.File("link.txt"));  // destroyed without Commit
    failed.Write("lost");
  }
  EXPECT_EQ(Read(target), "new");
  EXPECT_EQ(TempFiles(dir.path()) + TempFiles(dir.path() / "real"), 0);
  // A link to a file not yet there: the file is made where the link points.
  fs::create_symlink("made.txt", dir.path() / "dangling.txt");
  AtomicFileWriter w(dir.File("dangling.txt"));
  w.Write("made");
  w.Commit();
  EXPECT_TRUE(fs::is_symlink(dir.path() / "dangling.txt"));
  EXPECT_EQ(Read(dir.File("made.txt")), "made");
}

TEST(AtomicFile, APipeIsWrittenThroughNotReplaced) {
  testing::TempDir dir;
  const std::string fifo = dir.File("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The read end first, without waiting for a writer, so that the writer's open does not wait.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  {
    AtomicFileWriter w(fifo);
    w.Write("through the pipe\n");
    w.Commit();
  }
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof(buffer));
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the pipe was replaced by a file";
  EXPECT_EQ(TempFiles(dir.path()), 0);
}

TEST(AtomicFile, TheProcesssOwnDescriptorsAreWrittenAtTheirOffset) {
  testing::TempDir dir;
  const std::string file = dir.File("shared.txt");
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "before,", 7), 7);  // what the process wrote there itself
  {
    AtomicFileWriter w("/proc/self/fd/" + std::to_string(fd));
    w.Write("written,");
    w.Commit();
  }
  ASSERT_EQ(::write(fd, "after", 5), 5);
  ::close(fd);
  EXPECT_EQ(Read(file), "before,written,after") << "a fresh open would have started at 0";
  EXPECT_EQ(TempFiles(dir.path()), 0);
}

// What a signal handler calls before the process ends: the unfinished writers' temporary files go,
// a finished file stays.
TEST(AtomicFile, RemoveUnfinishedFilesRemovesOnlyTheUnfinished) {
  testing::TempDir dir;
  {
    AtomicFileWriter done(dir.File("done.txt"));
    done.Write("kept");
    done.Commit();
  }
  AtomicFileWriter a(dir.File("a.txt")), b(dir.File("b.txt"));
  a.Write("never");
  EXPECT_EQ(TempFiles(dir.path()), 2);
  RemoveUnfinishedFiles();
  EXPECT_EQ(TempFiles(dir.path()), 0);
  EXPECT_EQ(Read(dir.File("done.txt")), "kept");
  EXPECT_FALSE(fs::exists(dir.File("a.txt")));
}

TEST(AtomicFile, AMissingFolderIsNamed) {
  testing::TempDir dir;
  try {
    AtomicFileWriter w(dir.File("missing/out.txt"));
    FAIL() << "no folder, no file";
  } catch (const std::exception& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "cannot create a temporary file in its folder")) << e.what();
    EXPECT_TRUE(testing::Contains(e.what(), "missing")) << e.what();
  }
}

}  // namespace
}  // namespace parsgd
