// Helpers for the data tests: exact dataset comparison and error-location checks.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "parsgd/data/dataset.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::testing {

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

}  // namespace parsgd::testing
