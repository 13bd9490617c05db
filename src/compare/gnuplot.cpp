#include "gnuplot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace parsgd::compare {
namespace {

bool Executable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Runs `program script` in `folder`, output appended to `log`; the exit status, or -1 with errno.
int Spawn(const std::string& program, const std::string& folder, const std::string& script,
          const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // The scripts name their files relative to the folder, as a user running them there would.
  posix_spawn_file_actions_addchdir_np(&actions, folder.c_str());
  std::string arg0 = program, arg1 = script;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid;
  const int err = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    errno = err;
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::optional<std::string> FindProgram(const std::string& program) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos) {
    if (Executable(program)) return std::filesystem::absolute(program).string();
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    const std::string_view dir = std::string_view(dirs).substr(at, colon - at);
    const std::string candidate =
        fmt::format("{}/{}", dir.empty() ? std::string_view(".") : dir, program);
    if (Executable(candidate)) return candidate;
    at = colon + 1;
  }
  return std::nullopt;
}

DrawResult DrawPlots(const std::string& program, const std::string& folder,
                     const std::vector<std::string>& scripts) {
  DrawResult result;
  result.program = program;
  const auto found = FindProgram(program);
  if (!found) return result;
  result.program = *found;
  const std::string log = folder + "/gnuplot.log";
  result.state = DrawResult::State::kDrawn;
  for (const std::string& script : scripts) {
    const std::string stem = script.substr(0, script.rfind('.'));
    const int status = Spawn(*found, folder, script, log);
    if (status != 0) {
      result.state = DrawResult::State::kFailed;
      result.message =
          status < 0 ? fmt::format("{} {}: cannot run: {}", *found, script, std::strerror(errno))
                     : fmt::format("{} {} exited with status {} (see gnuplot.log)", *found, script,
                                   status);
      break;
    }
    bool complete = true;
    for (const std::string& image : {stem + ".png", stem + ".svg"}) {
      if (std::filesystem::exists(folder + "/" + image)) {
        result.images.push_back(image);
      } else {
        complete = false;
      }
    }
    if (!complete) {
      result.state = DrawResult::State::kFailed;
      result.message = fmt::format("{} {} wrote no {}.png and {}.svg (see gnuplot.log)", *found,
                                   script, stem, stem);
      break;
    }
  }
  // The log is kept where it explains a failure; a drawn plot's warnings (fonts, terminals) are
  // not the report's business.
  std::error_code ec;
  if (result.state == DrawResult::State::kDrawn ||
      (std::filesystem::exists(log, ec) && std::filesystem::file_size(log, ec) == 0)) {
    std::filesystem::remove(log, ec);
  }
  return result;
}

}  // namespace parsgd::compare
