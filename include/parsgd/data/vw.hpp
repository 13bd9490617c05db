// Vowpal Wabbit's text format (`vw -d`), one example a line:
//
//     [label [importance]] ['tag] |namespace[:scale] feature[:value] ... |namespace2 ...
//
//   - label: a number (binary -1/+1, classes 1..K as VW's --oaa reads them, or any class numbers);
//     importance: a number >= 0 (default 1), kept as the row's weight (Dataset::weights). VW's
//     third number (a base for residual regression) is refused, not ignored.
//   - tag: a token starting with ', or the token written against the first '|' (even a number:
//     "1 0|f x" is label 1 with the tag 0, as VW reads it); read and dropped.
//   - '|' starts a namespace: a name right after it (its first character is its letter in
//     --interactions), with an optional :scale multiplying its features' values; '|' followed by a
//     space is the default namespace (no name; letter ' ').
//   - feature: name[:value] (value default 1, finite; 0 is not stored); the name is any run of
//     bytes but space, tab, ':' and '|'. A value that is a word, no number starting it
//     ("color:red"), makes a feature of name and value: hashed as the value seeded with the
//     name's hash, value 1 (the namespace's scale not applied), as VW reads it.
// Features are hashed (data/hashing.hpp): a namespace's hash is Murmur3(name, 0) (0 for the
// default namespace); a feature's, by VW's own rule (HashedText::kVw), is its number plus the
// namespace's hash when its name is decimal digits (modulo 2^32: "2006" in the default namespace
// is 2006), Murmur3(name, namespace hash) otherwise, or Murmur3 for every name (kVwAll, VW's
// --hash all, which a model or cache may record); into 2^bits columns with the sign from the
// hash's top bit; values as given (rows are not scaled). --interactions "ab,abc" adds, for
// each term, the products of the features of the namespaces whose letters they are: a pair of
// hashes h1, h2 hashes as Fmix32(h1 * 16777619 XOR h2) (a triple folds once more) with the product
// of the values; within one namespace (a term "aa") each unordered pair once, a feature with
// itself included. Blank lines are not rows (VW's multi-line examples are not read). LF or CRLF; a
// byte order mark is skipped. Errors name "name:line:column". All functions here may be called
// from several threads at once (they share no state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsgd/data/dataset.hpp"
#include "parsgd/data/hashing.hpp"

namespace parsgd {

struct VwOptions {
  TextHashing hashing = {.format = HashedText::kVw};
  // Data to predict: a line without a label is a row (label 0); labels given are read.
  bool labels_optional = false;
  // As LibsvmOptions::chunk_bytes (0 picks one from the text size; the result never depends on it).
  uint64_t chunk_bytes = 0;
};

// Maps `path` and parses it (see ParseVw). Throws parsgd::Error if the file cannot be read.
Dataset ReadVw(const std::string& path, const VwOptions& options = {});

// Parses VW text; `name` is the source and is used in messages. Parallel over chunks of whole
// lines (oneTBB, the caller's arena); the result is the same at any thread count and chunk size.
// features() is 2^bits, hashing() the settings, weights() the importances (empty when every one
// is 1). Throws DataError "name:line:column: ..." for the first malformed line, "name: ..." for a
// text without rows, and parsgd::Error for settings out of range.
Dataset ParseVw(std::string_view text, const std::string& name, const VwOptions& options = {});

}  // namespace parsgd
