// The parsgd binary cache: a Dataset laid out on disk so that reading it is one mmap plus one
// verification pass, with the arrays used in place (zero copy).
//
// Format version 2. All integers and floats little-endian (IEEE 754 binary32 floats); the code
// refuses to build on a big-endian host. Byte offsets are from the start of the file.
//
//   offset size  field
//        0    8  magic: 89 50 53 47 44 0D 0A 1A  ("\x89PSGD\r\n\x1A": binary, catches text-mode
//                transfers, never the start of a LIBSVM or IDX file)
//        8    4  version (uint32) = 2
//       12    4  header size (uint32) = 128
//       16    8  rows
//       24    8  features (<= 2^32)
//       32    8  nnz
//       40    8  byte offset of the row offsets section: (rows + 1) x uint64
//       48    8  byte offset of the indices section: nnz x uint32, 0-based
//       56    8  byte offset of the values section: nnz x float32
//       64    8  byte offset of the labels section: rows x float32
//       72    8  file size
//       80    8  payload checksum
//       88    8  how the LIBSVM text the data came from was read: 0 not from LIBSVM text,
//                1 zero-based, 2 one-based (so that files read later with a model trained on
//                the cache use the same numbering; the indices themselves are always 0-based)
//       96    8  flags: 1 a weights section (rows x float32, each finite and >= 0) follows the
//                labels; 2 the labels are class indices (integers 0 .. classes - 1) of the
//                record's class names; no other bit set
//      104    8  the record's length R in bytes (0: no record; at most 2^30)
//      112    8  the label set: the number of distinct labels (classes), where at most 65,536
//                (the most classes a model may have; -0 and 0 one label); 0 where more
//      120    8  header checksum: XXH64 (seed 0) of bytes [0, 120)
//
// The record (what the text the rows came from says beyond them): 4 bytes N (uint32), the class
// names' count (0, or `classes` with flag 2); N names, each 4 bytes of length (at most 4096) and
// its bytes, strictly ascending in byte order; then how words were hashed into features, as model
// files record it (4 bytes H: 0 not hashed; 1 fastText's text, and 4 uint32: bits, word n-grams,
// character n-grams' min and max; 2 VW's, and 4 bytes of bits, 4 bytes of length I (at most 4096)
// and I bytes of interactions); then how a CSV table was read, as model files record it (4 bytes
// K: 0 not CSV text; 1 or 2 (the record's version) its schema follows: 4 bytes of flags, bit 0
// the columns are named; the
// label column's header name; 4 bytes of the categorical values' hash bits; 8 bytes of column
// count and per column its name, 4 bytes categorical 0 or 1 and, one-hot, 8 bytes of value count
// and the values, strictly ascending; the weight column as given; 4 bytes missing values, 0 an
// error, 1 zero; version 2: 8 bytes of the count of columns left out and per column its name and
// 8 bytes of its field; then the label column as given), every text 4 bytes of length (at most 4096) and
// its bytes. A record that ends after the hashing has no CSV reading. The schema's features
// (data/csv_schema.hpp) are at most the header's.
//
// The sections follow the header in the order offsets, indices, values, labels, weights (when
// flagged), record (when R > 0), each starting at the first multiple of 64 after the previous one
// ends (the first at 128); the file ends at the first multiple of 64 after the last. Gaps are zero
// bytes. Section offsets are stored for readers in other languages but must equal this canonical
// layout. The payload, bytes [128, file size), is cut into blocks of 256 KiB (the last one
// shorter); the payload checksum is XXH64 (seed 0) of the sequence of the blocks' XXH64 (seed 0)
// values, each written as 8 little-endian bytes. XXH64 is the xxHash specification's 64-bit hash
// (Collet, xxhash_spec.md, v0.8). The checksum is independent of the thread count, and the same
// Dataset always gives the same bytes.
//
// Version 1 files (before weights, the record and the label set: bytes 96-119 zero) still read:
// their rows, with no weights, class names or hashing, and the label set not recorded.
//
// All functions here may be called from several threads at once (they share no state); a Dataset
// read from a cache is immutable and may be read from any number of threads.
#pragma once

#include <string>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/data/libsvm.hpp"

namespace parsgd {

class Communicator;

// Writes `data` through AtomicFileWriter (complete file or none): its rows, weights, class names,
// hashing, CSV schema and reading, and label set. Writes what it is given: the per-entry invariants
// are the producer's job and ReadBinaryCache checks them. Two passes over the arrays (checksum in
// parallel with oneTBB, then the write). Throws parsgd::Error on I/O failure.
void WriteBinaryCache(const Dataset& data, const std::string& path);

// Maps `path` and returns a Dataset whose arrays (weights included) point into the mapping (kept
// alive by them; source() is `path`), with the record's class names, hashing and CSV reading.
// Refuses, with a DataError "path: ..." (no line), a file that is:
//   - foreign: too short for the magic or a different magic ("not a parsgd binary cache");
//   - another version than 1 or 2 ("unsupported binary cache version");
//   - truncated ("truncated"), or longer than its header says; rows and nnz fix the file size, so
//     a header declaring more than the file holds is refused before anything is allocated;
//   - damaged: a header or payload checksum mismatch ("corrupted");
//   - structurally invalid though its checksums match ("invalid"): a layout other than the
//     canonical one, features > 2^32, an index base other than 0, 1, 2, unknown flags, more than
//     65,536 classes, row offsets not starting at 0, decreasing or not ending at nnz, an index >=
//     features or indices not strictly ascending within a row, a non-finite value or label, a
//     label that is not one of the named classes, a weight not finite or negative, a record that
//     does not parse to its end (names out of order or not `classes` of them, an unknown hashing, a
//     CSV schema of more features than the header's).
// Checks: the row offsets first (8 bytes per row), then one parallel pass (oneTBB, caller's arena)
// over the payload that computes the checksum and checks every entry and label; the first problem
// in file order is reported, the same at any thread count. Cost: reading the file once.
Dataset ReadBinaryCache(const std::string& path);

// Rank comm.rank()'s share of the cache's rows (ShardRange of them), for a run over several
// processes: views into the mapping, as ReadBinaryCache's. Collective: each rank verifies a share
// of the payload's blocks and the checksum is of them all; the same refusals as ReadBinaryCache,
// on every rank (a problem found by one rank is thrown by all, with its message).
Dataset ReadBinaryCacheShard(const std::string& path, Communicator& comm);

// True if the file at `path` starts with the binary cache magic (reads 8 bytes; false if the file
// cannot be read).
bool HasBinaryCacheMagic(const std::string& path);

// What a binary cache's header says, read without the rest of the file (to plan memory before
// reading): rows, stored entries and features.
struct CacheShape {
  uint64_t rows = 0;
  uint64_t nnz = 0;
  uint64_t features = 0;
  // The label set's size: distinct labels where at most 65,536 (the most classes a model may
  // have), 0 where more (real-valued targets) or not recorded (a version 1 cache).
  uint64_t classes = 0;
  // The bytes its rows take in memory (data/dataset.hpp).
  uint64_t bytes() const { return RowsBytes(rows, nnz); }
};
// Throws DataError as ReadBinaryCache does for a header it refuses (foreign, truncated, damaged).
CacheShape ReadBinaryCacheShape(const std::string& path);

}  // namespace parsgd
