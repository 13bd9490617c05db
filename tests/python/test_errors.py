"""Errors reach Python as ValueError with the library's message, the settings spelled as the
estimator's keywords; the MLP refuses sample weights outright."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from conftest import make_problem

X, Y = make_problem(60, 4, 2, seed=61)


@pytest.mark.parametrize("estimator,message", [
    (parsgd.SGDClassifier(alpha=-1.0), r"^alpha: must be a number in \[0, 1000000000\] \(or 'auto'\), got -1.0$"),
    (parsgd.SGDClassifier(scheme="hogwild", batch_size=64), r"batch_size 64 .*scheme hogwild"),
    (parsgd.SGDClassifier(scheme="fast"), r"^scheme: expected one of auto, sequential, .*got 'fast'$"),
    (parsgd.SGDClassifier(n_jobs=0), r"^n_jobs: expected None, a positive integer or -1"),
    (parsgd.SGDClassifier(max_iter=0), r"^max_iter: must be between 1 and 1000000 \(or 'auto'\)"),
    (parsgd.SGDClassifier(deterministic=True, scheme="hogwild"), r"deterministic.*hogwild"),
    (parsgd.SGDClassifier(loss="perceptron"), r"^loss='perceptron': expected one of 'log_loss'"),
    (parsgd.SGDClassifier(alpha="much"), r"^alpha: expected a number or None, got 'much'$"),
    (parsgd.MLPClassifier(hidden_layer_sizes=(0,)), r"hidden_layer_sizes: expected layer sizes"),
    (parsgd.MLPClassifier(learning_rate_init=-0.1), r"^learning_rate_init: must be a number in \(0"),
    (parsgd.SGDRegressor(loss="quantile"), r"loss='quantile': SGDRegressor's losses are "
     r"'squared_error', 'huber', 'epsilon_insensitive'"),
    (parsgd.SGDRegressor(loss="huber", epsilon=0), r"^epsilon: must be a number in \(0"),
], ids=lambda v: getattr(v, "__class__").__name__ if not isinstance(v, str) else "")
def test_bad_settings_are_value_errors_in_keyword_names(estimator, message):
    y = Y.astype(float) if isinstance(estimator, parsgd.SGDRegressor) else Y
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, y)
    assert not hasattr(estimator, "n_features_in_")  # left as it was


def test_a_binary_loss_trains_one_vs_rest_on_more_classes():
    X3, y3 = make_problem(300, 4, 3, seed=62)
    clf = parsgd.SGDClassifier(loss="hinge", random_state=0).fit(X3, y3)
    assert clf.coef_.shape == (3, 4) and clf.intercept_.shape == (3,)
    assert clf.decision_function(X3).shape == (300, 3)
    assert np.array_equal(clf.predict(X3), clf.classes_[clf.decision_function(X3).argmax(axis=1)])
    # (scikit-learn's own one-vs-rest hinge model: 0.88 here, at its alpha 1e-4 against parsgd's
    # auto 1/rows; parsgd's softmax 0.83)
    assert clf.score(X3, y3) > 0.75


def test_a_diverging_run_names_the_step_size():
    with pytest.raises(ValueError, match=r"the run diverged .* try a smaller eta0 than 1e\+06"):
        parsgd.SGDRegressor(eta0=1e6, normalize="none", learning_rate="constant",
                            max_iter=50).fit(X, Y.astype(float))


