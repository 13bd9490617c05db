#include "parsgd/model/mlp/mlp_engine.hpp"

#include "engines.hpp"

namespace parsgd {

std::unique_ptr<MlpEngine> MakeMlpEngine(MlpBackend backend, const std::vector<int>& sizes,
                                         int max_batch, int threads) {
  if (backend == MlpBackend::kReference) return MakeReferenceEngine(sizes, max_batch);
  return MakeOneDnnEngine(sizes, max_batch, threads);
}

}  // namespace parsgd
