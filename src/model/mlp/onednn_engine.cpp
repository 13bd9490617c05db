// The MLP engine on oneDNN 2.6 (Debian 12's libdnnl; its v3 API differs). Every oneDNN include of
// the project is in this file, built into the plugin libparsgd_onednn.so (util/plugin.hpp), which
// the library loads on the first oneDNN engine or sgemm it makes.
//
// Per layer l (n rows, n_l inputs, n_{l+1} outputs), three matmul primitives, built once per batch
// size and kept:
//   forward       Z = A W + b, with a ReLU post-op on the hidden layers;
//   weights grad  dW = A^T dZ, A^T read through a transposed ("ba") view of the activations;
//   input grad    dA = dZ W^T, W^T read through a transposed view of the weights (not for l = 0).
// The bias gradient (column sums of dZ), the ReLU backward (dZ = dA * (A > 0)) and the softmax
// output are plain loops: for the bias, oneDNN 2.6's reduction primitive dispatches to its
// reference implementation (ref:any) at {64, 256} -> {1, 256} and took 151 us, 23% of a backward
// pass, against 1.2 us for the column-sum loop (measured when this engine was written, 1 thread,
// batch 64, on the AMD EPYC machine of bench/README.md; that table does not keep it).
#include <omp.h>

#include <dnnl.hpp>
#include <map>
#include <vector>

#include "engines.hpp"
#include "gemm.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"

