#include "output_folder.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::compare {

namespace fs = std::filesystem;

StagedFolder::StagedFolder(std::string path, bool replace)
    : path_(std::move(path)), replace_(replace) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  if (path_.empty()) throw Error("empty output folder name");
  std::error_code ec;
  if (fs::exists(path_, ec)) {
    if (!fs::is_directory(path_, ec)) {
      throw Error(path_ + ": exists and is not a folder (choose another --out)");
    }
    if (!replace_ && !fs::is_empty(path_, ec)) {
      throw Error(path_ + ": is a folder that is not empty (choose another --out, or remove it)");
    }
  }
  staging_ = path_ + ".tmp.XXXXXX";
  if (::mkdtemp(staging_.data()) == nullptr) {
    throw Error(path_ + ": cannot create a folder beside it: " + std::strerror(errno));
  }
  // mkdtemp creates 0700; give the usual 0777 & ~umask, as mkdir would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(staging_.c_str(), 0777 & ~mask);
}

StagedFolder::~StagedFolder() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

std::string StagedFolder::File(std::string_view name) const {
  return staging_ + "/" + std::string(name);
}

void StagedFolder::Write(std::string_view name, std::string_view contents) const {
  AtomicFileWriter out(File(name));
  out.Write(contents);
  out.Commit();
}

void StagedFolder::Commit() {
  std::string old;
  std::error_code ec;
  if (replace_ && fs::exists(path_, ec)) {  // moved aside, so that PATH is always one whole folder
    old = path_ + ".old.XXXXXX";
    if (::mkdtemp(old.data()) == nullptr || std::rename(path_.c_str(), old.c_str()) != 0) {
      throw Error(path_ + ": cannot move the folder there aside: " + std::strerror(errno));
    }
  }
  if (std::rename(staging_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    if (!old.empty()) std::rename(old.c_str(), path_.c_str());  // put back
    throw Error(path_ + ": cannot rename the finished folder into place: " + why);
  }
  committed_ = true;
  if (!old.empty()) fs::remove_all(old, ec);
}

}  // namespace parsgd::compare
