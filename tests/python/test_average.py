"""scikit-learn's average (parsgd's --asgd) in SGDClassifier and SGDRegressor: coef_ is the mean of
the iterates, the iterates train as without it; an integer (scikit-learn's count of samples) is
refused rather than read as epochs; the MLP has no such keyword."""

import inspect

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd

from conftest import make_problem


def test_average_reports_the_mean_of_the_iterates():
    X, y = make_problem(400, 20, 2, seed=3)
    common = dict(max_iter=6, n_jobs=1, random_state=0, scheme="sequential",
                  learning_rate="constant", eta0=0.05)
    plain = parsgd.SGDClassifier(**common).fit(X, y)
    averaged = parsgd.SGDClassifier(average=True, **common).fit(X, y)
    assert not np.allclose(plain.coef_, averaged.coef_)
    # The mean of iterates that all classify well classifies well.
    assert averaged.score(X, y) > 0.9
    assert averaged.score(X, y) == pytest.approx(plain.score(X, y), abs=0.05)
    # From the first step: another mean.
    first = parsgd.SGDClassifier(average=0.0, **common).fit(X, y)
    assert not np.allclose(first.coef_, averaged.coef_)


def test_average_regresses():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((300, 5)).astype(np.float32)
    y = X @ np.arange(1.0, 6.0) + 0.1 * rng.standard_normal(300)
    model = parsgd.SGDRegressor(average=True, max_iter=8, n_jobs=1, random_state=0).fit(X, y)
    assert model.score(X, y) > 0.95


def test_an_integer_average_is_refused():
    X, y = make_problem(50, 5, 2, seed=1)
    with pytest.raises(ValueError, match="counts samples"):
        parsgd.SGDClassifier(average=10).fit(X, y)


def test_the_mlp_takes_no_average():
    assert "average" not in inspect.signature(parsgd.MLPClassifier).parameters
