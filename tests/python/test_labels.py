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


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_the_module_encodes_labels_as_numpy_unique_does(dtype):
    from parsgd import _classifier, _parsgd
    rng = np.random.default_rng(53)
    for values in ([-3, 5], [7, 0, -2, 11, 4], list(range(64))):
        y = np.asarray(values, dtype=dtype)[rng.integers(0, len(values), 5000)]
        y[:len(values)] = values  # every value present
        assert _parsgd.encode_classes(y) is not None  # the module's path, not numpy's
        classes, indices = _classifier.encode_classes(y)
        expected_classes, expected_indices = np.unique(y, return_inverse=True)
        assert classes.dtype == y.dtype and np.array_equal(classes, expected_classes)
        assert np.array_equal(indices, expected_indices)


# scikit-learn's type check casts the NaN label to int on its way to its error, with a warning.
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_labels_the_module_leaves_to_numpy():
    from parsgd import _classifier, _parsgd
    many = np.arange(65, dtype=np.float64)  # more than 64 classes
    assert _parsgd.encode_classes(many) is None
    assert np.array_equal(_classifier.encode_classes(many)[0], many)
    assert _parsgd.encode_classes(np.array(["b", "a"])) is None
    assert _parsgd.encode_classes(np.array([1.0, 2.0, 3.0, 4.0])[::2]) is None  # strided
    for continuous in (np.array([0.0, 0.5, 1.0]), np.array([1.0, np.nan])):
        assert _parsgd.encode_classes(continuous) is None
        with pytest.raises(ValueError, match="Unknown label type|contains NaN"):
            _classifier.encode_classes(continuous)
