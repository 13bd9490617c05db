"""scikit-learn's early stopping in the estimators: early_stopping, validation_fraction,
n_iter_no_change (the library's --validation-fraction and --patience); fit only."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from sklearn.datasets import load_digits


@pytest.mark.parametrize("make", [
    lambda: parsgd.SGDClassifier(early_stopping=True, max_iter=60, n_iter_no_change=3,
                                 learning_rate="constant", eta0=0.5, random_state=1),
    lambda: parsgd.MLPClassifier(early_stopping=True, max_iter=60, n_iter_no_change=3,
                                 random_state=1),
])
def test_the_run_stops_after_n_iter_no_change_epochs_and_keeps_the_best(make):
    X, y = load_digits(return_X_y=True)
    est = make().fit(X, y)
    last = est.history_[-1]
    assert all("validation_loss" in h and "validation_accuracy" in h for h in est.history_)
    best = last["best_epoch"]
    losses = [h["validation_loss"] for h in est.history_]
    assert best == 1 + int(np.argmin(losses))
    if est.n_iter_ < 60:  # stopped: n_iter_no_change epochs after the best
        assert est.n_iter_ >= best + 3
    assert est.score(X, y) > 0.9


def test_without_early_stopping_no_rows_are_held_out():
    X, y = load_digits(return_X_y=True)
    est = parsgd.SGDClassifier(max_iter=5, random_state=1, verbose=0).fit(X, y)
    assert "validation_loss" not in est.history_[-1]
    assert est.n_iter_ == 5


@pytest.mark.parametrize("fraction", [0, 1.0, -0.1, "a"])
def test_a_bad_validation_fraction_is_refused(fraction):
    X, y = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match="validation_fraction"):
        parsgd.SGDClassifier(early_stopping=True, validation_fraction=fraction).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda **k: parsgd.SGDClassifier(early_stopping=True, max_iter=60, n_iter_no_change=3,
                                     random_state=1, **k),
    lambda **k: parsgd.MLPClassifier(early_stopping=True, max_iter=40, n_iter_no_change=3,
                                     random_state=1, **k),
])
def test_refit_trains_again_on_all_the_rows_for_the_best_epochs_count(make):
    X, y = load_digits(return_X_y=True)
    first = make().fit(X, y)
    best = first.history_[-1]["best_epoch"]
    est = make(refit=True).fit(X, y)
    # The first run's epochs as without refit, then the refit's: as many as the best epoch's,
    # none measuring held-out rows.
    assert len(est.history_) == len(first.history_) + best
    assert [h["epoch"] for h in est.history_[len(first.history_):]] == list(range(1, best + 1))
    assert "validation_loss" not in est.history_[-1]
    assert est.n_iter_ == best
    assert est.score(X, y) > 0.9
    assert not np.array_equal(est.predict_proba(X), first.predict_proba(X))


def test_refit_without_early_stopping_is_refused():
    X, y = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match="refit=True .* needs early_stopping=True"):
        parsgd.SGDClassifier(refit=True, max_iter=3).fit(X, y)
