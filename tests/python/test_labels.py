"""Labels of any values: strings, negative numbers, two or more classes; classes_ sorted, the
positive class of a binary model classes_[1], probabilities in classes_'s order."""

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from conftest import make_problem


@pytest.mark.parametrize("estimator", [
    parsgd.SGDClassifier(random_state=0, max_iter=20),
    parsgd.MLPClassifier(hidden_layer_sizes=(16,), random_state=0, max_iter=20),
], ids=["softmax", "mlp"])
def test_string_labels_come_back_as_given(estimator):
    X, y = make_problem(600, 10, 3, seed=51)
    names = np.array(["zebra", "ant", "moth"])  # not in sorted order
    labels = names[y]
    estimator.fit(X, labels)
    assert list(estimator.classes_) == ["ant", "moth", "zebra"]
    predicted = estimator.predict(X)
    assert predicted.dtype == labels.dtype and set(predicted) <= set(names)
    assert np.mean(predicted == labels) > 0.8
    proba = estimator.predict_proba(X)
    assert proba.shape == (600, 3)
    assert np.allclose(proba.sum(axis=1), 1, atol=1e-6)
    assert np.array_equal(estimator.classes_[proba.argmax(axis=1)], predicted)


def test_binary_positive_class_is_the_larger_label():
    X, y = make_problem(500, 8, 2, seed=52)
    labels = np.where(y == 1, 5, -3)
    for loss in ("log_loss", "hinge", "squared_hinge", "squared_error"):
        clf = parsgd.SGDClassifier(loss=loss, random_state=0, max_iter=20).fit(X, labels)
        assert list(clf.classes_) == [-3, 5]
        d = clf.decision_function(X)
        assert d.shape == (500,)
        assert np.array_equal(clf.predict(X), np.where(d >= 0, 5, -3))
        assert clf.score(X, labels) > 0.8
        if loss == "log_loss":
            p = clf.predict_proba(X)
            assert np.array_equal(p[:, 1] > 0.5, d > 0)
        else:
            assert not hasattr(clf, "predict_proba")


def test_the_same_problem_under_other_labels_trains_the_same_model():
    X, y = make_problem(400, 8, 3, seed=53)
    a = parsgd.SGDClassifier(random_state=3, max_iter=5).fit(X, y)
    b = parsgd.SGDClassifier(random_state=3, max_iter=5).fit(X, np.array(["a", "b", "c"])[y])
    assert np.array_equal(a.coef_, b.coef_)
