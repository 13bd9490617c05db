// LIBSVM / svmlight text: reading (parallel, memory-mapped) and writing (parallel, atomic).
//
// Format, one row per line:   label [qid:N] index:value index:value ... [# comment]
//   - label: any finite number (±1, 0/1, class ids, regression targets); a leading '+' is allowed.
//   - qid:N is accepted and ignored, only right after the label.
//   - indices: 1-based (LIBSVM's convention) or 0-based (scikit-learn's dump_svmlight_file
//     default), see LibsvmOptions::zero_based; strictly ascending within a row; stored 0-based.
//     Values: finite numbers; explicit zeros are kept as given.
//   - '#' starts a comment to the end of the line; blank and comment-only lines are not rows.
//   - spaces and tabs separate tokens; LF or CRLF line ends.
// Columns in messages count bytes from 1. All functions here may be called from several threads
// at once (they share no state).
// Numbers are read as float with std::from_chars (round to nearest); a value that underflows float
// becomes 0 (or a denormal), one that overflows float is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

class Communicator;

struct LibsvmOptions {
  // 0: no limit, features() is the largest index seen (+ 1 if zero-based). Otherwise an index
  // above it (at or above it, zero-based) is an error and features() == max_features (at most
  // 2^32 - 1).
  uint64_t max_features = 0;
  // kAuto: zero-based if an index 0 appears anywhere in the text, else one-based (the rule of
  // scikit-learn's load_svmlight_file). kYes: zero-based. kNo: one-based, an index 0 is an error.
  // The Dataset records the decision (zero_based() is kYes or kNo).
  ZeroBased zero_based = ZeroBased::kAuto;
  // What the error for an index 0 under kNo says after "feature index 0: " (why the file is read
  // one-based and what to do); empty: a message about the setting itself.
  std::string zero_based_note = {};
  // Size of the pieces the text is cut into for parallel parsing (cut at line ends); 0 picks one
  // from the text size. The result never depends on it; tests set it small to spread lines over
  // many chunks.
  uint64_t chunk_bytes = 0;
};

// Maps `path` and parses it (see ParseLibsvm). Throws parsgd::Error if the file cannot be read.
Dataset ReadLibsvm(const std::string& path, const LibsvmOptions& options = {});

// Reads LIBSVM text from `path` (gzip-compressed or not; "-": standard input) as it streams,
// parsing pieces on the caller's oneTBB arena while this thread reads (and inflates) on: the same
// Dataset as ParseLibsvm of the whole text, which is never held at once. Throws as ParseLibsvm,
// and DataError for a damaged or cut-off gzip stream.
Dataset ReadLibsvmStream(const std::string& path, const LibsvmOptions& options = {});

// Rank comm.rank()'s share of the LIBSVM file `path`, for a run over several processes: the file's
// bytes cut into comm.size() equal ranges, each moved on to the next line start, a line read by
// the rank whose range holds its first byte; so the shares in rank order are the file's rows in
// order, each once (a share may be empty). Collective: every rank of `comm` calls it. The index
// base (zero-based auto: an index 0 on any rank), the feature count and the first malformed line
// (numbered in the whole file) are the whole file's; an error on one rank (a bad line, a missing
// file) is thrown on every rank with that rank's message. Reads only its share of the text.
Dataset ReadLibsvmShard(const std::string& path, const LibsvmOptions& options, Communicator& comm);

// Parses LIBSVM text; `name` is used as the source and in messages. Parallel over chunks of the
// text with oneTBB, in the caller's task arena; the result is the same at any thread count.
// Throws DataError "name:line:column: what was expected" for malformed input, reporting the first
// bad line of the text; "name: ..." (no line) for an empty text or one without data rows.
// Cost: one pass over the text plus one copy of the parsed entries; peak memory about twice the
// final arrays.
Dataset ParseLibsvm(std::string_view text, const std::string& name,
                    const LibsvmOptions& options = {});

// Writes `data` as LIBSVM text: shortest round-trip numbers (std::to_chars), 1-based indices, one
// "\n"-terminated line per row, no comments. Rows are formatted in parallel (oneTBB pipeline,
// caller's arena) and written in order through AtomicFileWriter: the file appears complete or not
// at all, and the same Dataset always gives the same bytes. ReadLibsvm of the result (one-based)
// gives back `data` exactly, except features(): text has no column count, so pass max_features =
// data.features() when the last columns are empty. Throws parsgd::Error on I/O failure.
void WriteLibsvm(const Dataset& data, const std::string& path);

}  // namespace parsgd
