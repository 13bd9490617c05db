#include "reference_solver.hpp"

#include <algorithm>
#include <cmath>

namespace parsgd::testing {
namespace {

// Width of the quadratic smoothing of the hinge's kink. The smoothed loss h_d lies within d/2 below
// the hinge, so its minimiser w_d brackets the optimum: h-objective(w_d) >= f* >=
// h_d-objective(w_d).
constexpr double kHingeSmoothing = 1e-2;

double Log1pExp(double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); }

// Loss of one row and, if grad is given, d loss / d z (outputs values). `smooth` replaces the hinge
// by its smoothed version (for the solver's gradient steps).
double RowLoss(ModelKind kind, const std::vector<double>& z, float y, std::vector<double>* grad,
               bool smooth = false) {
  if (kind == ModelKind::kHinge && smooth) {
    const double m = y * z[0], d = kHingeSmoothing;
    if (m >= 1) {
      if (grad) (*grad)[0] = 0;
      return 0;
    }
    if (m > 1 - d) {
      if (grad) (*grad)[0] = -y * (1 - m) / d;
      return (1 - m) * (1 - m) / (2 * d);
    }
    if (grad) (*grad)[0] = -y;
    return 1 - m - d / 2;
  }
  switch (kind) {
    case ModelKind::kLogistic: {
      const double m = y * z[0];
      if (grad) (*grad)[0] = -y / (1 + std::exp(m));
      return Log1pExp(-m);
    }
    case ModelKind::kHinge:
      if (grad) (*grad)[0] = y * z[0] < 1 ? -y : 0;
      return std::max(0.0, 1 - y * z[0]);
    case ModelKind::kSquared:
      if (grad) (*grad)[0] = z[0] - y;
      return 0.5 * (z[0] - y) * (z[0] - y);
    case ModelKind::kSquaredHinge: {
      const double slack = std::max(0.0, 1 - y * z[0]);
      if (grad) (*grad)[0] = -2 * y * slack;
      return slack * slack;
    }
    case ModelKind::kSoftmax:
    case ModelKind::kMlp: {
      const double top = *std::max_element(z.begin(), z.end());
      double sum = 0;
      for (double v : z) sum += std::exp(v - top);
      const int c = static_cast<int>(y);
      if (grad) {
        for (std::size_t k = 0; k < z.size(); ++k) (*grad)[k] = std::exp(z[k] - top) / sum;
        (*grad)[c] -= 1;
      }
      return std::log(sum) + top - z[c];
    }
  }
  return 0;
}

// Objective and (if grad is given) its gradient.
double Evaluate(ModelKind kind, const Dataset& data, const std::vector<float>& targets, int outputs,
                double l2, const std::vector<double>& w, std::vector<double>* grad) {
  const uint64_t f = data.features();
  const double n = static_cast<double>(data.rows());
  double total = 0;
  if (grad) grad->assign(w.size(), 0.0);
  std::vector<double> z(outputs), g(outputs);
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow x = data.row(i);
    for (int k = 0; k < outputs; ++k) z[k] = w[f * outputs + k];
    for (uint32_t e = 0; e < x.nnz; ++e) {
      for (int k = 0; k < outputs; ++k) z[k] += x.value[e] * w[x.index[e] * outputs + k];
    }
    total += RowLoss(kind, z, targets[i], grad ? &g : nullptr, /*smooth=*/grad != nullptr);
    if (!grad) continue;
    for (uint32_t e = 0; e < x.nnz; ++e) {
      for (int k = 0; k < outputs; ++k) (*grad)[x.index[e] * outputs + k] += g[k] * x.value[e] / n;
    }
    for (int k = 0; k < outputs; ++k) (*grad)[f * outputs + k] += g[k] / n;
  }
  double norm = 0;
  for (uint64_t j = 0; j < f * outputs; ++j) {
    norm += w[j] * w[j];
    if (grad) (*grad)[j] += l2 * w[j];
  }
  return total / n + 0.5 * l2 * norm;
}

}  // namespace

double ReferenceObjective(ModelKind kind, const Dataset& data, const std::vector<float>& targets,
                          int outputs, double l2, const std::vector<double>& weights) {
  return Evaluate(kind, data, targets, outputs, l2, weights, nullptr);
}

Reference SolveReference(ModelKind kind, const Dataset& data, const std::vector<float>& targets,
                         int outputs, double l2, int iterations, bool bias) {
  const std::size_t size = (data.features() + 1) * outputs;
  double mean_norm = 1;
  for (uint64_t e = 0; e < data.nnz(); ++e)
    mean_norm += data.values()[e] * data.values()[e] / data.rows();
  const double curvature = kind == ModelKind::kLogistic       ? 0.25
                           : kind == ModelKind::kSoftmax      ? 0.5
                           : kind == ModelKind::kHinge        ? 1 / kHingeSmoothing
                           : kind == ModelKind::kSquaredHinge ? 2
                                                              : 1;
  const double step = 1.0 / (curvature * mean_norm + l2);  // 1 / (bound on the Hessian's norm)
  std::vector<double> w(size, 0.0), previous = w, y = w, grad;
  Reference best{w, Evaluate(kind, data, targets, outputs, l2, w, nullptr)};
  for (int t = 1; t <= iterations; ++t) {
    // Nesterov's accelerated gradient (on the smoothed hinge for hinge).
    Evaluate(kind, data, targets, outputs, l2, y, &grad);
    if (!bias) std::fill(grad.end() - outputs, grad.end(), 0.0);  // the bias block is last
    previous.swap(w);
    for (std::size_t j = 0; j < size; ++j) w[j] = y[j] - step * grad[j];
    const double momentum = (t - 1.0) / (t + 2.0);
    for (std::size_t j = 0; j < size; ++j) y[j] = w[j] + momentum * (w[j] - previous[j]);
    const double f = Evaluate(kind, data, targets, outputs, l2, w, nullptr);
    if (f < best.objective) best = {w, f};
  }
  return best;
}

}  // namespace parsgd::testing
