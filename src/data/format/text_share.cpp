// A rank's share of a text file (LIBSVM, fastText, VW): the lines whose first byte lies in the
// rank's byte range, and the first error over the ranks; the hashed formats' share read whole.
#include <fmt/format.h>

#include <memory>
#include <string_view>
#include <vector>

#include "data/format/stream_readers.hpp"
#include "data/format/text_chunks.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd::data_internal {

TextShare MapTextShare(const std::string& path, Communicator& comm) {
  TextShare share;
  comm.AgreeOn([&] { share.file = MappedFile::Open(path); });
  const std::string_view text(share.file->chars(), share.file->size());
  const auto [from, to] = ShardRange(text.size(), comm.rank(), comm.size());
  const std::size_t begin = LineStartFrom(text, from, share.file.get());
  const std::size_t end = LineStartFrom(text, to, share.file.get());
  share.text = text.substr(begin, end - begin);
  return share;
}

void ThrowFirstErrorOfRanks(const std::vector<Chunk>& chunks, const std::string& name,
                            Communicator& comm) {
  if (comm.size() == 1) return ThrowFirstError(chunks, name);
  uint64_t mine = 0;
  for (const Chunk& chunk : chunks) mine += chunk.lines;
  const std::vector<uint64_t> all = comm.Gather(mine);
  uint64_t before = 0;
  for (int r = 0; r < comm.rank(); ++r) before += all[r];
  comm.AgreeOn([&] { ThrowFirstError(chunks, name, before + 1); });
}

Dataset ReadLinesShard(const std::string& path, const LineParser& lines, uint64_t chunk_bytes,
                       Communicator& comm) {
  const TextShare mapped = MapTextShare(path, comm);
  std::string_view share = mapped.text;
  // A UTF-8 byte order mark: only the first share can start with one (the others start at a line).
  if (share.starts_with("\xEF\xBB\xBF")) share.remove_prefix(3);
  if (comm.Sum(share.size()) == 0) {
    throw DataError(path, 0, 0, fmt::format("empty file: expected {}", lines.expected));
  }
  std::vector<Chunk> chunks = ParseChunks(share, chunk_bytes, lines.parse, mapped.file.get());
  ThrowFirstErrorOfRanks(chunks, path, comm);
  std::vector<std::string> classes;
  if (lines.class_names) {
    try {  // the names are every rank's: each throws the same or none does
      classes = NameClasses(chunks, comm);
    } catch (const Error& e) {
      throw DataError(path, 0, 0, e.what());
    }
  }
  uint64_t rows = 0;
  for (const Chunk& chunk : chunks) rows += chunk.labels.size();
  if (comm.Sum(rows) == 0) {
    throw DataError(path, 0, 0, "no data rows: every line is blank or a comment");
  }
  Dataset data = Assemble(std::move(chunks), lines.features, path, 0, ZeroBased::kAuto,
                          /*empty_ok=*/true);
  Dataset::Parts parts = data.parts();
  parts.class_names = std::move(classes);
  parts.hashing = lines.hashing;
  return Dataset(std::move(parts));
}

}  // namespace parsgd::data_internal
