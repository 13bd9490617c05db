// An output folder that appears complete or not at all: files are written into a staging folder
// beside it (PATH.tmp.XXXXXX), which Commit() renames to PATH. Destroyed without Commit() (an
// error, an exception), the staging folder is removed with everything in it, and PATH is untouched.
#pragma once

#include <string>
#include <string_view>

namespace parsgd::compare {

class StagedFolder {
 public:
  // Refuses a `path` that exists and is not an empty folder (unless `replace`: a folder whose
  // contents the committed one replaces), and creates the staging folder now, so that an
  // unwritable place fails before any work. Throws parsgd::Error naming the path.
  explicit StagedFolder(std::string path, bool replace = false);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  const std::string& path() const { return path_; }
  const std::string& staging() const { return staging_; }
  // staging()/name.
  std::string File(std::string_view name) const;
  // Writes a whole file into the staging folder. Throws parsgd::Error on failure.
  void Write(std::string_view name, std::string_view contents) const;
  // Renames the staging folder to path() (replacing an empty folder there, or with `replace` the
  // folder there, which is moved aside first and removed after). Throws parsgd::Error.
  void Commit();

 private:
  std::string path_;
  std::string staging_;
  bool replace_ = false;
  bool committed_ = false;
};

}  // namespace parsgd::compare
