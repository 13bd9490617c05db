// Outputs that would overwrite what the command reads, or one another: `--save data.svm` turned a
// user's training data into a model file, `predict --output DATA` its data into predictions.
#pragma once

#include <string>
#include <vector>

namespace parsgd::cli {

// A file a command reads or writes, and how the command line named it ("--save", "DATA").
struct NamedPath {
  std::string name;
  std::string path;  // empty: not given
};

// Throws UsageError when an output is the same file as an input (the same inode, through links
// too; an input "IMAGES,LABELS" counts each) or as another output (the same inode, or the same
// path for files not there yet). Streams (devices, pipes) are left out: `/dev/null` may take
// several outputs.
void RefuseOverwrites(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace parsgd::cli
