"""Row weights in the estimators: sample_weight in fit, partial_fit and score, SGDClassifier's
class_weight (a dict by label, or 'balanced'), scikit-learn's rules."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from sklearn.utils.class_weight import compute_class_weight

from conftest import make_problem


def imbalanced(rows=3000, seed=5):
    """Two features, 5% positives shifted along the first."""
    rng = np.random.RandomState(seed)
    y = (rng.uniform(size=rows) < 0.05).astype(int)
    X = rng.standard_normal((rows, 2)).astype(np.float32)
    X[:, 0] += 1.5 * y
    return X, np.where(y == 1, "rare", "common")


def recall(estimator, X, y, label):
    return np.mean(estimator.predict(X[y == label]) == label)


def test_weights_of_one_are_no_weights_bit_for_bit():
    X, y = make_problem(200, 6, 2, seed=1)
    plain = parsgd.SGDClassifier(random_state=0, scheme="sequential").fit(X, y)
    ones = parsgd.SGDClassifier(random_state=0, scheme="sequential").fit(
        X, y, sample_weight=np.full(len(y), 3.0))  # scaled to a mean of 1: all ones
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    np.testing.assert_array_equal(plain.intercept_, ones.intercept_)


def test_balanced_classes_raise_the_rare_recall_and_equal_their_dict():
    X, y = imbalanced()
    plain = parsgd.SGDClassifier(random_state=0, scheme="sequential").fit(X, y)
    balanced = parsgd.SGDClassifier(random_state=0, scheme="sequential",
                                    class_weight="balanced").fit(X, y)
    assert recall(balanced, X, y, "rare") > recall(plain, X, y, "rare") + 0.3
    classes = np.array(["common", "rare"])
    weights = compute_class_weight("balanced", classes=classes, y=y)
    as_dict = parsgd.SGDClassifier(random_state=0, scheme="sequential",
                                   class_weight=dict(zip(classes, weights))).fit(X, y)
    np.testing.assert_array_equal(balanced.coef_, as_dict.coef_)


def test_sample_weights_move_the_model_and_score_weighs_rows():
    X, y = imbalanced()
    rare = (y == "rare").astype(float)
    heavy = parsgd.SGDClassifier(random_state=0, scheme="sequential").fit(
        X, y, sample_weight=1 + 18 * rare)
    plain = parsgd.SGDClassifier(random_state=0, scheme="sequential").fit(X, y)
    assert recall(heavy, X, y, "rare") > recall(plain, X, y, "rare") + 0.3
    # score(sample_weight) is the weighted accuracy.
    w = np.linspace(0, 1, len(y))
    assert heavy.score(X, y, sample_weight=w) == pytest.approx(
        np.average(heavy.predict(X) == y, weights=w))


def test_the_mlp_weighs_rows_and_classes():
    X, y = imbalanced()
    mlp = dict(random_state=0, scheme="sequential", hidden_layer_sizes=(8,), max_iter=5)
    plain = parsgd.MLPClassifier(**mlp).fit(X, y)
    balanced = parsgd.MLPClassifier(class_weight="balanced", **mlp).fit(X, y)
    assert recall(balanced, X, y, "rare") > recall(plain, X, y, "rare") + 0.3
    # The rows' weights and their classes' are one weight: the same model bit for bit.
    rare = y == "rare"
    by_rows = parsgd.MLPClassifier(**mlp).fit(X, y, sample_weight=np.where(rare, 19.0, 1.0))
    by_class = parsgd.MLPClassifier(class_weight={"rare": 19.0}, **mlp).fit(X, y)
    for a, b in zip(by_rows.coefs_, by_class.coefs_):
        np.testing.assert_array_equal(a, b)


def test_partial_fit_weighs_rows_but_not_balanced_classes():
    X, y = imbalanced()
    est = parsgd.SGDClassifier(random_state=0, class_weight={"rare": 19.0})
    est.partial_fit(X, y, classes=["common", "rare"], sample_weight=np.ones(len(y)))
    assert recall(est, X, y, "rare") > 0.5
    with pytest.raises(ValueError, match="class_weight 'balanced' is not supported for "
                                         "partial_fit"):
        parsgd.SGDClassifier(class_weight="balanced").partial_fit(X, y, classes=["common", "rare"])


def test_the_regressor_weighs_rows():
    rng = np.random.RandomState(3)
    X = rng.uniform(-1, 1, size=(400, 1)).astype(np.float32)
    y = 2 * X[:, 0]
    y[:40] = -8 * X[:40, 0]  # outliers of another slope, weighed 0 below
    w = np.ones(len(y))
    w[:40] = 0
    fitted = parsgd.SGDRegressor(random_state=0, max_iter=50).fit(X, y, sample_weight=w)
    plain = parsgd.SGDRegressor(random_state=0, max_iter=50).fit(X, y)
    assert abs(fitted.coef_[0] - 2) < 0.1
    assert abs(plain.coef_[0] - 2) > 0.3


@pytest.mark.parametrize("weights,message", [
    (-np.ones(60), "every weight must be 0 or more"),
    (np.ones(59), "sample_weight"),
    # The library's words; scikit-learn 1.6 and later refuse it first, in theirs.
    (np.zeros(60), "every row weighs 0|at least one non-zero"),
])
def test_bad_weights_are_value_errors(weights, message):
    X, y = make_problem(60, 4, 2, seed=2)
    with pytest.raises(ValueError, match=message):
        parsgd.SGDClassifier().fit(X, y, sample_weight=weights)


def test_a_negative_class_weight_is_named():
    X, y = make_problem(60, 4, 2, seed=3)
    with pytest.raises(ValueError, match="class_weight: every weight must be finite, 0 or more"):
        parsgd.SGDClassifier(class_weight={0: -1.0}).fit(X, y)
