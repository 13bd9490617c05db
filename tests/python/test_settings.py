"""The keywords come from the library's settings table: every setting is a keyword (by
scikit-learn's name where it has one), with the table's default, and reaches the run."""

import inspect

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from parsgd import _parsgd, _settings
from conftest import make_problem

TABLE = {s["key"]: s for s in _parsgd.settings()}


@pytest.mark.parametrize("cls,names,excluded", [
    (parsgd.SGDClassifier, _settings.LINEAR_NAMES,
     {"hidden", "mlp-backend", "loss-epsilon", *_settings.MLP_ONLY}),
    (parsgd.SGDRegressor, _settings.REGRESSOR_NAMES,
     {"hidden", "mlp-backend", "shrinking", "multiclass", *_settings.MLP_ONLY}),
    (parsgd.MLPClassifier, _settings.MLP_NAMES,
     {"solver", "shrinking", "bias", "backend", "require-gpu", "loss-epsilon", "multiclass",
      "asgd"}),
])
def test_every_setting_of_the_table_is_a_keyword(cls, names, excluded):
    params = inspect.signature(cls).parameters
    for key, entry in TABLE.items():
        name = names.get(key, key.replace("-", "_"))
        if key in _settings.NEVER or key in excluded:
            # their own keywords of scikit-learn's meaning
            assert name not in params or name in ("loss", "class_weight", "validation_fraction"), key
            continue
        assert name in params, key
        assert f"{name} : " in cls.__doc__ and f"(parsgd setting `{key}`)" in cls.__doc__, key
    assert params["alpha"].default is None  # l2's 'auto'
    assert params["learning_rate"].default == TABLE["schedule"]["default"] == "auto"
    assert params["n_jobs"].default is None and params["random_state"].default is None


def test_defaults_and_given_values_reach_the_run():
    X, y = make_problem(250, 6, 2, seed=81)
    default = parsgd.SGDClassifier(random_state=5, max_iter=2).fit(X, y)
    s = default.settings_
    assert s["l2"] == pytest.approx(1 / 250)  # alpha=None: parsgd's 1/rows
    assert (s["threads"], s["scheme"], s["seed"], s["epochs"]) == (1, "sequential", 5, 2)
    assert s["optimizer"] == "sgd" and s["model"] == "logistic"
    given = parsgd.SGDClassifier(alpha=0.01, optimizer="adam", eta0=0.003, n_jobs=2,
                                 scheme="average", period=7, batch_size=4, order="local",
                                 random_state=9, max_iter=3).fit(X, y)
    s = given.settings_
    assert (s["l2"], s["optimizer"], s["eta0"], s["threads"]) == (0.01, "adam", 0.003, 2)
    assert (s["scheme"], s["period"], s["batch"], s["order"]) == ("average", 7, 4, "local")
    assert given.n_iter_ == len(given.history_) == 3
    assert parsgd.MLPClassifier(hidden_layer_sizes=(4,), max_iter=1).fit(X, y).settings_[
        "model"] == "mlp"


def test_n_jobs_counts_as_scikit_learn_does():
    cores = _parsgd.available_cores()
    assert _settings.threads(None) == 1
    assert _settings.threads(3) == 3
    assert _settings.threads(-1) == 0  # the library's 'auto': every core
    assert _settings.threads(-2) == max(1, cores - 1)
    X, y = make_problem(100, 4, 2, seed=82)
    assert parsgd.SGDClassifier(n_jobs=-1, max_iter=1).fit(X, y).settings_["threads"] == cores


def test_random_state_none_draws_a_seed_an_int_is_the_seed():
    X, y = make_problem(100, 4, 2, seed=83)
    np.random.seed(0)
    a = parsgd.SGDClassifier(max_iter=1).fit(X, y).settings_["seed"]
    np.random.seed(0)
    b = parsgd.SGDClassifier(max_iter=1).fit(X, y).settings_["seed"]
    assert a == b  # drawn from numpy's global state, as scikit-learn's estimators do
    c = parsgd.SGDClassifier(max_iter=1, random_state=np.random.RandomState(1)).fit(X, y)
    assert c.settings_["seed"] == np.random.RandomState(1).randint(np.iinfo(np.int32).max)


def test_the_optimal_schedule_is_scikit_learns():
    # learning_rate='optimal': scikit-learn's default rate, 1 / (alpha (t0 + t)), first step
    # sqrt(1 / sqrt(alpha)) for the logistic loss; plain SGD in the data's own scale only.
    X, y = make_problem(250, 6, 2, seed=82)
    clf = parsgd.SGDClassifier(learning_rate="optimal", normalize="none", alpha=0.01,
                               max_iter=2, random_state=1).fit(X, y)
    s = clf.settings_
    assert s["eta0"] == pytest.approx(np.sqrt(10.0))
    assert s["decay"] == pytest.approx(s["eta0"] * 0.01 * 250)
    t0 = 1 / (0.01 * s["eta0"])
    assert clf.history_[-1]["learning_rate"] == pytest.approx(1 / (0.01 * (t0 + 500)), rel=1e-6)
    with pytest.raises(ValueError, match="normalize"):
        parsgd.SGDClassifier(learning_rate="optimal").fit(X, y)


def test_n_workers_gives_the_same_model_on_any_n_jobs():
    # --workers: the deterministic schemes' workers, apart from the threads that run them.
    X, y = make_problem(400, 8, 3, seed=84)
    fits = [parsgd.SGDClassifier(scheme="average", n_workers=4, n_jobs=n, max_iter=3,
                                 random_state=2).fit(X, y) for n in (1, 2)]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    assert fits[0].settings_["workers"] == 4
    mlp = [parsgd.MLPClassifier(hidden_layer_sizes=(8,), scheme="sync", n_workers=4, n_jobs=n,
                                max_iter=2, random_state=2).fit(X, y) for n in (1, 2)]
    for a, b in zip(mlp[0].coefs_, mlp[1].coefs_):
        np.testing.assert_array_equal(a, b)


def test_learning_rate_adaptive_halves_on_stalls_and_ends_before_max_iter():
    # scikit-learn's name for a step that shrinks when the loss stalls: parsgd's halves, and the
    # fit ends at the stall after the fifth halving, before max_iter.
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    clf = parsgd.SGDClassifier(learning_rate="adaptive", max_iter=1000, n_jobs=1).fit(X, y)
    assert clf.n_iter_ < 1000
    assert clf.score(X, y) > 0.9
