// The flags of one training run (data, model, scheme, order, optimiser...), declared once and
// shared by `train` (one run) and `compare` (a grid of runs, the same flags taking lists).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "options.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/io/model_file.hpp"

namespace parsgd::cli {

struct RunArgs {
  TrainConfig config;
  std::string train, test;
  std::string validation;  // --validation: held-out rows for early stopping
  DataFormat format = DataFormat::kAuto;
  uint64_t features = 0;
  ZeroBased zero_based = ZeroBased::kAuto;
  CsvHeader header = CsvHeader::kAuto;
  char delimiter = 0;
  std::string label_column;
  CsvMissing missing = CsvMissing::kError;
  CsvCenter center = CsvCenter::kAuto;  // the training table's, where the run can centre it
  std::string weight_column;
  std::string ignore_columns;  // comma-separated
  // --categorical as given ("auto", "none" or columns).
  std::string categorical = "auto";
  // --hash-bits (0: auto: TextHashing's default for fastText and VW text, one-hot CSV
  // categoricals); fastText: --ngrams, --char-ngrams (as given: "MIN,MAX" or empty); VW:
  // --interactions.
  int hash_bits = 0;
  int ngrams = static_cast<int>(TextHashing{}.ngrams);
  std::string char_ngrams;
  std::string interactions;
};

// The hashing of fastText and VW text the flags say. Throws UsageError for a --char-ngrams that
// is not MIN,MAX with 1 <= MIN <= MAX <= kMaxCharNgram, or --interactions that are not 2- or
// 3-letter terms.
TextHashing RunHashing(const RunArgs& a);
// Leaves out of a.interactions each term that pairs the namespaces of an earlier one ('ui,iu'),
// saying so on standard error where `say` (one rank of several says it), as VW does.
void DropDuplicateInteractions(RunArgs& a, bool say = true);

// --train, --test, --format, --features, --zero-based, --header, --delimiter, --label-column,
// --hash-bits, --ngrams, --char-ngrams, --interactions. `train_required`:
// the parser refuses a command line without --train (compare checks it itself: it may come from an
// experiment file).
void DeclareDataOptions(OptionParser& p, RunArgs& a, bool train_required = true);
// --categorical, --hash-bits, --ngrams, --char-ngrams, --interactions (of DeclareDataOptions;
// convert's too).
void DeclareHashingOptions(OptionParser& p, RunArgs& a);
// The text hashing, CSV's categorical columns and their hash bits the flags say, into `options`
// (throws as RunHashing).
void SetHashingOptions(const RunArgs& a, LoadOptions& options);
// --model ... --deterministic: every setting of the library's table (config/settings.hpp) but the
// seed, which each command declares itself (compare derives one per repeat).
void DeclareTrainingOptions(OptionParser& p, RunArgs& a);

// Throws UsageError for a data flag given for data it does not apply to (the training file's
// format as given or detected): --header and --label-column read CSV text, --zero-based LIBSVM
// text, --ngrams and --char-ngrams fastText text, --interactions VW text, --hash-bits either; a run
// would otherwise ignore them.
void RefuseIgnoredDataOptions(const OptionParser& p, const RunArgs& a);
// The same for the file `path` read in `format` (kAuto, standard input's: nothing refused), by
// the table of the read options and their formats (kReadOptions); `given` says
// whether the command line gave a flag.
void RefuseIgnoredDataOptions(const std::function<bool(std::string_view)>& given,
                              const std::string& path, DataFormat format);

// The host threads of a run: --threads on the cpu backend; on the offload backend, whose --threads
// counts device workers, every core (for loading and preparing).
std::unique_ptr<Executor> MakeRunExecutor(const TrainConfig& config);

// Loads one data set as the run's flags say, copied into process memory (training reads rows in
// random order; see page_budget below), on the executor's threads. A test set is read with the
// index base decided for `train` (see RunZeroBased). Throws the readers' errors, and parsgd::Error
// for training rows with weights (VW importances other than 1), which training does not weigh yet
// (a test set's are unused: its metrics are unweighted). Across ranks (`ranks` of more than one),
// this rank's share (LoadShard, data/shard.hpp); collective. With `page_budget` (a DataPlan's
// budget, cli/data_memory.hpp), a binary cache is read from its file under that budget of its
// pages (PagedView) instead of copied. `start` (training data only): the reading recorded by the
// model a run starts from (--init), by which the file is read the way that model's data was (its
// table's columns, categories and centres, its hashing, its index base), so that the model's
// weights mean the same features.
Dataset LoadRunData(const std::string& path, const RunArgs& a, Executor& executor,
                    const Dataset* train = nullptr, Communicator* ranks = nullptr,
                    uint64_t page_budget = 0, const DataReading* start = nullptr);

// The index base of the run's LIBSVM text: the one the training data was read with where it
// came from LIBSVM text (or a cache of it), else --zero-based. Test data and the saved model
// use it, so that every file of a run numbers its features the same way.
ZeroBased RunZeroBased(const RunArgs& a, const Dataset& train);

// What the saved model records of how the run's training data was read: its index base
// (RunZeroBased), when the training file is CSV text, its --label-column (predict's and eval's
// defaults), and when it is fastText text, its hashing.
DataReading RunReading(const RunArgs& a, const Dataset& train);

}  // namespace parsgd::cli
