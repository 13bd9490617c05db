"""partial_fit across calls: each call one epoch from the model so far (test_cli.py checks the
bits against `parsgd train --init`), classes declared on the first call, batches that lack some."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from conftest import make_problem


def test_partial_fit_learns_across_calls_with_batches_lacking_classes():
    X, y = make_problem(3000, 20, 3, seed=31)
    X_test, y_test = X[2000:], y[2000:]
    clf = parsgd.SGDClassifier(random_state=0, alpha=1e-4, learning_rate="constant")
    lacking = np.flatnonzero(y[:2000] != 2)[:200]  # the first batch holds no class 2
    rest = np.setdiff1d(np.arange(2000), lacking)
    scores = []
    for batch in [lacking] + np.array_split(rest, 9):
        clf.partial_fit(X[batch], y[batch], classes=[0, 1, 2])
        assert clf.coef_.shape == (3, 20)  # every class, whatever this batch held
        assert clf.n_iter_ == 1
        scores.append(clf.score(X_test, y_test))
    assert list(clf.classes_) == [0, 1, 2]
    # Class 2 was never predicted after the first batch; every class is after the last.
    assert scores[-1] > scores[0]
    assert set(clf.predict(X_test)) == {0, 1, 2}
    assert scores[-1] > np.bincount(y_test).max() / len(y_test)  # better than the majority


def test_partial_fit_checks_classes_and_features():
    X, y = make_problem(100, 5, 2, seed=32)
    clf = parsgd.SGDClassifier()
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        clf.partial_fit(X, y)
    with pytest.raises(ValueError, match="needs at least two classes"):
        clf.partial_fit(X, y, classes=[1])
    assert not hasattr(clf, "classes_")
    clf.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="is not the same as on the first call"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"y holds labels not in classes: array\(\[7\]\)"):
        clf.partial_fit(X, np.where(y == 1, 7, 0))
    with pytest.raises(ValueError, match="X has 4 features, but SGDClassifier is expecting 5"):
        clf.partial_fit(X[:, :4], y)


def test_regressor_partial_fit_continues_the_model():
    rng = np.random.RandomState(33)
    X = rng.standard_normal((2000, 8)).astype(np.float32)
    y = X @ rng.standard_normal(8) - 2.0
    reg = parsgd.SGDRegressor(alpha=0.0, learning_rate="constant", eta0=0.01, random_state=0)
    errors = []
    for batch in np.array_split(np.arange(2000), 8):
        before = None if not hasattr(reg, "coef_") else reg.coef_.copy()
        reg.partial_fit(X[batch], y[batch])
        if before is not None:
            assert not np.array_equal(before, reg.coef_)
        errors.append(np.mean((reg.predict(X) - y) ** 2))
    assert errors[-1] < errors[0] / 10
