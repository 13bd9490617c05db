// Internal to the text readers (LIBSVM, CSV): the text is cut at line ends into chunks, the chunks
// are parsed in parallel into local CSR buffers, and the buffers are copied into one Dataset. The
// result never depends on the chunk size or the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/util/control_bytes.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
class Communicator;
}  // namespace parsgd

namespace parsgd::data_internal {

// The first malformed line of a chunk. `line` counts lines from the chunk start (0-based).
struct ChunkError {
  uint64_t line;
  uint64_t column;  // 1-based byte column of the offending token
  std::string message;
};

// What one chunk holds: its rows in local CSR form (row_ends[r] is the local end offset of row r).
struct Chunk {
  std::vector<float> labels;
  std::vector<uint64_t> row_ends;
  std::vector<uint32_t> indices;  // as the reader stores them; Assemble subtracts its offset
  std::vector<float> values;
  std::vector<float> weights;  // VW: each row's importance; other readers: empty
  std::vector<uint8_t> letters;  // VW: 256 flags, the namespaces' first letters its lines name
  uint64_t lines = 0;      // '\n' characters consumed (all of them when there is no error)
  uint64_t max_index = 0;  // largest stored index, if any entry (LIBSVM: the raw index)
  bool has_zero = false;   // LIBSVM: an index 0 was read
  // CSV, once a label is not a number (text_labels): each row's label text, an index into
  // label_texts (the chunk's distinct texts in the order met, at most kMaxLabelTexts), or
  // kNoLabelText for a row whose label is a number (in labels[]).
  std::vector<uint32_t> label_ids;
  std::vector<std::string> label_texts;
  bool text_labels = false;
  // CSV categorical values: per feature column, the chunk's distinct texts in the order met; per
  // categorical entry (in entry order; each at its row's end), where it is and its column, with
  // indices[entry] the text's place in category_texts[column] until the reader makes it a feature.
  struct CategoryEntry {
    uint64_t entry;
    uint32_t column;
  };
  std::vector<CategoryEntry> categories;
  std::vector<std::vector<std::string>> category_texts;
  // CSV: per feature column, whether a number was read where a column may hold either (auto).
  std::vector<uint8_t> numbers_in;
  std::optional<ChunkError> error;
};

// The most distinct label texts a chunk keeps (as many as a model has classes), and the id of a
// row's label that has none (a number).
inline constexpr std::size_t kMaxLabelTexts = std::size_t{1} << 16;
inline constexpr uint32_t kNoLabelText = ~uint32_t{0};

// The first line start at or after `pos`: `pos` itself if it is 0 or follows a '\n', else the byte
// after the next '\n' (text.size() if none). With `file` (the mapping `text` lies in), the pages
// the search touched are given back at once: a kernel may map the whole large page-cache folio
// around a touch (up to 2 MB), so that the searches for the chunk bounds alone would map most of
// a large text before its first chunk is parsed (bench/README.md, "Memory").
std::size_t LineStartFrom(std::string_view text, std::size_t pos, const MappedFile* file);

// The rows a text's chunks hold, against the memory this process may use: once the rows parsed
// exceed `limit` bytes (0: 7/8 of UsableMemoryBytes()), the pieces not yet parsed are not, each
// given the chunk error that says so: a text whose rows cannot fit is refused at the line where
// reading stopped, with the numbers and the way through (the binary cache and the block order),
// before the process runs out. Thread-safe.
class RowsLimit {
 public:
  explicit RowsLimit(uint64_t limit = 0);
  // parse(piece, chunk), or the error when the rows parsed so far exceed the limit.
  void Parse(const std::function<void(std::string_view, Chunk*)>& parse, std::string_view piece,
             Chunk* chunk);
  // Whether the rows parsed so far exceed the limit (a stream then stops being read).
  bool over() const { return bytes_.load(std::memory_order_relaxed) > limit_; }

