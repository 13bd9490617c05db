// Internal: one reader per data format (data/load.hpp's kFormats names them), as a row of
// functions: the format is chosen once (given or detected) and LoadDataset, ConvertToCache and
// LoadShard call its row; no other code of the loader branches on the format. A function a format
// lacks is null, and the loader takes the general way: text read whole and parsed where it cannot
// be parsed as it streams, the whole file then its rows where a rank cannot read its share alone,
// the whole data set then its cache where it cannot be converted in pieces.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/source/byte_stream.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/load.hpp"

namespace parsgd::data_internal {

struct FormatReader {
  // Text held whole (an inflated stream, standard input) parsed; null for the formats read from
  // files only (IDX, the binary cache).
  Dataset (*parse)(std::string_view text, const std::string& name, const LoadOptions& options);
  // The rest of a stream (gzip-compressed or standard input; `head` what was read of it first)
  // parsed as it inflates; null: read whole, then `parse`.
  Dataset (*stream)(ByteStream& in, std::string head, const std::string& name,
                    const LoadOptions& options);
  // One file, plain or gzip-compressed.
  Dataset (*file)(const std::string& path, const LoadOptions& options);
  // A rank's share of one plain file read alone (collective); null: the whole file, then its rows.
  Dataset (*share)(const std::string& path, const LoadOptions& options, Communicator& comm);
  // `inputs` (one file, a list, or standard input begun in `begun` with `head`; `input` as the
  // user named it) written to the cache at `output` holding a few pieces at a time; null: the
  // whole data set read, then saved.
  CacheShape (*convert)(const std::vector<std::string>& inputs, const std::string& input,
                        const LoadOptions& options, const std::string& output, ByteStream* begun,
                        std::string head);
};

// The reader of `format` (not kAuto).
const FormatReader& ReaderOf(DataFormat format);

// `data` with max_features features where that is given (0: as it is); throws where it has more.
Dataset ApplyMaxFeatures(const Dataset& data, uint64_t max_features);

// The files of a comma-separated list that is not itself a file's name; empty for one path.
std::vector<std::string> CommaParts(const std::string& path);
// IMAGES,LABELS: a comma pair whose first file is IDX (or missing: the IDX reader says so).
bool IsCommaPair(const std::string& path);

}  // namespace parsgd::data_internal
