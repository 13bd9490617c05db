// The library's side of the oneDNN plugin (util/plugin.hpp): the engine and sgemm of
// model/mlp/onednn_engine.cpp, loaded on first use.
#include <vector>

#include "engines.hpp"
#include "gemm.hpp"
#include "util/plugin.hpp"

namespace parsgd {
namespace {

constexpr const char* kLibrary = "libparsgd_onednn.so";
constexpr const char* kWhat = "the MLP's oneDNN engine (--model mlp)";

}  // namespace

std::unique_ptr<MlpEngine> MakeOneDnnEngine(const std::vector<int>& sizes, int max_batch,
                                            int threads) {
  using Make = MlpEngine* (*)(const std::vector<int>&, int, int);
  static const auto make = reinterpret_cast<Make>(PluginSymbol(kLibrary, "parsgd_onednn_engine", kWhat));
  return std::unique_ptr<MlpEngine>(make(sizes, max_batch, threads));
}

GemmFn OneDnnGemm() {
  using Get = GemmFn (*)();
  static const GemmFn gemm =
      reinterpret_cast<Get>(PluginSymbol(kLibrary, "parsgd_onednn_gemm", kWhat))();
  return gemm;
}

}  // namespace parsgd
