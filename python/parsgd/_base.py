"""What every parsgd estimator shares: its keywords (from the settings table), a training run on
the library's workers, the fitted model, and pickling through the library's model file."""

import contextlib
import os
import tempfile

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _data, _parsgd, _settings

try:  # scikit-learn 1.6 and later: a function
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # before: the estimator's method
    _validate_data = None


EARLY_STOPPING = [
    ("early_stopping", False, """bool, default=False
    Hold out validation_fraction of the rows (of each class, by random_state) and measure them
    after every epoch; stop after n_iter_no_change epochs without a better validation loss
    (validation_metric) and keep the best epoch's model (scikit-learn's early stopping; fit
    only)."""),
    ("validation_fraction", 0.1, """float, default=0.1
    early_stopping=True: the share of the rows held out."""),
    ("refit", False, """bool, default=False
    early_stopping=True: once stopped, train again on all the rows (none held out) for the best
    epoch's count, the step replayed as the first run took it (the command line's --refit);
    history_ holds the first run's epochs, then the refit's, and n_iter_ is the refit's."""),
]


def with_keywords(own, names, exclude=()):
    """Class decorator: an __init__ taking the estimator's own keywords (`own`: (name, default,
    doc) triples) and one keyword per setting of the table (_settings.keywords(names, exclude)),
    all stored as given (scikit-learn's rule: no validation before fit); their documentation is
    appended to the class's docstring. The __init__ is generated as dataclasses generate theirs,
    so that scikit-learn's get_params sees every keyword in its signature."""

    def decorate(cls):
        table = _settings.keywords(names, exclude)
        params = [(name, default) for name, default, _ in own]
        params += [(k.name, k.default) for k in table]
        source = ("def __init__(self, *, "
                  + ", ".join(f"{name}=_defaults[{name!r}]" for name, _ in params) + "):\n"
                  + "".join(f"    self.{name} = {name}\n" for name, _ in params))
        namespace = {"_defaults": dict(params)}
        exec(source, namespace)  # noqa: S102 - the text is made above from the table's keys
        init = namespace["__init__"]
        init.__qualname__ = f"{cls.__name__}.__init__"
        init.__module__ = cls.__module__
        cls.__init__ = init
        cls._keywords = table
        cls._spelling = {k.key: k.name for k in table}
        cls._spelling["model"] = "loss"
        docs = [f"{name} : {doc}" for name, _, doc in own]
        docs += [k.doc(cls._spelling) for k in table]
        cls.__doc__ = (cls.__doc__ or "") + "\n    Parameters\n    ----------\n" + "\n".join(
            "    " + line for doc in docs for line in doc.split("\n")) + "\n"
        return cls

    return decorate


@contextlib.contextmanager
def kept_on_failure(estimator):
    """On any exception (a KeyboardInterrupt included) the estimator is put back as it was."""
    before = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(before)
        raise


def model_bytes(model, settings_text):
    """The model file's bytes (io/model_file.hpp)."""
    with tempfile.TemporaryDirectory(prefix="parsgd-") as folder:
        path = os.path.join(folder, "model.bin")
        model.save(path, settings_text)
        with open(path, "rb") as f:
            return f.read()


def model_from_bytes(data):
    with tempfile.TemporaryDirectory(prefix="parsgd-") as folder:
        path = os.path.join(folder, "model.bin")
        with open(path, "wb") as f:
            f.write(data)
        return _parsgd.Model.load(path)


def read_only(array):
    array.setflags(write=False)
    return array


def validate_data(estimator, *args, **kwargs):
    """scikit-learn's validation of fit's and predict's input (X, y where given, and
    n_features_in_), under every scikit-learn the module runs with."""
    if _validate_data is not None:
        return _validate_data(estimator, *args, **kwargs)
    return estimator._validate_data(*args, **kwargs)


# The check of rows of weight 0 cannot pass, as it cannot for scikit-learn's own SGD estimators: SGD
# visits a row of weight 0 (it takes its place in the sample order and the step count), and the
# data-derived settings (alpha=None: 1/rows, the step size) count it. The check's name before
# scikit-learn 1.6, and its two checks since.
ZERO_WEIGHT_REASON = ("SGD visits a row of weight 0: the sample order, the step count and "
                      "alpha=None (1/rows) see it, so it is not a row left out")
ZERO_WEIGHT_CHECK = {name: ZERO_WEIGHT_REASON for name in (
    "check_sample_weights_invariance", "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data")}


