// Helpers for the data tests: exact dataset comparison and error-location checks.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "data/cache/cache_format.hpp"  // internal: forges cache headers with valid checksums
#include "parsgd/data/dataset.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::testing {

// A copy of `good` whose header declares `rows`, `features` and `nnz`, with the section offsets
// and file size of that canonical layout (where it exists) and a valid header checksum: only the
// file's real size can tell.
inline std::string WithDeclaredShape(const std::string& good, uint64_t rows, uint64_t features,
                                     uint64_t nnz) {
  cache_internal::Header h;
  std::memcpy(&h, good.data(), sizeof(h));
  h.rows = rows;
  h.features = features;
  h.nnz = nnz;
  if (const auto layout = cache_internal::CanonicalLayout(rows, nnz)) {
    h.offsets_at = layout->offsets.at;
    h.indices_at = layout->indices.at;
    h.values_at = layout->values.at;
    h.labels_at = layout->labels.at;
    h.file_size = layout->file_size;
  }
  h.header_checksum = cache_internal::HeaderChecksum(h);
  std::string bad = good;
  std::memcpy(bad.data(), &h, sizeof(h));
  return bad;
}

template <class T>
bool SameBytes(const SharedArray<T>& a, const SharedArray<T>& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Bit-for-bit equality of everything but the source name.
inline void ExpectSameData(const Dataset& a, const Dataset& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.features(), b.features());
  EXPECT_EQ(a.nnz(), b.nnz());
  EXPECT_TRUE(SameBytes(a.offsets(), b.offsets())) << "offsets differ";
  EXPECT_TRUE(SameBytes(a.indices(), b.indices())) << "indices differ";
  EXPECT_TRUE(SameBytes(a.values(), b.values())) << "values differ";
  EXPECT_TRUE(SameBytes(a.labels(), b.labels())) << "labels differ";
}

// Runs `body`, expects a DataError at file:line:column whose message contains `fragment`.
inline void ExpectDataError(const std::function<void()>& body, const std::string& file,
                            uint64_t line, uint64_t column, const std::string& fragment) {
  try {
    body();
    ADD_FAILURE() << "no DataError; expected " << file << ":" << line << ":" << column << ": ..."
                  << fragment;
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.column(), column) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << fragment;
  }
}

// Runs `body`, expects a parsgd::Error whose message contains each fragment.
inline void ExpectError(const std::function<void()>& body,
                        std::initializer_list<std::string> fragments) {
  try {
    body();
    ADD_FAILURE() << "no parsgd::Error thrown";
  } catch (const Error& e) {
    for (const std::string& fragment : fragments) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << fragment;
    }
  }
}

// The names of the files in `folder`, sorted.
inline std::vector<std::string> FolderNames(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// `text` written gzip-compressed to `path`.
inline void WriteGzipFile(const std::string& text, const std::string& path) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

}  // namespace parsgd::testing
