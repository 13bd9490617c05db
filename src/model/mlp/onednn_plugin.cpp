// The library's side of the oneDNN plugin (util/plugin.hpp): the engine and sgemm of
// model/mlp/onednn_engine.cpp, loaded on first use.
#include <vector>

#include "engines.hpp"
#include "gemm.hpp"
#include "util/plugin.hpp"

#if PARSGD_ONEDNN_LINKED
// The sanitizer builds link the engine in (src/CMakeLists.txt).
extern "C" parsgd::MlpEngine* parsgd_onednn_engine(const std::vector<int>& sizes, int max_batch,
                                                   int threads);
extern "C" parsgd::GemmFn parsgd_onednn_gemm();
#endif

namespace parsgd {
namespace {

constexpr const char* kLibrary = "libparsgd_onednn.so";
constexpr const char* kWhat = "the MLP's oneDNN engine (--model mlp)";

void* Export(const char* name, void* linked) {
  return linked != nullptr ? linked : PluginSymbol(kLibrary, name, kWhat);
}

#if PARSGD_ONEDNN_LINKED
void* const kLinkedEngine = reinterpret_cast<void*>(&parsgd_onednn_engine);
void* const kLinkedGemm = reinterpret_cast<void*>(&parsgd_onednn_gemm);
#else
void* const kLinkedEngine = nullptr;
void* const kLinkedGemm = nullptr;
#endif

}  // namespace

std::unique_ptr<MlpEngine> MakeOneDnnEngine(const std::vector<int>& sizes, int max_batch,
                                            int threads) {
  using Make = MlpEngine* (*)(const std::vector<int>&, int, int);
  static const auto make = reinterpret_cast<Make>(Export("parsgd_onednn_engine", kLinkedEngine));
  return std::unique_ptr<MlpEngine>(make(sizes, max_batch, threads));
}

GemmFn OneDnnGemm() {
  using Get = GemmFn (*)();
  static const GemmFn gemm =
      reinterpret_cast<Get>(Export("parsgd_onednn_gemm", kLinkedGemm))();
  return gemm;
}

}  // namespace parsgd