class ParsgdEstimator(BaseEstimator):
    """The base of the estimators. Subclasses set _views (the fitted attributes that are views
    of the model's parameters) and write _set_views()."""

    _keywords = ()
    _spelling = {}
    _views = ()

    def __sklearn_tags__(self):
        """The estimator's tags for scikit-learn 1.6 and later: X may be sparse (CSR). (The check
        expected to fail is named to parametrize_with_checks there.)"""
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _more_tags(self):
        """The same for scikit-learn before 1.6, with the check expected to fail."""
        return {"_xfail_checks": ZERO_WEIGHT_CHECK}

    def _settings(self, model, fixed, data):  # noqa: ARG002 - data: for the subclasses'
        pairs = [("model", model)]
        # The adaptive schedule counts stalled epochs too. Under 'auto' (adaptive or linear, as
        # the data decides) n_iter_no_change goes with early stopping or tol only: the default 5
        # elsewhere.
        stopping = (getattr(self, "early_stopping", False) or getattr(self, "tol", None)
                    or getattr(self, "learning_rate", None) == "adaptive")
        for k in self._keywords:
            # n_iter_no_change where no rule counts epochs: scikit-learn takes it silently.
            if k.key == "patience" and not stopping:
                continue
            if k.key not in fixed:
                pairs.append((k.key, k.text(getattr(self, k.name))))
        # scikit-learn's early stopping: validation_fraction of the rows held out in fit (not in
        # partial_fit, as scikit-learn).
        if getattr(self, "early_stopping", False) and "epochs" not in fixed:
            fraction = self.validation_fraction
            if not (isinstance(fraction, (int, float)) and 0 < fraction < 1):
                raise ValueError(f"validation_fraction={fraction!r}: expected a number in (0, 1)")
            pairs.append(("validation-fraction", repr(float(fraction))))
        return pairs + list(fixed.items())

    def _train(self, data, model, start=None, **fixed):
        """One training run; returns the library's result and the epochs' metrics. `fixed`:
        settings the call decides (partial_fit's one epoch)."""
        history = []

        def on_epoch(epoch):
            history.append(epoch)
            if self.verbose:
                print(f"-- epoch {epoch['epoch']}: objective {epoch['objective']:.6f}, "
                      f"train loss {epoch['progressive_loss']:.6f}, "
                      f"learning rate {epoch['learning_rate']:.4g}, "
                      f"{epoch['elapsed_seconds']:.2f} s", flush=True)

        settings = self._settings(model, fixed, data)
        try:
            # The objective of every epoch costs a pass over the data each: only where printed.
            refit = bool(getattr(self, "refit", False)) and "epochs" not in fixed
            if refit and not getattr(self, "early_stopping", False):
                raise ValueError("refit=True trains again on all the rows for the best epoch's "
                                 "count after early stopping: it needs early_stopping=True")
            result = _parsgd.train(settings, data, start, self._spelling, on_epoch,
                                   bool(self.verbose), refit)
        except ValueError as e:
            # The library writes a switch of its own as `bias on|off`: fit_intercept is a bool.
            text = str(e).replace("fit_intercept off", "fit_intercept=False")
            raise ValueError(text.replace("fit_intercept on", "fit_intercept=True")) from None
        return result, history

    def _take(self, result, history):
        """The fitted state of a finished run."""
        self._model = result["model"]
        self._settings_text = result["settings_text"]
        self.settings_ = result["settings"]
        self.n_iter_ = result["epochs_done"]
        self.history_ = history
        self._set_views()

    def _prediction_data(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float32, reset=False)
        return _data.as_dataset(X)

    def _threads(self):
        return _settings.threads(self.n_jobs)

    def _scores(self, X):
        data = self._prediction_data(X)  # first: it checks that the estimator is fitted
        return self._model.scores(data, self._threads())

    def __getstate__(self):
        state = dict(super().__getstate__())
        model = state.pop("_model", None)
        for name in self._views:
            state.pop(name, None)
        if model is not None:
            state["_model_file"] = model_bytes(model, state.get("_settings_text", ""))
        return state

    def __setstate__(self, state):
        state = dict(state)
        blob = state.pop("_model_file", None)
        super().__setstate__(state)
        if blob is not None:
            self._model = model_from_bytes(blob)
            self._set_views()


def row_weights(X, sample_weight, class_weight=None, classes=None, indices=None, partial=False):
    """Each row's weight, scikit-learn's way: sample_weight (checked as scikit-learn checks it,
    0 or more) times the weight class_weight gives its class (a dict by label, or 'balanced':
    n / (k n_c)); None where both are None. The library scales the weights to a mean of 1 over
    the rows of the call (in partial_fit: over the batch, so weights count against the rest of
    their batch), so the loss is the weighted mean and the step size means what it means
    unweighted."""
    weights = None
    if sample_weight is not None:
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if (weights < 0).any():
            raise ValueError("sample_weight: every weight must be 0 or more")
    if class_weight is not None:
        if partial and class_weight == "balanced":
            raise ValueError("class_weight 'balanced' is not supported for partial_fit: the "
                             "classes' rows are not known in advance; give a dict of weights")
        indices = np.asarray(indices, dtype=np.intp)
        per_class = compute_class_weight(class_weight, classes=np.asarray(classes),
                                         y=np.asarray(classes)[indices])
        if not (np.isfinite(per_class) & (per_class >= 0)).all():
            raise ValueError(f"class_weight: every weight must be finite, 0 or more, got "
                             f"{class_weight!r}")
        weights = per_class[indices] if weights is None else weights * per_class[indices]
    return weights
