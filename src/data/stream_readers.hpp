// Internal to the data layer: the text readers over a stream already begun (a gzip-compressed file,
// standard input), parsing as it is read (data_internal::ParseStream). `head` is what was read of
// the stream first (to tell its format; may be empty); `name` names it in messages. Each gives
// the Dataset its reader gives for the whole text, and throws as that reader does.
#pragma once

#include <string>

#include "byte_stream.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/data/fasttext.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/data/vw.hpp"

namespace parsgd::data_internal {

Dataset ReadLibsvmFrom(ByteStream& in, std::string head, const std::string& name,
                       const LibsvmOptions& options);
Dataset ReadFasttextFrom(ByteStream& in, std::string head, const std::string& name,
                         const FasttextOptions& options);
Dataset ReadVwFrom(ByteStream& in, std::string head, const std::string& name,
                   const VwOptions& options);

}  // namespace parsgd::data_internal
