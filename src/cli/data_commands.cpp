// parsgd gen / convert: make and transform data sets.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "distinct_paths.hpp"
#include "options.hpp"
#include "parsgd/util/split.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/exec/executor.hpp"
#include "shared_options.hpp"
#include "train_options.hpp"

namespace parsgd::cli {

int Generate(std::span<const std::string> args) {
  GeneratorParams g;
  std::string output;
  int threads = 0;
  OptionParser p(
      "gen",
      "Write a synthetic RCV1-shaped binary problem: Zipf feature frequencies, unit-norm "
      "tf-idf-like rows, labels from a hidden sparse weight vector plus label noise. The "
      "same arguments always write the same bytes. OUTPUT ending in .bin gets the binary "
      "cache, anything else LIBSVM text.");
  p.Positional("OUTPUT", &output, "file to write");
  p.UInt64("rows", &g.rows, "rows");
  p.UInt64("features", &g.features, "features");
  p.Double("nnz", &g.nnz_per_row, "mean nonzeros per row", 1, 1e9);
  p.Double("zipf", &g.zipf, "Zipf exponent of the feature frequencies", 0, 100);
  p.Double("noise", &g.label_noise, "fraction of labels flipped", 0, 0.5);
  p.Double("density", &g.weight_density, "fraction of features with a hidden weight", 0, 1);
  p.UInt64("seed", &g.seed, "seed");
  ThreadsOption(p, &threads, "threads (the bytes written do not depend on them)");
  if (!p.Parse(args)) {
    std::printf("%s", p.Help().c_str());
    return 0;
  }
  try {
    // What no flag's range says alone: rows, features, nnz <= features.
    ValidateGeneratorParams(g);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.starts_with("generator: ")) what = "--" + what.substr(11);  // "--rows must be ..."
    throw UsageError(what);
  }
  auto executor = MakeTbbExecutor(threads);
  executor->Execute([&] { SaveDataset(GenerateSparse(g), output); });
  return 0;
}

int Convert(std::span<const std::string> args) {
  std::string input, output;
  LoadOptions load;
  int threads = 0;
  OptionParser p(
      "convert",
      "Read a data set in any supported format and write it again: OUTPUT ending in .bin "
      "gets the binary cache (memory-mapped on load, checksummed), anything else LIBSVM "
      "text (1-based indices).");
  p.Positional("INPUT", &input, "data set to read");
  p.Positional("OUTPUT", &output, "file to write");
  FormatOption(p, &load.format);
  p.UInt64("features", &load.max_features, "number of features (0: the largest index seen)");
  ZeroBasedOption(p, &load.zero_based,
                  "libsvm: whether feature indices start at 0 (auto: when an index 0 appears); the "
                  "cache records the decision");
  std::string ignore_columns;
  CsvReadOptions(p, &load.header, &load.delimiter, &load.label_column, &load.missing,
                 &load.weight_column, &ignore_columns);
  RunArgs hashing;  // the text hashing flags, as train's
  DeclareHashingOptions(p, hashing);
  ThreadsOption(p, &threads);
  if (!p.Parse(args)) {
    std::printf("%s", p.Help().c_str());
    return 0;
  }
  hashing.train = input;
  hashing.format = load.format;
  RefuseIgnoredDataOptions(p, hashing);
  DropDuplicateInteractions(hashing);
  SetHashingOptions(hashing, load);
  if (!ignore_columns.empty()) load.ignore_columns = SplitAtCommas(ignore_columns);
  RefuseOverwrites({{"INPUT", input}}, {{"OUTPUT", output}});
  auto executor = MakeTbbExecutor(threads);
  if (output.ends_with(".bin")) {
    // Text and IDX images stream into the cache (a few pieces in memory, whatever the input's
    // size).
    executor->Execute([&] {
      const CacheShape shape = ConvertToCache(input, load, output);
      const std::string labels = shape.classes != 0
                                     ? fmt::format("{} distinct labels", shape.classes)
                                     : "more than 65536 distinct labels";
      std::printf("%s", fmt::format("{}: {} rows x {} features, {} nonzeros, {}\n", output,
                                    shape.rows, shape.features, shape.nnz, labels)
                            .c_str());
    });
    return 0;
  }
  executor->Execute([&] {
    const Dataset data = LoadDataset(input, load);
    SaveDataset(data, output);
    std::printf("%s", fmt::format("{}: {} rows x {} features, {} nonzeros\n", output, data.rows(),
                                  data.features(), data.nnz())
                          .c_str());
  });
  return 0;
}

}  // namespace parsgd::cli
