"""The linear estimators: SGDClassifier (logistic, hinge, squared hinge, squared and, for more
than two classes, softmax) and SGDRegressor (least squares, Huber and epsilon-insensitive losses on
real-valued targets)."""

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.metaestimators import available_if

from . import _base, _classifier, _data, _settings

# scikit-learn's loss names -> parsgd's binary models.
BINARY_MODELS = {
    "log_loss": "logistic",
    "hinge": "hinge",
    "squared_hinge": "squared-hinge",
    "squared_error": "squared",
}

# scikit-learn's regression losses -> parsgd's models.
REGRESSION_MODELS = {
    "squared_error": "squared",
    "huber": "huber",
    "epsilon_insensitive": "epsilon-insensitive",
}

CLASS_WEIGHT_DOC = """dict, 'balanced' or None, default=None
    Each class's weight in the loss (a row's weight is its sample_weight times its class's):
    a dict {label: weight} (the classes not in it 1), 'balanced' (n / (n_classes x the rows of
    the class), scikit-learn's rule; not in partial_fit), or None (every class 1)."""

PENALTY_DOC = """{'l2', 'l1', 'elasticnet'} or None, default='l2'
    The penalty alpha weighs, scikit-learn's: 'l2' (alpha / 2 ||w||^2), 'l1' (alpha ||w||_1,
    weights at exactly 0), 'elasticnet' (alpha (l1_ratio ||w||_1 + (1 - l1_ratio) / 2 ||w||^2)),
    None (no penalty). alpha=None is parsgd's auto L2 for 'l2' and 1/rows for the others. SGD
    takes the L1 term as Tsuruoka et al.'s cumulative penalty (optimizer 'sgd'; the others
    truncate, with few exact zeros); solver='cd' reaches the optimum and its zeros
    (docs/cli.md, "The L1 penalty")."""
L1_RATIO_DOC = """float, default=0.15
    penalty='elasticnet': alpha's share for the L1 term (0: 'l2', 1: 'l1')."""
PENALTIES = ("l2", "l1", "elasticnet", None)


class _Penalized:
    """scikit-learn's penalty and l1_ratio, shared out into parsgd's l2 and l1 settings."""

    def _settings(self, model, fixed, data):
        pairs = super()._settings(model, fixed, data)
        if self.penalty not in PENALTIES:
            raise ValueError(f"penalty={self.penalty!r}: expected one of "
                             f"{', '.join(map(repr, PENALTIES))}")
        if self.penalty == "l2":
            return pairs
        if self.penalty is None:
            return [(k, "0" if k == "l2" else v) for k, v in pairs]
        ratio = 1.0 if self.penalty == "l1" else self.l1_ratio
        if not (isinstance(ratio, (int, float)) and 0 <= ratio <= 1):
            raise ValueError(f"l1_ratio={self.l1_ratio!r}: expected a number in [0, 1]")
        alpha = self.alpha if self.alpha is not None else 1.0 / data.rows
        if not (isinstance(alpha, (int, float)) and alpha >= 0 and np.isfinite(alpha)):
            raise ValueError(f"alpha={self.alpha!r}: expected a finite number, 0 or more")
        l2 = repr(float(alpha * (1 - ratio)))
        return ([(k, l2 if k == "l2" else v) for k, v in pairs]
                + [("l1", repr(float(alpha * ratio)))])


LOSS_DOC = """str, default='log_loss'
    The loss, by scikit-learn's name: 'log_loss' (logistic regression; for more than two classes
    multinomial: parsgd's softmax model, one score per class), 'hinge' (linear SVM),
    'squared_hinge' (L2-loss SVM), 'squared_error' (least squares on -1/+1 targets). All but
    'log_loss' train one-vs-rest on more than two classes, as scikit-learn's SGDClassifier: one
    binary classifier a class, trained in one pass."""
VERBOSE_DOC = """int, default=0
    Print a line after every epoch (the metrics history_ keeps). Each epoch is then evaluated (its
    objective and training accuracy: a pass over the data); without, only the last is, and the
    others' history_ holds None there."""


def _linear_views(estimator, vector):
    """coef_ and intercept_ as read-only views of the model's parameters (feature-major: weight
    (j, k) at j * K + k, the K biases last)."""
    model = estimator._model
    params, d, k = model.params, model.features, model.outputs
    if vector:
        estimator.coef_ = _base.read_only(params[:d])
    else:
        estimator.coef_ = _base.read_only(params[:d * k].reshape(d, k).T)
    estimator.intercept_ = _base.read_only(params[d * k:])


@_base.with_keywords(own=[("loss", "log_loss", LOSS_DOC), ("penalty", "l2", PENALTY_DOC),
                          ("l1_ratio", 0.15, L1_RATIO_DOC), ("verbose", 0, VERBOSE_DOC),
                          ("class_weight", None, CLASS_WEIGHT_DOC), *_base.EARLY_STOPPING],
                     names=_settings.LINEAR_NAMES,
                     exclude={"hidden", "mlp-backend", "loss-epsilon", *_settings.MLP_ONLY})
