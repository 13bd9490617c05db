#include "parsgd/model/linear/linear_step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/linear/gradient_sum.hpp"
#include "parsgd/optim/optimizer.hpp"

namespace parsgd {
namespace {

OptimizerConfig Hyper(OptimizerKind kind) {
  OptimizerConfig c;
  c.kind = kind;
  return c;
}

// One hand-computed step of regularised logistic SGD.
TEST(LinearStep, LogisticStepMatchesHandComputation) {
  // features 3, weights w = (0.5, -1, 2), bias 0.25; row x = {0: 2, 2: -1}, y = +1; feature 2 has
  // step multiplier m = 2 and L2 term m r = 0.3.
  std::vector<float> w = {0.5f, -1.f, 2.f, 0.25f};
  const std::vector<FeatureRate> reg = {{1.f, 0.1f}, {1.f, 0.2f}, {2.f, 0.3f}};
  const uint32_t index[] = {0, 2};
  const float value[] = {2.f, -1.f};
  const SparseRow x{index, value, 2};
  const LinearParams p{{w.data(), nullptr, nullptr}, 3, 1, reg.data()};
  HogwildScheme scheme;
  float z[1];
  const float eta = 0.5f;
  const RuleContext c = MakeRuleContext(Hyper(OptimizerKind::kSgd), eta, 1);
  const double loss =
      LinearSgdStep<BinaryHead<LogisticLoss>, SgdRule>({}, scheme, p, x, 1.f, 1.f, c, z);
  // score = 0.25 + 0.5*2 + 2*(-1) = -0.75; loss = log(1 + e^0.75); g = -1 / (1 + e^-0.75).
  EXPECT_NEAR(loss, std::log1p(std::exp(0.75)), 1e-6);
  const float g = -1.f / (1.f + std::exp(-0.75f));
  EXPECT_FLOAT_EQ(w[0], (0.5f - eta * (g * 2.f)) / (1.f + eta * 0.1f));
  EXPECT_FLOAT_EQ(w[1], -1.f);  // untouched: no regularisation either
  EXPECT_FLOAT_EQ(w[2], (2.f - eta * (g * (-1.f * 2.f))) / (1.f + eta * 0.3f));
  EXPECT_FLOAT_EQ(w[3], 0.25f - eta * g);  // bias: not regularised
}

TEST(LinearStep, SoftmaxStepMovesTowardTheTrueClass) {
  // 2 features, 3 classes, zero weights: every class has probability 1/3.
  std::vector<float> w(9, 0.f);
  const uint32_t index[] = {1};
  const float value[] = {3.f};
  const SparseRow x{index, value, 1};
  const LinearParams p{{w.data(), nullptr, nullptr}, 2, 3, nullptr};
  AtomicScheme scheme;
  float z[3];
  const RuleContext c = MakeRuleContext(Hyper(OptimizerKind::kSgd), 0.1f, 1);
  const double loss = LinearSgdStep<SoftmaxHead, SgdRule>({}, scheme, p, x, 2.f, 1.f, c, z);
  EXPECT_NEAR(loss, std::log(3.0), 1e-6);
  // grad_k = 1/3 - [k == 2]; w(1, k) = -0.1 * grad_k * 3.
  EXPECT_FLOAT_EQ(w[3 + 0], -0.1f * (1.f / 3) * 3.f);
  EXPECT_FLOAT_EQ(w[3 + 2], -0.1f * (1.f / 3 - 1.f) * 3.f);
  EXPECT_FLOAT_EQ(w[0], 0.f);                          // feature 0 untouched
  EXPECT_FLOAT_EQ(w[6 + 2], -0.1f * (1.f / 3 - 1.f));  // bias of class 2
}

TEST(LinearStep, HingeBeyondTheMarginWithoutL2ChangesNothing) {
  std::vector<float> w = {2.f, 0.f};
  const uint32_t index[] = {0};
  const float value[] = {1.f};
  LockedScheme scheme;
  float z[1];
  const RuleContext c = MakeRuleContext(Hyper(OptimizerKind::kSgd), 0.5f, 1);
  LinearSgdStep<BinaryHead<HingeLoss>, SgdRule>(
      {}, scheme, LinearParams{{w.data(), nullptr, nullptr}, 1, 1, nullptr},
      SparseRow{index, value, 1}, 1.f, 1.f, c, z);
  EXPECT_EQ(w[0], 2.f);
  EXPECT_EQ(w[1], 0.f);
}

TEST(LinearStep, StripesCoverACacheLineOfWeights) {
  StripedScheme binary(1000, 1);
  EXPECT_EQ(binary.StripeOf(15), 0u);
  EXPECT_EQ(binary.StripeOf(16), 1u);
  StripedScheme ten(1000, 10);
  EXPECT_EQ(ten.StripeOf(1), 1u);  // 10 floats per feature: one feature per stripe
  StripedScheme four(1000, 4);
  EXPECT_EQ(four.StripeOf(3), 0u);
  EXPECT_EQ(four.StripeOf(4), 1u);
}

// Each rule, one coordinate, two steps, against the formulas written out by hand: w = 1.5, loss
// gradients l = 0.4 then -0.2, L2 term q = 0.1, eta = 0.05, torch.optim's default hyper-parameters.
struct TwoSteps {
  float w, s0, s1;
};

template <class Rule>
TwoSteps TwoStepsOf(OptimizerKind kind) {
  float w = 1.5f, s0 = 0.f, s1 = 0.f;
  const ParamArrays p{&w, &s0, &s1};
  const OptimizerConfig h = Hyper(kind);
  const RuleContext c1 = MakeRuleContext(h, 0.05f, 1), c2 = MakeRuleContext(h, 0.05f, 2);
  Rule::template Apply<StoreWrite>(p, 0, 0.4f, Rule::Prepare(c1, 0.1f), c1);
  Rule::template Apply<CasWrite>(p, 0, -0.2f, Rule::Prepare(c2, 0.1f), c2);
  return {w, s0, s1};
}

TEST(Optimizer, SgdTakesL2Implicitly) {
  const TwoSteps r = TwoStepsOf<SgdRule>(OptimizerKind::kSgd);
  const float w1 = (1.5f - 0.05f * 0.4f) / (1.f + 0.05f * 0.1f);
  EXPECT_FLOAT_EQ(r.w, (w1 - 0.05f * -0.2f) / (1.f + 0.05f * 0.1f));
}

// The L2 term is implicit in every rule (optimizer.hpp): momentum and Nesterov shrink by
// 1 / (1 + eta q / (1 - mu)), the adaptive rules solve w' = w - (n + eta q w') / D for w'.
TEST(Optimizer, MomentumMatchesHandComputation) {
  const TwoSteps r = TwoStepsOf<MomentumRule>(OptimizerKind::kMomentum);
  const float shrink = 1.f / (1.f + 0.05f / (1.f - 0.9f) * 0.1f);
  const float v1 = 0.4f, w1 = (1.5f - 0.05f * v1) * shrink;
  const float v2 = 0.9f * v1 - 0.2f;
  EXPECT_FLOAT_EQ(r.s0, v2);
  EXPECT_FLOAT_EQ(r.w, (w1 - 0.05f * v2) * shrink);
}

TEST(Optimizer, NesterovMatchesHandComputation) {
  const TwoSteps r = TwoStepsOf<NesterovRule>(OptimizerKind::kNesterov);
  const float shrink = 1.f / (1.f + 0.05f / (1.f - 0.9f) * 0.1f);
  const float v1 = 0.4f, w1 = (1.5f - 0.05f * (0.4f + 0.9f * v1)) * shrink;
  const float v2 = 0.9f * v1 - 0.2f;
  EXPECT_FLOAT_EQ(r.s0, v2);
  EXPECT_FLOAT_EQ(r.w, (w1 - 0.05f * (-0.2f + 0.9f * v2)) * shrink);
}

TEST(Optimizer, AdaGradMatchesHandComputation) {
  const TwoSteps r = TwoStepsOf<AdaGradRule>(OptimizerKind::kAdaGrad);
  const float g1 = 0.4f + 0.1f * 1.5f, s1 = g1 * g1, d1 = std::sqrt(s1) + 1e-8f;
  const float w1 = (1.5f * d1 - 0.05f * 0.4f) / (d1 + 0.05f * 0.1f);
  const float g2 = -0.2f + 0.1f * w1, s2 = s1 + g2 * g2, d2 = std::sqrt(s2) + 1e-8f;
  EXPECT_FLOAT_EQ(r.s0, s2);
  EXPECT_FLOAT_EQ(r.w, (w1 * d2 - 0.05f * -0.2f) / (d2 + 0.05f * 0.1f));
}

TEST(Optimizer, RmsPropMatchesHandComputation) {
  const TwoSteps r = TwoStepsOf<RmsPropRule>(OptimizerKind::kRmsProp);
  const float g1 = 0.4f + 0.1f * 1.5f, s1 = (1.f - 0.99f) * (g1 * g1);
  const float d1 = std::sqrt(s1) + 1e-8f, w1 = (1.5f * d1 - 0.05f * 0.4f) / (d1 + 0.05f * 0.1f);
  const float g2 = -0.2f + 0.1f * w1, s2 = 0.99f * s1 + (1.f - 0.99f) * (g2 * g2);
  const float d2 = std::sqrt(s2) + 1e-8f;
  EXPECT_FLOAT_EQ(r.s0, s2);
  EXPECT_FLOAT_EQ(r.w, (w1 * d2 - 0.05f * -0.2f) / (d2 + 0.05f * 0.1f));
}

TEST(Optimizer, AdamMatchesHandComputationWithBiasCorrection) {
  const TwoSteps r = TwoStepsOf<AdamRule>(OptimizerKind::kAdam);
  // The first moment follows the loss gradient, the second the whole gradient (L2 included).
  const float g1 = 0.4f + 0.1f * 1.5f, m1 = (1.f - 0.9f) * 0.4f, v1 = (1.f - 0.999f) * (g1 * g1);
  // Step 1: the corrected moments are l and g^2, so D = |g| + eps.
  const float d1 = std::sqrt(v1 / 0.001f) + 1e-8f;
  EXPECT_NEAR(d1, g1, 1e-5f);  // 1 - 0.999 is not exact in float
  const float w1 = (1.5f * d1 - 0.05f * (m1 / 0.1f)) / (d1 + 0.05f * 0.1f);
  const float g2 = -0.2f + 0.1f * w1, m2 = 0.9f * m1 + (1.f - 0.9f) * -0.2f;
  const float v2 = 0.999f * v1 + (1.f - 0.999f) * (g2 * g2);
  const float c1 = 1.f / (1.f - 0.81f), c2 = static_cast<float>(1.0 / (1.0 - 0.999 * 0.999));
  const float d2 = std::sqrt(v2 * c2) + 1e-8f;
  EXPECT_FLOAT_EQ(r.s0, m2);
  EXPECT_FLOAT_EQ(r.s1, v2);
  EXPECT_NEAR(r.w, (w1 * d2 - 0.05f * (m2 * c1)) / (d2 + 0.05f * 0.1f), 2e-6f);
}

// The gradient a rule receives is the per-sample objective's: one SGD step moves w by -eta times
// the gradient of loss(x . w + b) + sum over touched j of (q_j / 2) w_j^2, up to O(eta) (the L2
// part is taken implicitly, at the new w), which central differences reproduce.
TEST(Optimizer, StepFollowsTheFiniteDifferenceGradient) {
  const uint32_t index[] = {0, 2};
  const float value[] = {1.5f, -0.5f};
  const SparseRow x{index, value, 2};
  const std::vector<FeatureRate> rates = {{1.f, 0.3f}, {1.f, 0.f}, {1.f, 0.7f}};
  const std::vector<float> start = {0.2f, 0.9f, -0.4f, 0.1f};
  auto objective = [&](const std::vector<double>& w) {
    const double z = w[3] + value[0] * w[0] + value[1] * w[2];
    return std::log1p(std::exp(z)) + 0.15 * w[0] * w[0] + 0.35 * w[2] * w[2];  // y = -1
  };
  std::vector<float> w = start;
  const float eta = 1e-4f;
  HogwildScheme scheme;
  float z[1];
  LinearSgdStep<BinaryHead<LogisticLoss>, SgdRule>(
      {}, scheme, LinearParams{{w.data(), nullptr, nullptr}, 3, 1, rates.data()}, x, -1.f, 1.f,
      MakeRuleContext(Hyper(OptimizerKind::kSgd), eta, 1), z);
  for (int i : {0, 2, 3}) {
    std::vector<double> up(start.begin(), start.end()), down = up;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    const double gradient = (objective(up) - objective(down)) / 2e-6;
    EXPECT_NEAR((start[i] - w[i]) / eta, gradient, 1e-3) << "coordinate " << i;
  }
  EXPECT_EQ(w[1], start[1]);
}

// --normalize maxabs gives feature j the step multiplier m_j = 1 / max|x_j|^2. The adaptive rules
// divide by the gradient's own scale, so m_j cancelled in them and every weight moved by about eta
// whatever its feature's scale (a walkthrough: adam 88.8% on raw breast cancer, 97.0% scaled).
// Two features that are the same signal in units 1000 apart must move their weights 1000 apart,
// as SGD does, per sample (LinearSgdStep) and per minibatch (GradientSum).
template <class Rule>
void ExpectMovesScaledByTheFeaturesRange(OptimizerKind kind) {
  const uint32_t index[] = {0, 1};
  const float value[] = {0.5f, 500.f};  // feature 1 is feature 0 in units 1000 smaller
  const SparseRow x{index, value, 2};
  // m_j and the L2 term m_j r_j, the same for both: the L2 weight of the same normalised problem.
  const std::vector<FeatureRate> rates = {{1.f, 0.01f}, {1e-6f, 0.01f}};
  OptimizerConfig h = Hyper(kind);
  const RuleContext c = MakeRuleContext(h, 0.1f, 1);
  // Per sample.
  std::vector<float> w(3, 0.f), s0(3, 0.f), s1(3, 0.f);
  const LinearParams p{{w.data(), s0.data(), s1.data()}, 2, 1, rates.data()};
  SequentialScheme scheme;
  float z[1];
  LinearSgdStep<BinaryHead<LogisticLoss>, Rule>({}, scheme, p, x, 1.f, 1.f, c, z);
  ASSERT_GT(w[0], 0.f);
  EXPECT_NEAR(w[1] * 1000.f, w[0], 1e-3f * w[0]) << "per sample";
  // Per minibatch of that one row.
  std::vector<float> v(3, 0.f), t0(3, 0.f), t1(3, 0.f), sum(3, 0.f);
  std::vector<uint32_t> count(2, 0);
  const LinearParams q{{v.data(), t0.data(), t1.data()}, 2, 1, rates.data()};
  GradientSum<1> g(sum.data(), count.data(), 2, 1);
  float d[1] = {0.f};
  LinearScores<1>(q, x, d);
  BinaryHead<LogisticLoss>{}.LossAndGradient(d, 1, 1.f);
  g.Add(x, d, rates.data(), [](uint32_t) { return true; });
  g.template ApplyAndClear<Rule, PlainWrite>(q, 1, c);
  ASSERT_GT(v[0], 0.f);
  EXPECT_NEAR(v[1] * 1000.f, v[0], 1e-3f * v[0]) << "per minibatch";
}

TEST(Optimizer, AdaptiveRulesMoveEachWeightByItsFeaturesRange) {
  ExpectMovesScaledByTheFeaturesRange<SgdRule>(OptimizerKind::kSgd);  // the reference behaviour
  ExpectMovesScaledByTheFeaturesRange<AdaGradRule>(OptimizerKind::kAdaGrad);
  ExpectMovesScaledByTheFeaturesRange<RmsPropRule>(OptimizerKind::kRmsProp);
  ExpectMovesScaledByTheFeaturesRange<AdamRule>(OptimizerKind::kAdam);
}

}  // namespace
}  // namespace parsgd
