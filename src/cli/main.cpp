// parsgd: the command-line front end. main() only dispatches and turns exceptions into messages
// and exit codes: 0 success, 1 a failure (bad data, I/O, divergence), 2 a bad command line.
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "build_info.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "options.hpp"
#include "parsgd/comm/process.hpp"
#include "parsgd/util/edit_distance.hpp"

namespace {

struct Command {
  const char* name;
  int (*run)(std::span<const std::string>);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"train", parsgd::cli::Train, "train a linear model or an MLP with parallel SGD"},
    {"compare", parsgd::cli::Compare,
     "run a grid of train configurations, repeated; report, CSV and plots"},
    {"predict", parsgd::cli::Predict, "write a saved model's predictions for a data set"},
    {"eval", parsgd::cli::Eval, "report a saved model's loss and accuracy on a data set"},
    {"gen", parsgd::cli::Generate, "write a synthetic RCV1-shaped sparse problem"},
    {"convert", parsgd::cli::Convert, "convert a data set (e.g. LIBSVM text to the binary cache)"},
    {"device", parsgd::cli::Device, "report where the offload backend runs (GPU or host fallback)"},
};

void PrintUsage(std::FILE* to) {
  std::fprintf(to,
               "usage: parsgd COMMAND [options]   (parsgd help COMMAND, or parsgd COMMAND --help, for its "
               "options)\n\n"
               "commands:\n");
  for (const Command& c : kCommands) std::fprintf(to, "  %-10s%s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  // Blocks of 128 KiB and more are mapped and given back to the system when freed. glibc would
  // otherwise raise that threshold as such blocks are freed and keep the text pieces a stream is
  // parsed in, and the parsed chunks copied into the rows, in its heap: reading LIBSVM text from a
  // pipe then peaked at twice the rows (bench/README.md, "Memory").
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || (name == "help" && argc == 2)) {
    PrintUsage(stdout);
    return 0;
  }
  // `parsgd help COMMAND`: the command's own help.
  const bool help = name == "help";
  const std::string_view command = help ? std::string_view(argv[2]) : name;
  if (name == "--version") {
    std::printf("%s\n", parsgd::cli::ProgramVersion().c_str());
    return 0;
  }
  const std::vector<std::string> args =
      help ? std::vector<std::string>{"--help"} : std::vector<std::string>(argv + 2, argv + argc);
  if (const int ranks = parsgd::LaunchedRanks(); ranks > 1 && name != "train") {
    // Each rank would run the whole command alone and write the same files at once.
    std::fprintf(stderr,
                 "parsgd: error: started as one of %d ranks (mpirun): only `parsgd train` runs "
                 "across ranks; run `parsgd %s` as one process\n",
                 ranks, argv[1]);
    return 2;
  }
  parsgd::cli::EndCleanlyOnSignals();
  for (const Command& c : kCommands) {
    if (command != c.name) continue;
    try {
      return c.run(args);
    } catch (const std::exception& e) {
      return parsgd::cli::ReportError(e, c.name);
    }
  }
  // A mistyped command: the closest one, where one is close.
  const Command* best = nullptr;
  std::size_t best_distance = 3;
  for (const Command& c : kCommands) {
    const std::size_t d = parsgd::EditDistance(command, c.name);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  std::fprintf(stderr, "parsgd: error: unknown command '%.*s'%s\n",
               static_cast<int>(command.size()), command.data(),
               best ? (std::string(" (did you mean ") + best->name + "?)").c_str() : "");
  PrintUsage(stderr);
  return 2;
}