 private:
  uint64_t usable_, limit_;
  std::atomic<uint64_t> bytes_{0};
};

// Parses `text` in pieces of about `chunk_bytes` (0: chosen from the text size), each a run of
// whole lines, with parse(piece, chunk) in parallel (oneTBB, the caller's arena). `parse` stops at
// a piece's first malformed line and records it in chunk->error. With `file` (the mapping `text`
// lies in), each piece's pages are given back once parsed: the text is not held beside the rows.
// The pieces are parsed under a RowsLimit (`limit`, as its constructor's).
std::vector<Chunk> ParseChunks(std::string_view text, uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               const MappedFile* file = nullptr, uint64_t limit = 0);

class ByteStream;

// The text `in` delivers in pieces of whole lines of about `step` bytes (a line longer than a step
// is one piece), a UTF-8 byte order mark at its start skipped. `head`: the text's start, already
// read from `in`.
class LinePieces {
 public:
  LinePieces(ByteStream& in, std::size_t step, std::string head = {})
      : in_(in), step_(step), carry_(std::move(head)) {}
  // The next piece; nullopt at the end of the text (the pieces hold at least a byte each).
  std::optional<std::string> Next();

 private:
  ByteStream& in_;
  std::size_t step_;
  std::string carry_;  // the start of a line the last read cut
  bool first_ = true, end_ = false;
};

// ParseChunks of the text `in` delivers, as it is read (inflated): this thread reads pieces of whole
// lines of about `chunk_bytes` (0: 2 MiB) and hands each to parse() on the other threads of the
// caller's oneTBB arena while it reads on (reading overlapped with parsing), freeing each piece's
// text once parsed. A UTF-8 byte order mark at the start is skipped. The chunks are those
// ParseChunks gives for the whole text (the result never depends on where pieces are cut).
// Throws the stream's errors (a damaged gzip stream; one cut short, naming `name`), after the
// pieces handed out are parsed.
// `head`: the text's start, already read from `in` (to detect its format).
std::vector<Chunk> ParseStream(ByteStream& in, const std::string& name, uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               std::string head = {});

// A reader's text: whole (a string, or a mapped file's bytes) or a stream being read.
struct TextSource {
  std::string_view text;             // the whole text; with `stream`, what was read of it first
  const MappedFile* file = nullptr;  // the mapping `text` lies in, if any (pages given back)
  ByteStream* stream = nullptr;      // the rest of the text, read as it is parsed
};

// The chunks of `source`'s text: ParseChunks of a whole text, ParseStream of a stream (a byte
// order mark skipped either way). *empty: whether the text held nothing but a byte order mark.
std::vector<Chunk> ParseSource(const TextSource& source, const std::string& name,
                               uint64_t chunk_bytes,
                               const std::function<void(std::string_view, Chunk*)>& parse,
                               bool* empty);

// Throws DataError for the first chunk error in text order; `first_line` is the 1-based line the
// text starts at in its file. Chunks before the bad one parsed completely, so their line counts
// place the error exactly.
void ThrowFirstError(const std::vector<Chunk>& chunks, const std::string& name,
                     uint64_t first_line = 1);

// A rank's share of a text file (text_share.cpp): the mapping, and in it the lines whose first
// byte lies in rank comm.rank()'s byte range (ShardRange), each range moved on to the next line
// start, so that the shares in rank order are the file's lines. A file missing on one host ends
// every rank (AgreeOn). Collective.
struct TextShare {
  std::shared_ptr<const MappedFile> file;
  std::string_view text;
};
TextShare MapTextShare(const std::string& path, Communicator& comm);
// ThrowFirstError over the ranks of `comm`, each holding its share's chunks: the first error in
// the file's order, its line numbered from the whole file's first line (the lines of the ranks
// before), thrown on every rank. Collective.
void ThrowFirstErrorOfRanks(const std::vector<Chunk>& chunks, const std::string& name,
                            Communicator& comm);

// Moves the chunks' rows into one CSR dataset (chunks in parallel), each stored index minus
// `index_offset`, freeing each chunk once copied (the rows are not held twice). Rows' weights
// (Chunk::weights, where the reader gives them) become Dataset::weights unless every one is 1. Throws DataError
// "name: no data rows" if there are none, unless `empty_ok` (a rank's share may be empty).
Dataset Assemble(std::vector<Chunk> chunks, uint64_t features, const std::string& name,
                 uint32_t index_offset, ZeroBased zero_based, bool empty_ok = false);

// Where a column's labels are text (any chunk's text_labels): every label's text (a number's the
// shortest text of its float, as predict writes labels back), sorted in byte order, become the
// class names, and each row's label the index of its text among them. Returns the names (empty
// where every label is a number: the labels stay those numbers). Throws parsgd::Error for a name
// over kMaxClassNameBytes or more names than kMaxLabelTexts.
std::vector<std::string> NameClasses(std::vector<Chunk>& chunks);
// NameClasses over the ranks of `comm`, each holding its share's chunks: the names are the
// union of every rank's, so that each rank numbers the labels as the whole file's read does.
// Collective.
std::vector<std::string> NameClasses(std::vector<Chunk>& chunks, Communicator& comm);
// Throws NameClasses's parsgd::Error for a name over kMaxClassNameBytes or more than
// kMaxLabelTexts names.
void CheckClassNames(const std::vector<std::string>& names);

// Calls parse_line(begin, end) for each line of `text` (whole lines; the last may lack '\n'), end
// excluding the line break (LF or CRLF), and counts the lines in chunk->lines. Stops, without
// counting the line, when parse_line returns false (it has recorded chunk->error).
template <class ParseLine>
void ForEachLine(std::string_view text, Chunk* chunk, ParseLine parse_line) {
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* line_end = newline != nullptr ? newline : end;
    const char* content_end = (line_end > p && line_end[-1] == '\r') ? line_end - 1 : line_end;
    if (!parse_line(p, content_end)) return;
    if (newline == nullptr) break;
    ++chunk->lines;
    p = newline + 1;
  }
}

