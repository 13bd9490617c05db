// The plugins (util/plugin.hpp): found beside the program or in the build's directory, their
// exports looked up by name; a missing plugin or export is an error naming it.
#include "util/plugin.hpp"

#include <gtest/gtest.h>

#include "data_test_util.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;

TEST(Plugin, TheOneDnnPluginIsFoundAndAMissingOneOrExportIsNamed) {
  EXPECT_NE(PluginSymbol("libparsgd_onednn.so", "parsgd_onednn_gemm", "a test"), nullptr);
  ExpectError([] { PluginSymbol("libparsgd_onednn.so", "parsgd_no_such_export", "a test"); },
              {"libparsgd_onednn.so has no parsgd_no_such_export"});
  ExpectError([] { PluginSymbol("libparsgd_none.so", "anything", "the test's engine"); },
              {"the test's engine needs libparsgd_none.so, part of parsgd, which is in none of",
               "build parsgd again"});
}

}  // namespace
}  // namespace parsgd
