"""Ctrl-C during fit: the workers stop, KeyboardInterrupt reaches the caller, and the estimator is
left as it was before the call."""

import os
import signal
import threading

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from conftest import make_problem


@pytest.mark.parametrize("estimator", [
    parsgd.SGDClassifier(scheme="sequential", max_iter=1000000),
    parsgd.MLPClassifier(hidden_layer_sizes=(32,), n_jobs=2, max_iter=1000000),
], ids=["linear", "mlp"])
def test_keyboard_interrupt_stops_fit_and_keeps_the_estimator(estimator):
    X_small, y_small = make_problem(100, 5, 2, seed=41)
    estimator.set_params(max_iter=2)
    estimator.fit(X_small, y_small)
    before = dict(estimator.__dict__)
    coef = (estimator.coef_ if hasattr(estimator, "coef_") else estimator.coefs_[0]).copy()

    # A fit of a million epochs: it ends only by the interrupt.
    X, y = make_problem(5000, 40, 3, seed=42)
    estimator.set_params(max_iter=1000000)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            estimator.fit(X, y)
    finally:
        timer.cancel()
    estimator.set_params(max_iter=2)
    before["max_iter"] = 2
    assert estimator.__dict__.keys() == before.keys()
    for name, value in before.items():
        assert estimator.__dict__[name] is value, name
    assert estimator.n_features_in_ == 5
    assert list(estimator.classes_) == [0, 1]
    now = estimator.coef_ if hasattr(estimator, "coef_") else estimator.coefs_[0]
    assert np.array_equal(now, coef)
    # The interrupted run is gone: the estimator trains again.
    estimator.fit(X[:200], y[:200])
    assert estimator.n_features_in_ == 40 and len(estimator.classes_) == 3
