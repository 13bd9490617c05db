// fastText's text format (`fasttext supervised -input`): one example a line,
//
//     __label__NAME word word word ...
//
// tokens separated by spaces or tabs; a token that starts with "__label__" is the line's class (the
// whole token is the class name, so predict writes "__label__NAME" back, as fastText does), any
// other token a word. A line has one label, anywhere on it (fastText's -loss ova reads several; a
// second label is an error that says so). The words become hashed features (data/hashing.hpp: the
// words, their n-grams and optionally character n-grams, into 2^bits columns, each row of unit
// norm); the class names are the labels met, sorted in byte order. Blank lines are not rows; LF or
// CRLF line ends; a UTF-8 byte order mark at the start is skipped. Errors name the place as
// "name:line:column" (1-based; the column is the byte where the token starts). All functions here
// may be called from several threads at once (they share no state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsgd/data/dataset.hpp"
#include "parsgd/data/hashing.hpp"

namespace parsgd {

// The token prefix of a label.
inline constexpr std::string_view kFasttextLabelPrefix = "__label__";

struct FasttextOptions {
  TextHashing hashing = {};
  // Data to predict: labels are not needed, a line without one is a row, and every row's label is
  // 0 (the labels given are skipped, no class names).
  bool labels_optional = false;
  // As LibsvmOptions::chunk_bytes (0 picks one from the text size; the result never depends on it).
  uint64_t chunk_bytes = 0;
};

// Maps `path` and parses it (see ParseFasttext). Throws parsgd::Error if the file cannot be read.
Dataset ReadFasttext(const std::string& path, const FasttextOptions& options = {});

// Parses fastText text; `name` is the source and is used in messages. Parallel over chunks of whole
// lines (oneTBB, the caller's arena); the result is the same at any thread count and chunk size.
// features() is 2^bits, Dataset::hashing() the settings, class_names() the labels (unless
// labels_optional). Throws DataError "name:line:column: ..." for the first malformed line (a line
// without a label, a line with two), "name: ..." for a text without rows, and parsgd::Error for
// settings out of range. Cost: one pass over the text, hashing every token and n-gram.
Dataset ParseFasttext(std::string_view text, const std::string& name,
                      const FasttextOptions& options = {});

}  // namespace parsgd
