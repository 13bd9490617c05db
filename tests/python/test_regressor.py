"""SGDRegressor fits real-valued targets (parsgd's squared model on the labels as they are)."""

import numpy as np
import scipy.sparse as sp

import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd


def linear_problem(rows, features, seed):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((rows, features)).astype(np.float32)
    w = rng.uniform(-3, 3, size=features)
    return X, w, X.astype(np.float64) @ w + 7.25


def test_noise_free_targets_are_fitted_to_their_weights():
    # Without noise or L2 the least-squares optimum is the hidden weights and bias themselves.
    X, w, y = linear_problem(500, 6, seed=71)
    reg = parsgd.SGDRegressor(alpha=0.0, max_iter=100, random_state=0).fit(sp.csr_matrix(X), y)
    assert reg.coef_.shape == (6,) and reg.intercept_.shape == (1,)
    assert np.allclose(reg.coef_, w, atol=1e-3)
    assert np.allclose(reg.intercept_, 7.25, atol=1e-3)
    assert reg.score(X, y) > 0.999999
    assert "train_accuracy" not in reg.history_[-1]
    assert len(reg.history_) == reg.n_iter_ == 100
    assert reg.history_[-1]["progressive_loss"] < reg.history_[0]["progressive_loss"]
    # Without verbose only the last epoch is evaluated (a pass over the data each); with it, all.
    assert reg.history_[0]["objective"] is None and reg.history_[-1]["objective"] is not None
    loud = parsgd.SGDRegressor(alpha=0.0, max_iter=3, random_state=0, verbose=1).fit(X, y)
    assert all(e["objective"] is not None for e in loud.history_)
    assert loud.history_[-1]["objective"] < loud.history_[0]["objective"]


def test_l2_shrinks_as_ridge_regression_does():
    # With L2 the optimum is ridge regression's: (X'X/n + alpha I) w = X'(y - b)/n, b unregularised.
    rng = np.random.RandomState(72)
    X, w, y = linear_problem(400, 5, seed=72)
    y = y + rng.standard_normal(400)
    alpha = 0.5
    reg = parsgd.SGDRegressor(alpha=alpha, max_iter=300, normalize="none", random_state=0)
    reg.fit(X, y)
    Xd = X.astype(np.float64)
    centred = Xd - Xd.mean(axis=0)
    ridge = np.linalg.solve(centred.T @ centred / 400 + alpha * np.eye(5),
                            centred.T @ (y - y.mean()) / 400)
    bias = y.mean() - Xd.mean(axis=0) @ ridge

    def objective(w, b):
        return np.mean((Xd @ w + b - y) ** 2) / 2 + alpha / 2 * w @ w

    # SGD ends near the optimum, where the objective is flat: its objective is the optimum's to
    # 1e-4 (1.4e-5 seen), its weights to the noise the last epochs leave (4e-3 seen).
    best = objective(ridge, bias)
    assert best <= objective(reg.coef_.astype(np.float64), reg.intercept_[0]) < best * (1 + 1e-4)
    assert np.allclose(reg.coef_, ridge, atol=1e-2)
    assert abs(reg.history_[-1]["objective"] - best) < 1e-4 * best


def test_huber_keeps_the_bias_that_outlying_targets_pull_least_squares_from():
    # A tenth of the targets 50 too high: least squares' intercept moves up by about 5, Huber's
    # (scikit-learn's loss='huber', epsilon its width) stays at the true 7.25.
    X, w, y = linear_problem(1000, 4, seed=73)
    y = y.copy()
    y[::10] += 50
    huber = parsgd.SGDRegressor(loss="huber", epsilon=0.5, alpha=1e-6, max_iter=30,
                                random_state=0, scheme="sequential").fit(X, y)
    squared = parsgd.SGDRegressor(alpha=1e-6, max_iter=30, random_state=0,
                                  scheme="sequential").fit(X, y)
    assert abs(huber.intercept_[0] - 7.25) < 0.5
    assert squared.intercept_[0] > 7.25 + 4
    assert np.allclose(huber.coef_, w, atol=0.2)
    assert huber.settings_["model"] == "huber" and huber.settings_["loss_epsilon"] == 0.5
    last = huber.history_[-1]
    assert {"train_rmse", "train_mae", "train_r2"} <= set(last) and "train_accuracy" not in last


def test_epsilon_insensitive_fits_noise_free_targets_within_its_tube():
    X, w, y = linear_problem(600, 5, seed=74)
    reg = parsgd.SGDRegressor(loss="epsilon_insensitive", epsilon=0.5, alpha=1e-6, max_iter=40,
                              random_state=0, scheme="sequential").fit(X, y)
    inside = np.abs(reg.predict(X) - y) <= 0.55
    assert inside.mean() >= 0.95
    assert reg.score(X, y) > 0.99
