// WriteLibsvm: rows formatted in parallel blocks, written in order.
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <charconv>
#include <string>
#include <vector>

#include "parsgd/data/libsvm.hpp"
#include "parsgd/util/atomic_file.hpp"

namespace parsgd {
namespace {

// A block is about this many entries (or rows): ~1 MB of text, big enough to amortise a pipeline
// token, small enough that a few blocks per thread stay in memory.
constexpr uint64_t kBlockEntries = uint64_t{1} << 16;
constexpr uint64_t kBlockRows = uint64_t{1} << 14;
// Upper bounds on the text of one entry (" 4294967295:-1.17549435e-38") and one label + newline.
constexpr std::size_t kMaxEntryChars = 32;
constexpr std::size_t kMaxLabelChars = 32;

// Row boundaries of the blocks: 0, ..., rows.
std::vector<uint64_t> BlockBounds(const Dataset& data) {
  const SharedArray<uint64_t>& offsets = data.offsets();
  std::vector<uint64_t> bounds{0};
  uint64_t row = 0;
  while (row < data.rows()) {
    uint64_t next = row + 1;
    while (next < data.rows() && next - row < kBlockRows &&
           offsets[next] - offsets[row] < kBlockEntries) {
      ++next;
    }
    bounds.push_back(next);
    row = next;
  }
  return bounds;
}

std::string FormatRows(const Dataset& data, uint64_t begin, uint64_t end) {
  const uint64_t entries = data.offsets()[end] - data.offsets()[begin];
  std::string text(entries * kMaxEntryChars + (end - begin) * kMaxLabelChars, '\0');
  char* p = text.data();
  char* const limit = p + text.size();
  for (uint64_t i = begin; i < end; ++i) {
    p = std::to_chars(p, limit, data.label(i)).ptr;  // shortest text that reads back exactly
    const SparseRow row = data.row(i);
    for (uint32_t k = 0; k < row.nnz; ++k) {
      *p++ = ' ';
      p = std::to_chars(p, limit, uint64_t{row.index[k]} + 1).ptr;
      *p++ = ':';
      p = std::to_chars(p, limit, row.value[k]).ptr;
    }
    *p++ = '\n';
  }
  text.resize(static_cast<std::size_t>(p - text.data()));
  return text;
}

}  // namespace

void WriteLibsvm(const Dataset& data, const std::string& path) {
  AtomicFileWriter out(path);
  const std::vector<uint64_t> bounds = BlockBounds(data);
  const std::size_t blocks = bounds.size() - 1;
  std::size_t next = 0;
  const std::size_t tokens = 2 * static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order,
                                          [&](tbb::flow_control& control) -> std::size_t {
                                            if (next == blocks) control.stop();
                                            return next++;
                                          }) &
          tbb::make_filter<std::size_t, std::string>(
              tbb::filter_mode::parallel,
              [&](std::size_t b) { return FormatRows(data, bounds[b], bounds[b + 1]); }) &
          tbb::make_filter<std::string, void>(tbb::filter_mode::serial_in_order,
                                              [&](const std::string& text) { out.Write(text); }));
  out.Commit();
}

}  // namespace parsgd
