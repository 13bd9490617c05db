#include "parsgd/data/dataset.hpp"

#include <string>

#include "parsgd/util/error.hpp"

namespace parsgd {

Dataset::Dataset(Parts parts) : parts_(std::move(parts)) {
  const auto& p = parts_;
  auto fail = [&](const std::string& what) { throw Error(p.source + ": " + what); };
  if (p.offsets.size() != p.labels.size() + 1) fail("row offsets do not match the row count");
  if (p.indices.size() != p.values.size()) fail("index and value arrays differ in length");
  if (p.offsets[0] != 0 || p.offsets[p.labels.size()] != p.indices.size()) {
    fail("row offsets do not span the entries");
  }
  if (p.features > (uint64_t{1} << 32)) fail("more than 2^32 features");
}

}  // namespace parsgd