namespace parsgd {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// oneDNN runs on the calling thread when given one thread; with more, its OpenMP team takes the
// caller's subnormal mode (util/float_env.hpp) before each call: the team's threads belong to
// libgomp and keep whatever mode they had.
void ShareFloatMode(int threads) {
  if (threads <= 1) return;
  const bool flush = FlushesDenormals();
#pragma omp parallel num_threads(threads)
  SetFlushDenormals(flush);
}

memory::desc Matrix(int64_t rows, int64_t cols, tag layout = tag::ab) {
  return memory::desc({rows, cols}, dt::f32, layout);
}

// The primitives and memory objects of one layer at one batch size; memory handles are bound to
// the caller's buffers at each call.
struct LayerPlan {
  dnnl::matmul forward, weights_grad, input_grad;
  memory in, weights, bias, out;          // forward
  memory in_t, out_grad, weights_grad_m;  // dW = A^T dZ
  memory weights_t, in_grad;              // dA = dZ W^T
};

class OneDnnEngine final : public MlpEngine {
 public:
  OneDnnEngine(const std::vector<int>& sizes, int max_batch, int threads)
      : layers_(LayoutMlp(sizes)),
        threads_(threads),
        engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_) {
    int widest = 0;
    for (int s : sizes) widest = std::max(widest, s);
    activations_.emplace_back();  // activations_[0] is the caller's x
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      activations_.emplace_back(static_cast<std::size_t>(max_batch) * sizes[l]);
    }
    for (auto& buffer : grad_buffers_)
      buffer = AlignedArray<float>(static_cast<std::size_t>(max_batch) * widest);
  }

  double LossAndGradient(const float* params, const float* x, const int* labels,
                         const float* weights, int n, float* grad) override {
    omp_set_num_threads(threads_);
    ShareFloatMode(threads_);
    std::vector<LayerPlan>& plan = PlanFor(n);
    Forward(plan, params, x);
    const int classes = layers_.back().outputs;
    float* dz = grad_buffers_[0].data();
    const double loss =
        SoftmaxOutputGradient(activations_.back().data(), labels, weights, n, classes, dz);
    for (int l = static_cast<int>(layers_.size()) - 1; l >= 0; --l) {
      const MlpLayer& layer = layers_[l];
      LayerPlan& p = plan[l];
      p.in_t.set_data_handle(const_cast<float*>(l == 0 ? x : activations_[l].data()));
      p.out_grad.set_data_handle(dz);
      p.weights_grad_m.set_data_handle(grad + layer.weights_at);
      p.weights_grad.execute(stream_, {{DNNL_ARG_SRC, p.in_t},
                                       {DNNL_ARG_WEIGHTS, p.out_grad},
                                       {DNNL_ARG_DST, p.weights_grad_m}});
      float* db = grad + layer.bias_at;
      for (int b = 0; b < layer.outputs; ++b) db[b] = 0.f;
      for (int i = 0; i < n; ++i) {
        const float* row = dz + static_cast<std::size_t>(i) * layer.outputs;
        for (int b = 0; b < layer.outputs; ++b) db[b] += row[b];
      }
      if (l > 0) {
        float* da = grad_buffers_[1].data();
        p.weights_t.set_data_handle(const_cast<float*>(params + layer.weights_at));
        p.in_grad.set_data_handle(da);
        p.input_grad.execute(stream_, {{DNNL_ARG_SRC, p.out_grad},
                                       {DNNL_ARG_WEIGHTS, p.weights_t},
                                       {DNNL_ARG_DST, p.in_grad}});
        stream_.wait();
        // Through the ReLU of layer l - 1: its output activations_[l] is positive where it passed.
        const float* a = activations_[l].data();
        const std::size_t count = static_cast<std::size_t>(n) * layer.inputs;
        for (std::size_t i = 0; i < count; ++i) da[i] = a[i] > 0.f ? da[i] : 0.f;
        std::swap(grad_buffers_[0], grad_buffers_[1]);
        dz = grad_buffers_[0].data();
      }
    }
    stream_.wait();
    return loss;
  }

  void Scores(const float* params, const float* x, int n, float* scores) override {
    omp_set_num_threads(threads_);
    ShareFloatMode(threads_);
    Forward(PlanFor(n), params, x);
    const std::size_t count = static_cast<std::size_t>(n) * layers_.back().outputs;
    std::copy_n(activations_.back().data(), count, scores);
  }

 private:
  void Forward(std::vector<LayerPlan>& plan, const float* params, const float* x) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const MlpLayer& layer = layers_[l];
      LayerPlan& p = plan[l];
      p.in.set_data_handle(const_cast<float*>(l == 0 ? x : activations_[l].data()));
      p.weights.set_data_handle(const_cast<float*>(params + layer.weights_at));
      p.bias.set_data_handle(const_cast<float*>(params + layer.bias_at));
      p.out.set_data_handle(activations_[l + 1].data());
      p.forward.execute(stream_, {{DNNL_ARG_SRC, p.in},
                                  {DNNL_ARG_WEIGHTS, p.weights},
                                  {DNNL_ARG_BIAS, p.bias},
                                  {DNNL_ARG_DST, p.out}});
    }
    stream_.wait();
  }

  std::vector<LayerPlan>& PlanFor(int n) {
    auto found = plans_.find(n);
    if (found != plans_.end()) return found->second;
    std::vector<LayerPlan> plan;
    for (std::size_t l = 0; l < layers_.size(); ++l) plan.push_back(MakeLayerPlan(l, n));
    return plans_.emplace(n, std::move(plan)).first->second;
  }

  LayerPlan MakeLayerPlan(std::size_t l, int64_t n) {
    const MlpLayer& layer = layers_[l];
    const int64_t in = layer.inputs, out = layer.outputs;
    const auto in_md = Matrix(n, in), w_md = Matrix(in, out), b_md = Matrix(1, out);
    const auto out_md = Matrix(n, out);
    const auto in_t_md = Matrix(in, n, tag::ba);   // A^T over A's buffer
    const auto w_t_md = Matrix(out, in, tag::ba);  // W^T over W's buffer
    dnnl::primitive_attr forward_attr;
    if (l + 1 < layers_.size()) {
      dnnl::post_ops relu;
      relu.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      forward_attr.set_post_ops(relu);
    }
    LayerPlan p;
    p.forward = dnnl::matmul(dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(in_md, w_md, b_md, out_md), forward_attr, engine_));
    p.weights_grad = dnnl::matmul(
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(in_t_md, out_md, w_md), engine_));
    if (l > 0) {
      p.input_grad = dnnl::matmul(
          dnnl::matmul::primitive_desc(dnnl::matmul::desc(out_md, w_t_md, in_md), engine_));
    }
    p.in = memory(in_md, engine_, DNNL_MEMORY_NONE);
    p.weights = memory(w_md, engine_, DNNL_MEMORY_NONE);
    p.bias = memory(b_md, engine_, DNNL_MEMORY_NONE);
    p.out = memory(out_md, engine_, DNNL_MEMORY_NONE);
    p.in_t = memory(in_t_md, engine_, DNNL_MEMORY_NONE);
    p.out_grad = memory(out_md, engine_, DNNL_MEMORY_NONE);
    p.weights_grad_m = memory(w_md, engine_, DNNL_MEMORY_NONE);
    p.weights_t = memory(w_t_md, engine_, DNNL_MEMORY_NONE);
    p.in_grad = memory(in_md, engine_, DNNL_MEMORY_NONE);
    return p;
  }

  std::vector<MlpLayer> layers_;
  int threads_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::map<int, std::vector<LayerPlan>> plans_;   // per batch size: full batches and a last one
  std::vector<AlignedArray<float>> activations_;  // [l]: layer l's input, l >= 1
  AlignedArray<float> grad_buffers_[2];           // dZ of the current layer, dA of the one below
};

// oneDNN's sgemm as a GemmFn (model/mlp/gemm.hpp).
void DnnlSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  omp_set_num_threads(1);  // on the calling thread: the partitions' workers are its threads
  const dnnl::status status = dnnl::sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.f, a,
                                          lda, b, ldb, beta, c, ldc);
  if (status != dnnl::status::success) throw Error("oneDNN sgemm failed");
}

}  // namespace
}  // namespace parsgd

// The plugin's exports (util/plugin.hpp; model/mlp/onednn_plugin.cpp calls them).
extern "C" __attribute__((visibility("default"))) parsgd::MlpEngine* parsgd_onednn_engine(
    const std::vector<int>& sizes, int max_batch, int threads) {
  return new parsgd::OneDnnEngine(sizes, max_batch, threads);
}
extern "C" __attribute__((visibility("default"))) parsgd::GemmFn parsgd_onednn_gemm() {
  return &parsgd::DnnlSgemm;
}
