"""solver='newton' reaches scikit-learn's LogisticRegression optimum (L2, the intercept not
regularised) in a few Newton steps, and fits least squares as Ridge does."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.preprocessing import StandardScaler


def logistic_objective(w, b, X, y, alpha):
    """Mean logistic loss (y in {0, 1}) plus alpha / 2 ||w||^2, the intercept free."""
    m = np.where(y == 1, 1.0, -1.0) * (X @ w + b)
    return np.logaddexp(0, -m).mean() + 0.5 * alpha * w @ w


def test_newton_reaches_logistic_regressions_optimum():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    alpha = 0.01
    ours = parsgd.SGDClassifier(loss="log_loss", alpha=alpha, solver="newton", tol=1e-10,
                                max_iter=100, n_jobs=2).fit(X, y)
    theirs = LogisticRegression(C=1 / (alpha * len(y)), tol=1e-10, max_iter=10000).fit(X, y)
    ours_f = logistic_objective(ours.coef_.ravel().astype(np.float64), float(ours.intercept_[0]),
                                X, y, alpha)
    theirs_f = logistic_objective(theirs.coef_.ravel(), float(theirs.intercept_[0]), X, y, alpha)
    assert ours_f == pytest.approx(theirs_f, rel=1e-6)
    assert ours.n_iter_ < 30


def test_newton_fits_least_squares_as_ridge_does():
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    alpha = 0.01
    ours = parsgd.SGDRegressor(alpha=alpha, solver="newton", tol=1e-10, max_iter=100,
                               n_jobs=1).fit(X, y)
    # Ridge's alpha weighs ||w||^2 against the summed squared error: parsgd's mean of half the
    # squared errors plus alpha / 2 ||w||^2 is Ridge's objective over 2 n at alpha n.
    theirs = Ridge(alpha=alpha * len(y)).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-4,
                               atol=1e-3 * np.abs(theirs.coef_).max())
    assert float(ours.intercept_[0]) == pytest.approx(theirs.intercept_, rel=1e-4)
