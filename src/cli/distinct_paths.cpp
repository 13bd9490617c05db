#include "distinct_paths.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <system_error>

#include "options.hpp"
#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd::cli {
namespace {

// What identifies a file: its device and inode where it exists, else its absolute, normalised
// path. None for a stream (not a regular file).
struct FileKey {
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;  // for a file not there yet
  bool operator==(const FileKey&) const = default;
};

std::optional<FileKey> KeyOf(const std::string& path) {
  if (path == "-") return std::nullopt;  // standard input or output: a stream, not a file
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return FileKey{st.st_dev, st.st_ino, ""};
  }
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::weakly_canonical(path, error);
  return FileKey{0, 0, error ? path : absolute.string()};
}

// The files an input names: itself, or where it does not exist and holds a comma (IDX
// "IMAGES,LABELS", or a list of data files), each part.
std::vector<std::string> InputFiles(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 || path.find(',') == std::string::npos) return {path};
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t comma; (comma = path.find(',', begin)) != std::string::npos; begin = comma + 1)
    parts.push_back(path.substr(begin, comma - begin));
  parts.push_back(path.substr(begin));
  return parts;
}

}  // namespace

void RefuseOverwrites(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<const NamedPath*, FileKey>> read, written;
  const NamedPath* stdin_reader = nullptr;
  for (const NamedPath& in : inputs) {
    if (in.path.empty()) continue;
    if (in.path == "-") {
      if (stdin_reader != nullptr) {
        throw UsageError(fmt::format("{} - and {} -: standard input can be read once; give a file",
                                     stdin_reader->name, in.name));
      }
      stdin_reader = &in;
    }
    for (const std::string& file : InputFiles(in.path)) {
      if (std::optional<FileKey> key = KeyOf(file)) read.emplace_back(&in, *key);
    }
  }
  const NamedPath* stdout_writer = nullptr;
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    if (out.path == "-") {
      if (stdout_writer != nullptr) {
        throw UsageError(fmt::format("{} - and {} -: both to standard output; give one a file",
                                     stdout_writer->name, out.name));
      }
      stdout_writer = &out;
    }
    const std::optional<FileKey> key = KeyOf(out.path);
    if (!key) continue;
    for (const auto& [in, in_key] : read) {
      if (in_key == *key) {
        throw UsageError(fmt::format(
            "{} {}: the same file as {} {}, which it would overwrite; give another path",
            out.name, out.path, in->name, in->path));
      }
    }
    for (const auto& [other, other_key] : written) {
      if (other_key == *key) {
        throw UsageError(fmt::format("{} {}: the same file as {} {}; give each its own path",
                                     out.name, out.path, other->name, other->path));
      }
    }
    written.emplace_back(&out, *key);
  }
}

}  // namespace parsgd::cli
