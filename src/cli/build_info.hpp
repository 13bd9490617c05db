// What the program is: its version and the commit it was built from, for --version and the
// machine section of compare's report.
#pragma once

#include <string>

namespace parsgd::cli {

// "parsgd VERSION (commit ABBREVIATED-HASH)", or "parsgd VERSION" when built outside a git checkout.
std::string ProgramVersion();

// The CPU's model name (/proc/cpuinfo's first "model name"), or "" where it cannot be read.
std::string CpuModel();

}  // namespace parsgd::cli
