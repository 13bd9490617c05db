// The classification report: counts, precision, recall and F1 by hand, and the ROC AUC against the
// count over every positive-negative pair.
#include "parsgd/model/class_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

TEST(ClassReport, CountsPrecisionRecallAndF1ByHand) {
  // Truth 0 0 0 1 1 2, predicted 0 1 0 1 1 1: class 2 is never predicted.
  const std::vector<int> truth = {0, 0, 0, 1, 1, 2}, predicted = {0, 1, 0, 1, 1, 1};
  const ClassReport r = CountClasses(truth, predicted, 3);
  EXPECT_EQ(r.Count(0, 0), 2u);
  EXPECT_EQ(r.Count(0, 1), 1u);
  EXPECT_EQ(r.Count(2, 1), 1u);
  EXPECT_EQ(r.Support(0), 3u);
  EXPECT_EQ(r.Predicted(1), 4u);
  EXPECT_DOUBLE_EQ(r.Precision(0), 1.0);
  EXPECT_DOUBLE_EQ(r.Recall(0), 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.F1(0), 0.8);
  EXPECT_DOUBLE_EQ(r.Precision(1), 0.5);
  EXPECT_DOUBLE_EQ(r.Recall(1), 1.0);
  EXPECT_TRUE(std::isnan(r.Precision(2)));  // nothing predicted 2
  EXPECT_DOUBLE_EQ(r.Recall(2), 0.0);
  EXPECT_TRUE(std::isnan(r.F1(2)));
}

TEST(ClassReport, RocAucIsTheShareOfPairsRankedRightTiesCountingHalf) {
  // Scores 0.1(-) 0.4(+) 0.4(-) 0.8(+): pairs (+0.4,-0.1) won, (+0.4,-0.4) tied, (+0.8, both) won.
  EXPECT_DOUBLE_EQ(RocAuc(std::vector<float>{0.1f, 0.4f, 0.4f, 0.8f},
                          std::vector<uint8_t>{0, 1, 0, 1}),
                   3.5 / 4);
  EXPECT_DOUBLE_EQ(RocAuc(std::vector<float>{1, 2, 3}, std::vector<uint8_t>{0, 0, 1}), 1.0);
  EXPECT_DOUBLE_EQ(RocAuc(std::vector<float>{1, 2, 3}, std::vector<uint8_t>{1, 0, 0}), 0.0);
  EXPECT_TRUE(std::isnan(RocAuc(std::vector<float>{1, 2}, std::vector<uint8_t>{1, 1})));
  // Random scores with many ties, against the count over all pairs.
  Rng rng(11);
  std::vector<float> scores(500);
  std::vector<uint8_t> positive(500);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scores[i] = static_cast<float>(rng.Uniform(40));
    positive[i] = static_cast<uint8_t>(rng.UniformDouble() < 0.3 + scores[i] / 100);
  }
  double won = 0, pairs = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    for (std::size_t j = 0; j < scores.size(); ++j) {
      if (positive[i] == 0 || positive[j] != 0) continue;
      pairs += 1;
      won += scores[i] > scores[j] ? 1 : scores[i] == scores[j] ? 0.5 : 0;
    }
  }
  EXPECT_NEAR(RocAuc(scores, positive), won / pairs, 1e-12);
}

}  // namespace
}  // namespace parsgd
