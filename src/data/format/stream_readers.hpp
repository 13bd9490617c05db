// Internal to the data layer: the text readers over a stream already begun (a gzip-compressed file,
// standard input), parsing as it is read (data_internal::ParseStream), and the streaming convert.
// `head` is what was read of the stream first (to tell its format; may be empty); `name` names it
// in messages. Each gives the Dataset its reader gives for the whole text, and throws as that
// reader does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/vw.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd::data_internal {

// How a hashed text format's lines become rows, for its reader and the streaming convert: the
// piece parser (whole lines into a chunk, stopping at the first malformed line), the hashing the
// rows went through (checked) and the feature count it gives, and what a line holds (for an empty
// file's message).
struct LineParser {
  std::function<void(std::string_view, Chunk*)> parse;
  TextHashing hashing;
  uint64_t features = 0;
  std::string expected;
  bool class_names = false;  // the labels are names (fastText's), else numbers
};
LineParser FasttextLines(const FasttextOptions& options);
LineParser VwLines(const VwOptions& options);

// Rank comm.rank()'s share of the hashed text at `path`, read by `lines` in pieces of
// `chunk_bytes` (0: chosen from the size): the lines whose first byte lies in the rank's byte
// range (ShardRange), the shares in rank order being the file's rows. The first error (with the
// whole file's line number), the class names and an empty file's refusal are the whole file's, on
// every rank. Collective.
Dataset ReadLinesShard(const std::string& path, const LineParser& lines, uint64_t chunk_bytes,
                       Communicator& comm);

// The text a streaming convert reads: LIBSVM's (with `libsvm`'s options) or a hashed format's
// (`lines`; `max_features`: the feature count given, 0 none), in pieces of `chunk_bytes` (0: 2
// MiB).
struct CachedText {
  std::optional<LibsvmOptions> libsvm;
  LineParser lines;
  uint64_t max_features = 0;
  std::size_t chunk_bytes = 0;
};
// The files `inputs` (kStdin: standard input) written to `path` as one binary cache, in one pass
// holding a few pieces of text at a time whatever its size (binary_cache_stream.cpp). The cache is
// the bytes WriteBinaryCache writes for the in-memory reader's Dataset of the same text (a list:
// LoadDataset's of the list). `begun`, with `head` what was read of it: the first input's stream,
// already opened to tell its format. Throws as the reader does, an error naming its file and
// line, and leaves nothing at `path` (nor any temporary file).
CacheShape StreamToCache(const std::vector<std::string>& inputs, const CachedText& text,
                         const std::string& path, ByteStream* begun = nullptr,
                         std::string head = {});

// The CSV files `inputs` (kStdin: standard input) written to `path` as one binary cache, each
// file read in two or three passes holding a few pieces of text at a time (csv_stream.cpp;
// standard input copied to a temporary file first); the bytes WriteBinaryCache writes for
// LoadDataset's Dataset of the same files, read with `options` and `max_features` (0: none).
// `begun`, with `head`: standard input's stream, already opened to tell its format. Throws as the
// reader does, and leaves nothing at `path` (nor any temporary file).
CacheShape StreamCsvToCache(const std::vector<std::string>& inputs, const CsvOptions& options,
                            uint64_t max_features, std::size_t chunk_bytes,
                            const std::string& path, ByteStream* begun = nullptr,
                            const std::string& head = {});

// The IDX images at `images_path` and their labels (none: every label 0) written to `path` as a
// binary cache, a few MiB of pixels at a time (idx.cpp): the bytes WriteBinaryCache writes for
// ReadIdx's Dataset (of `max_features` features where given, 0: none). Throws as ReadIdx does,
// and leaves nothing at `path`.
CacheShape StreamIdxToCache(const std::string& images_path, const std::string& labels_path,
                            uint64_t max_features, const std::string& path);

// The feature count of `name`'s data of `features` features with `max_features` given (0: none):
// the larger. Throws parsgd::Error where the data has more than given.
uint64_t FeaturesGiven(const std::string& name, uint64_t features, uint64_t max_features);

Dataset ReadLibsvmFrom(ByteStream& in, std::string head, const std::string& name,
                       const LibsvmOptions& options);
Dataset ReadFasttextFrom(ByteStream& in, std::string head, const std::string& name,
                         const FasttextOptions& options);
Dataset ReadVwFrom(ByteStream& in, std::string head, const std::string& name,
                   const VwOptions& options);

}  // namespace parsgd::data_internal