// [p, e) in single quotes for an error message, cut after 40 bytes ("..."). Printable ASCII and
// the bytes of UTF-8 text as they are; control bytes (a NUL, which would cut the message; the
// gzip magic's 0x1f) as \xNN escapes.
inline std::string QuoteSpan(const char* p, const char* e) {
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(e - p), 40);
  std::string quoted(1, '\'');  // built by appending: GCC 12 warns falsely on "'" + string
  for (std::size_t i = 0; i < n; ++i) AppendVisible(quoted, p[i]);
  quoted.append(p + n < e ? "...'" : "'");
  return quoted;
}

// The common short decimal at p ("-0.1234", "12", "3.5": an optional '-', digits with an
// optional point, no exponent, at most 19 digits whose integer m is at most 2^24 with at most 10
// after the point) into *out, returning its end; nullptr for anything else (ParseFloat then asks
// std::from_chars). Exact: m and 10^k are both floats exactly, so the one rounding of m / 10^k
// is the correctly rounded value std::from_chars gives (Clinger's fast path).
inline const char* ParseShortDecimal(const char* p, const char* end, float* out) {
  static constexpr float kPow10[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                       1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  const char* q = p;
  const bool negative = q < end && *q == '-';
  q += negative;
  uint64_t m = 0;  // wraps past 19 digits, which are refused below
  const char* const first = q;
  while (q < end && static_cast<unsigned>(*q - '0') < 10) m = m * 10 + static_cast<unsigned>(*q++ - '0');
  const char* const point = q;
  long scale = 0;
  if (q < end && *q == '.') {
    ++q;
    const char* const fraction = q;
    while (q < end && static_cast<unsigned>(*q - '0') < 10) m = m * 10 + static_cast<unsigned>(*q++ - '0');
    scale = q - fraction;
  }
  const long digits = (point - first) + scale;
  if (digits == 0 || digits > 19 || scale > 10 || m > (uint64_t{1} << 24)) return nullptr;
  if (q < end && (*q == 'e' || *q == 'E' || *q == '.')) return nullptr;  // the general way
  const float v = static_cast<float>(m) / kPow10[scale];
  *out = negative ? -v : v;
  return q;
}

// Reads a number at p into *out; returns the end of the number, or nullptr if none starts there.
// A leading '+' is allowed (std::from_chars takes none; LIBSVM files often have "+1"). A number
// outside float's range becomes the nearest float: 0 or a denormal when tiny, infinity when huge
// (which the callers refuse as not finite).
inline const char* ParseFloat(const char* p, const char* end, float* out) {
  if (p < end && *p == '+') {
    ++p;
    if (p < end && *p == '-') return nullptr;
  }
  if (const char* q = ParseShortDecimal(p, end, out)) return q;
  auto [ptr, ec] = std::from_chars(p, end, *out);
  if (ec == std::errc()) return ptr;
  if (ec != std::errc::result_out_of_range) return nullptr;
  double wide = 0;
  auto [wide_ptr, wide_ec] = std::from_chars(p, end, wide);
  if (wide_ec != std::errc() || std::fabs(wide) > std::numeric_limits<float>::max()) {
    *out = std::numeric_limits<float>::infinity();
    return wide_ptr == p ? ptr : wide_ptr;
  }
  *out = static_cast<float>(wide);
  return wide_ptr;
}

}  // namespace parsgd::data_internal
