"""Estimators pickle through the model file: the same predictions after a round trip, and clones
carry the keywords only."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from conftest import make_problem


@pytest.mark.parametrize("estimator,classes", [
    (parsgd.SGDClassifier(max_iter=5, random_state=0), 3),
    (parsgd.SGDClassifier(loss="hinge", max_iter=5, random_state=0), 2),
    (parsgd.MLPClassifier(hidden_layer_sizes=(8,), max_iter=5, random_state=0), 3),
], ids=["softmax", "hinge", "mlp"])
def test_a_pickled_classifier_predicts_the_same(estimator, classes):
    X, y = make_problem(300, 15, classes, seed=21)
    labels = np.array(["ant", "bee", "cat"])[y]
    fitted = estimator.fit(sp.csr_matrix(X), labels)
    copy = pickle.loads(pickle.dumps(fitted))
    assert copy is not fitted and copy._model is not fitted._model
    assert np.array_equal(copy.predict(X), fitted.predict(X))
    assert np.array_equal(copy.classes_, fitted.classes_)
    assert np.array_equal(copy._model.params, fitted._model.params)
    assert copy.history_ == fitted.history_ and copy.n_iter_ == fitted.n_iter_
    if hasattr(fitted, "predict_proba"):
        assert np.array_equal(copy.predict_proba(X), fitted.predict_proba(X))
    for name in fitted._views:  # rebuilt as views of the loaded model
        assert not getattr(copy, name) is getattr(fitted, name)
    assert clone(fitted).get_params() == fitted.get_params()
    assert not hasattr(clone(fitted), "_model")


def test_a_pickled_regressor_predicts_the_same():
    rng = np.random.RandomState(3)
    X = rng.standard_normal((200, 6)).astype(np.float32)
    y = X @ rng.standard_normal(6) + 1.5
    fitted = parsgd.SGDRegressor(max_iter=20, random_state=1).fit(X, y)
    copy = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(copy.predict(X), fitted.predict(X))
    assert np.array_equal(copy.coef_, fitted.coef_)
    assert np.array_equal(copy.intercept_, fitted.intercept_)


def test_an_unfitted_estimator_pickles_its_keywords():
    est = parsgd.SGDClassifier(scheme="hogwild", alpha=0.01)
    copy = pickle.loads(pickle.dumps(est))
    assert copy.get_params() == est.get_params()
    assert not hasattr(copy, "_model")
