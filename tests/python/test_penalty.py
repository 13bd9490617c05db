"""scikit-learn's penalty and l1_ratio in SGDClassifier and SGDRegressor: alpha shared out into
parsgd's l2 and l1; solver='cd' with penalty='l1' reaches LIBLINEAR's L1 problem (scikit-learn's
LogisticRegression(penalty='l1', solver='liblinear')) with its zeros."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MaxAbsScaler

from conftest import make_problem


def l1_objective(w, X, y, alpha):
    """Mean logistic loss (y in {0, 1}) plus alpha ||w||_1."""
    m = np.where(y == 1, 1.0, -1.0) * (X @ w)
    return np.logaddexp(0, -m).mean() + alpha * np.abs(w).sum()


def test_l1_with_cd_reaches_liblinears_l1_problem_and_its_zeros():
    X, y = load_breast_cancer(return_X_y=True)
    X = MaxAbsScaler().fit_transform(X)
    alpha = 0.002
    ours = parsgd.SGDClassifier(penalty="l1", alpha=alpha, solver="cd", fit_intercept=False,
                                tol=1e-10, max_iter=3000, n_jobs=1).fit(X, y)
    theirs = LogisticRegression(penalty="l1", solver="liblinear", C=1 / (alpha * len(y)),
                                fit_intercept=False, tol=1e-10, max_iter=10000).fit(X, y)
    w, v = ours.coef_.ravel().astype(np.float64), theirs.coef_.ravel()
    assert l1_objective(w, X, y, alpha) == pytest.approx(l1_objective(v, X, y, alpha), rel=1e-5)
    assert 0 < np.count_nonzero(w) < w.size
    # The same zeros, but for a weight near 0 at the optimum, which float steps may leave at 0
    # (its gradient within 3e-7 of alpha there).
    assert np.all((w != 0) <= (v != 0))
    assert np.all(w[np.abs(v) > 0.01 * np.abs(v).max()] != 0)


def test_the_penalties_share_out_alpha():
    X, y = make_problem(400, 8, 2, seed=3)
    kinds = {}
    for penalty in ("l2", "l1", "elasticnet", None):
        est = parsgd.SGDClassifier(penalty=penalty, alpha=0.01, l1_ratio=0.25, solver="cd",
                                   random_state=0, n_jobs=1).fit(X, y)
        kinds[penalty] = est
    shares = {p: (e.settings_["l2"], e.settings_["l1"]) for p, e in kinds.items()}
    assert shares["l2"] == (0.01, 0)
    assert shares["elasticnet"] == (pytest.approx(0.0075), pytest.approx(0.0025))
    assert shares["l1"] == (0, 0.01)
    assert shares[None] == (0, 0)
    # The L1 penalties set weights to exactly 0; the others do not.
    assert np.count_nonzero(kinds["l1"].coef_) < kinds["l2"].coef_.size
    assert np.count_nonzero(kinds["l2"].coef_) == kinds["l2"].coef_.size
    # alpha=None: 1/rows for the L1 penalties.
    auto = parsgd.SGDClassifier(penalty="l1", solver="cd", random_state=0, n_jobs=1).fit(X, y)
    same = parsgd.SGDClassifier(penalty="l1", alpha=1 / 400, solver="cd", random_state=0,
                                n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(auto.coef_, same.coef_)


def test_the_regressor_takes_the_lasso():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((500, 10))
    y = X[:, 0] * 2 - X[:, 1] + 0.1 * rng.standard_normal(500)
    est = parsgd.SGDRegressor(penalty="l1", alpha=0.05, solver="cd", n_jobs=1).fit(X, y)
    assert est.coef_[0] > 1 and est.coef_[1] < -0.5
    assert np.count_nonzero(est.coef_[2:]) < 8


@pytest.mark.parametrize("kw", [{"penalty": "l3"}, {"penalty": "elasticnet", "l1_ratio": 1.5},
                                {"penalty": "l1", "alpha": -1.0}])
def test_bad_penalties_are_refused_by_name(kw):
    X, y = make_problem(100, 4, 2, seed=1)
    name = next(iter(k for k in kw if k != "penalty"), "penalty")
    with pytest.raises(ValueError, match=name):
        parsgd.SGDClassifier(**kw).fit(X, y)
