"""What the classifiers share: labels of any values (strings too) mapped to class indices in
Python, fit and partial_fit over the library's training run, and prediction."""

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets

from . import _base, _data, _parsgd


def encode_classes(y):
    """(classes, indices) as numpy.unique(y, return_inverse=True) gives them, after scikit-learn's
    check_classification_targets. Whole-number labels of a numeric array with few classes take
    the module's two passes (no sort: bench/README.md, "The Python module against
    scikit-learn"); anything else numpy's way."""
    encoded = _parsgd.encode_classes(y)
    if encoded is not None:
        first, indices = encoded
        return y[first], indices
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


class ParsgdClassifier(ClassifierMixin, _base.ParsgdEstimator):
    """The base of SGDClassifier and MLPClassifier. classes_ holds the labels as given, sorted;
    the library sees class indices (or -1/+1 for a binary linear model), so any label values
    work. Subclasses write _model_kind(n_classes) -> (model name, binary)."""

    def fit(self, X, y, sample_weight=None):
        """Trains a new model on X, y (from scratch: an earlier fit is discarded), each row
        weighing sample_weight times its class's class_weight."""
        with _base.kept_on_failure(self):
            X, y = _base.validate_data(self, X, y, accept_sparse="csr", dtype=np.float32)
            classes, indices = encode_classes(y)
            self._check_classes(classes)
            weights = self._weights(X, sample_weight, classes, indices, partial=False)
            data = self._dataset(X, indices, len(classes), weights)
            result, history = self._train(data, self._model_kind(len(classes))[0])
            self.classes_ = classes
            self._take(result, history)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over the batch X, y, starting from the current model (the first call from
        scratch). `classes`, every label y may ever hold, is required on the first call; a
        batch may lack some. Each call starts the optimiser's state and the step-size schedule
        afresh (with the default schedule, linear for one epoch, the step falls to 0 over the
        batch; set learning_rate='constant' for a steady one), and alpha=None means 1/rows of
        this batch.
        Rows weigh as in fit, their weights scaled to a mean of 1 over the batch (a weight counts
        against the rest of its batch; a batch whose rows all weigh 0 is refused);
        class_weight='balanced' is refused here (as scikit-learn does)."""
        first = not hasattr(self, "classes_")
        with _base.kept_on_failure(self):
            if first:
                if classes is None:
                    raise ValueError("classes must be passed on the first call to partial_fit")
                all_classes = np.unique(np.asarray(classes))
                self._check_classes(all_classes)
            else:
                all_classes = self.classes_
                if classes is not None and not np.array_equal(np.unique(classes), all_classes):
                    raise ValueError(f"classes={classes!r} is not the same as on the first call "
                                     f"to partial_fit, {all_classes!r}")
            X, y = _base.validate_data(self, X, y, accept_sparse="csr", dtype=np.float32,
                                       reset=first)
            check_classification_targets(y)
            indices = np.searchsorted(all_classes, y)
            known = (indices < len(all_classes)) & (
                all_classes[np.minimum(indices, len(all_classes) - 1)] == y)
            if not known.all():
                raise ValueError(f"y holds labels not in classes: {np.unique(y[~known])!r}")
            weights = self._weights(X, sample_weight, all_classes, indices, partial=True)
            data = self._dataset(X, indices, len(all_classes), weights)
            start = None if first else self._model
            result, history = self._train(data, self._model_kind(len(all_classes))[0], start,
                                          epochs="1")
            self.classes_ = all_classes
            self._take(result, history)
        return self

    def predict(self, X):
        """The class of each row, as classes_ holds it."""
        data = self._prediction_data(X)  # first: it checks that the estimator is fitted
        return self.classes_[self._model.classes(data, self._threads())]

    def _probabilities(self, X):
        scores = self._scores(X)
        return self._model.probabilities(scores).astype(np.float64)

    def _check_classes(self, classes):
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes; y has "
                             f"{len(classes)} class: {list(classes)!r}")

    def _weights(self, X, sample_weight, classes, indices, partial):
        return _base.row_weights(X, sample_weight, self.class_weight, classes, indices, partial)

    def _dataset(self, X, indices, n_classes, weights=None):
        """The library's labels: -1/+1 for a binary linear model (class 1 positive), else the
        class index; the classes declared, so that a batch lacking some still has them all."""
        if self._model_kind(n_classes)[1]:
            return _data.as_dataset(X, np.where(indices == 1, 1.0, -1.0), classes=(-1.0, 1.0),
                                    weights=weights)
        return _data.as_dataset(X, indices, classes=range(n_classes), weights=weights)
