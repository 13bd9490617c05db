// Options that several commands take, declared once.
#pragma once

#include "options.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd::cli {

// --threads N|auto (auto, stored as 0: every core this process may use).
inline void ThreadsOption(OptionParser& p, int* threads, const std::string& what = "threads") {
  p.Int("threads", threads, what + " (auto: every core this process may use)", 1, 4096, 0);
}

// --format auto|libsvm|idx|bin.
inline void FormatOption(OptionParser& p, DataFormat* format) {
  p.Choice<DataFormat>("format", format, kDataFormats, "data format");
}

}  // namespace parsgd::cli