class SGDClassifier(_Penalized, _classifier.ParsgdClassifier):
    """Linear classifiers trained by parsgd's parallel SGD (or coordinate descent, or Newton's
    method for dense or ill-conditioned data: `solver`).

    Labels may be any values (strings too); classes_ holds them sorted. Two classes train a
    binary model (classes_[1] positive); more train softmax with loss='log_loss' and one-vs-rest
    with the other losses. n_jobs threads train (None: one, -1: every core) under `scheme`.

    Fitted attributes: classes_, coef_ (n_classes or 1 x n_features, a read-only view of the
    model), intercept_, n_features_in_, n_iter_ (epochs run), history_ (one dict of metrics per
    epoch), settings_ (what the run chose for every 'auto': scheme, step size, l2, ...).
    """

    _views = ("coef_", "intercept_")

    def _model_kind(self, n_classes):
        if self.loss not in BINARY_MODELS:
            raise ValueError(f"loss={self.loss!r}: expected one of "
                             f"{', '.join(map(repr, BINARY_MODELS))}")
        if n_classes == 2:
            return BINARY_MODELS[self.loss], True
        if self.loss == "log_loss":
            return "softmax", False
        return BINARY_MODELS[self.loss], False  # one-vs-rest

    def _set_views(self):
        _linear_views(self, vector=False)

    def decision_function(self, X):
        """Scores: one per row (n_samples,) for two classes (positive: classes_[1]), one per
        class (n_samples, n_classes) for more."""
        scores = self._scores(X).astype(np.float64)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    @available_if(lambda self: self.loss == "log_loss")
    def predict_proba(self, X):
        """Class probabilities (n_samples, n_classes), classes as classes_ orders them."""
        return self._probabilities(X)

    @available_if(lambda self: self.loss == "log_loss")
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


@_base.with_keywords(
    own=[("loss", "squared_error", """{'squared_error', 'huber', 'epsilon_insensitive'}, default='squared_error'
    The loss of the residual r = w.x + b - y, scikit-learn's: least squares r^2 / 2; Huber's
    (r^2 / 2 within epsilon, linear beyond: robust to outlying targets); or support vector
    regression's max(0, |r| - epsilon)."""), ("penalty", "l2", PENALTY_DOC),
    ("l1_ratio", 0.15, L1_RATIO_DOC), ("verbose", 0, VERBOSE_DOC), *_base.EARLY_STOPPING],
    names=_settings.REGRESSOR_NAMES,
    exclude={"hidden", "mlp-backend", "shrinking", "multiclass", *_settings.MLP_ONLY})
class SGDRegressor(_Penalized, RegressorMixin, _base.ParsgdEstimator):
    """Linear regression (least squares, Huber, epsilon-insensitive) trained by parsgd's parallel
    SGD (or, for least squares, coordinate descent or Newton's method: solver='cd', 'newton').
    Targets are fitted as float32.

    Fitted attributes: coef_ (n_features,), intercept_ (1,), n_features_in_, n_iter_, history_
    (objective, loss and step size per epoch), settings_.
    """

    _views = ("coef_", "intercept_")

    def fit(self, X, y, sample_weight=None):
        """Trains a new model on X, y, each row weighing its sample_weight (None: 1)."""
        with _base.kept_on_failure(self):
            X, y = _base.validate_data(self, X, y, accept_sparse="csr", dtype=np.float32,
                                       y_numeric=True)
            weights = _base.row_weights(X, sample_weight)
            result, history = self._train(self._dataset(X, y, weights), self._model_name())
            self._take(result, history)
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """One epoch over the batch, from the current model (as SGDClassifier.partial_fit)."""
        first = not hasattr(self, "_model")
        with _base.kept_on_failure(self):
            X, y = _base.validate_data(self, X, y, accept_sparse="csr", dtype=np.float32,
                                       y_numeric=True, reset=first)
            weights = _base.row_weights(X, sample_weight)
            result, history = self._train(self._dataset(X, y, weights), self._model_name(),
                                          None if first else self._model, epochs="1")
            self._take(result, history)
        return self

    def predict(self, X):
        return self._scores(X)[:, 0].astype(np.float64)

    def _model_name(self):
        if self.loss not in REGRESSION_MODELS:
            raise ValueError(f"loss={self.loss!r}: SGDRegressor's losses are "
                             f"{', '.join(map(repr, REGRESSION_MODELS))}")
        return REGRESSION_MODELS[self.loss]

    @staticmethod
    def _dataset(X, y, weights=None):
        targets = np.asarray(y, dtype=np.float32)
        if not np.isfinite(targets).all():
            raise ValueError("y holds values beyond float32's range (parsgd fits float32 targets)")
        return _data.as_dataset(X, targets, real_labels=True, weights=weights)

    def _take(self, result, history):
        # Real-valued targets have no classes: an epoch left unevaluated has no accuracy either.
        for epoch in history:
            epoch.pop("train_accuracy", None)
        super()._take(result, history)

    def _set_views(self):
        _linear_views(self, vector=True)


