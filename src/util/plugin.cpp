#include "util/plugin.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "parsgd/util/error.hpp"

#ifndef PARSGD_PLUGIN_DIR
#define PARSGD_PLUGIN_DIR ""
#endif

namespace parsgd {
namespace {

// Where a plugin may be, in order: beside the object that holds this code (dladdr: the Python
// module, or the program), beside the program (/proc/self/exe), the build's own directory.
std::vector<std::filesystem::path> PluginDirectories() {
  std::vector<std::filesystem::path> dirs;
  const auto add = [&dirs](const std::filesystem::path& given) {
    std::error_code error;
    const std::filesystem::path dir = std::filesystem::weakly_canonical(given, error);
    if (!error && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  };
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PluginDirectories), &info) != 0 && info.dli_fname != nullptr &&
      std::string_view(info.dli_fname).find('/') != std::string_view::npos) {
    add(std::filesystem::path(info.dli_fname).parent_path());
  }
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) add(exe.parent_path());
  if (*PARSGD_PLUGIN_DIR != '\0') add(PARSGD_PLUGIN_DIR);
  return dirs;
}

void* Load(std::string_view library, std::string_view what, bool global) {
  std::string looked;
  for (const std::filesystem::path& dir : PluginDirectories()) {
    const std::filesystem::path path = dir / library;
    looked += (looked.empty() ? "" : ", ") + dir.string();
    if (access(path.c_str(), R_OK) != 0) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (handle == nullptr) {
      const char* reason = dlerror();
      throw Error(fmt::format("{}: cannot be loaded ({}); {} needs it", path.string(),
                              reason != nullptr ? reason : "no reason given", what));
    }
    return handle;
  }
  throw Error(fmt::format("{} needs {}, part of parsgd, which is in none of {}: build parsgd again "
                          "(cmake --build), or keep the file beside the program",
                          what, library, looked));
}

}  // namespace

void* PluginSymbol(std::string_view library, const char* symbol, std::string_view what,
                   bool global) {
  static std::mutex mutex;
  static std::map<std::string, void*, std::less<>> handles;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(library);
  if (it == handles.end()) it = handles.emplace(std::string(library), Load(library, what, global)).first;
  void* address = dlsym(it->second, symbol);
  if (address == nullptr) {
    throw Error(fmt::format("{} has no {}: it is of another build of parsgd; build parsgd again",
                            library, symbol));
  }
  return address;
}

}  // namespace parsgd
