"""The estimators' keywords, derived from the library's settings table.

Every training setting is declared once, in the C++ table (include/parsgd/config/settings.hpp),
with its type, range, the words that stand for special values ("auto") and a line of help. An
estimator's keyword is the setting's key with "_" for "-", or scikit-learn's name for it where
scikit-learn has one (``alpha`` for ``l2``, ``max_iter`` for ``epochs``, ...). The keyword's
default, its conversion to the setting's text and its docstring line all come from the table;
``None`` stands for the word "auto" (the library derives the value from the data).
"""

import numbers
import re

import numpy as np
from sklearn.utils import check_random_state

from . import _parsgd

TABLE = {entry["key"]: entry for entry in _parsgd.settings()}

# scikit-learn's names for the settings that have one (SGDClassifier, SGDRegressor).
LINEAR_NAMES = {
    "l2": "alpha",
    "epochs": "max_iter",
    "seed": "random_state",
    "threads": "n_jobs",
    "workers": "n_workers",
    "schedule": "learning_rate",
    "learning-rate": "eta0",
    "batch": "batch_size",
    "bias": "fit_intercept",
    "model": "loss",
    "patience": "n_iter_no_change",
    "asgd": "average",
}
# SGDRegressor's: scikit-learn's epsilon is the width of its losses huber and epsilon_insensitive,
# so the optimisers' epsilon (AdaGrad, RMSProp, Adam) takes another name there.
REGRESSOR_NAMES = dict(LINEAR_NAMES,
                       **{"loss-epsilon": "epsilon", "epsilon": "optimizer_epsilon"})
# MLPClassifier's: its initial step is learning_rate_init, its Adam decays beta_1 and beta_2.
MLP_NAMES = dict(
    LINEAR_NAMES,
    **{
        "learning-rate": "learning_rate_init",
        "hidden": "hidden_layer_sizes",
        "beta1": "beta_1",
        "beta2": "beta_2",
    },
)
# The MLP's model partitions' own settings (scheme pipeline, subnet): not the linear estimators'.
MLP_ONLY = {"micro-batches", "skeleton-ratio"}
# Settings no estimator takes: the model (each estimator's own `loss` or kind decides it), the
# command line's runs across processes (mpirun), and the class weights (the classifiers' own
# class_weight, scikit-learn's: by the labels y holds, made row weights in Python), and the L1
# strength (the linear estimators' penalty and l1_ratio, scikit-learn's, share alpha out), and
# the held-out share (scikit-learn's early_stopping and validation_fraction, the estimators' own).
NEVER = {"model", "ranks-scheme", "ranks-period", "class-weight", "l1", "validation-fraction"}


class Keyword:
    """One estimator keyword standing for one setting of the table."""

    def __init__(self, key, name):
        self.key = key
        self.name = name
        self.entry = TABLE[key]
        self.default = _default(self)

    def text(self, value):
        """The setting's text for `value`, as the table parses it (range checks are the
        library's)."""
        special = _SPECIAL.get(self.key)
        if special is not None:
            return special(self, value)
        return _text(self, value)

    def doc(self, spelling):
        """Its numpydoc entry; the help's command-line flags (--key) spelled as keywords."""
        if self.key in _SPECIAL_DOC:
            return f"{self.name} : {_SPECIAL_DOC[self.key]} (parsgd setting `{self.key}`)"
        kind = {"int": "int", "count": "int", "real": "float", "choice": "str",
                "switch": "bool", "sizes": "tuple of int", "text": "str"}[self.entry["type"]]
        words = [w for w, _ in self.entry["words"]]
        if "auto" in words:
            kind += " or None"
            words.remove("auto")
        if words:
            kind += " or " + " or ".join(repr(w) for w in words)
        choices = ""
        if self.entry["choices"]:
            choices = "\n        " + "\n        ".join(
                f"{name!r}: {help}" for name, help in self.entry["choices"])
        text = (f"{self.name} : {kind}, default={self.default!r}\n"
                f"    {self.entry['help']} (parsgd setting `{self.key}`){choices}")
        return re.sub(r"--([a-z][a-z0-9-]*)",
                      lambda m: spelling.get(m[1], m[1].replace("-", "_")) if m[1] in TABLE
                      else m[0], text)


def _default(keyword):
    entry = keyword.entry
    if keyword.key == "threads":
        return None  # scikit-learn's n_jobs=None: one thread
    if keyword.key == "seed":
        return None  # scikit-learn's random_state=None: a seed drawn from numpy's global state
    if keyword.key == "bias":
        return entry["default"] == "on"
    if keyword.key == "asgd":
        return False  # scikit-learn's average=False
    value = entry["default"]
    if entry["type"] == "sizes":
        return tuple(int(v) for v in value.split(","))
    if entry["type"] != "choice" and value == "auto":
        return None
    return value


def _refuse(keyword, expected, value):
    raise ValueError(f"{keyword.name}: expected {expected}, got {value!r}")


def _text(keyword, value):
    entry = keyword.entry
    words = [w for w, _ in entry["words"]]
    if value is None:
        if "auto" in words:
            return "auto"
        _refuse(keyword, "a value (None means 'auto', which this setting has not)", value)
    if isinstance(value, str) and value in words:
        return value
    kind = entry["type"]
    if kind == "switch":
        if isinstance(value, (bool, np.bool_)):
            return "true" if value else "false"
        _refuse(keyword, "True or False", value)
    if kind in ("int", "count"):
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            return str(int(value))
        _refuse(keyword, "an integer" + (" or None" if "auto" in words else ""), value)
    if kind == "real":
        if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
            return repr(float(value))
        _refuse(keyword, "a number" + (" or None" if "auto" in words else ""), value)
    if kind == "choice":
        if isinstance(value, str):
            return value
        _refuse(keyword, "one of " + ", ".join(repr(n) for n, _ in entry["choices"]), value)
    if kind == "sizes":
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, (tuple, list)) and all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
            return ",".join(str(int(v)) for v in value)
        _refuse(keyword, "a tuple of layer sizes such as (256, 128)", value)
    raise AssertionError(f"unknown setting type {kind}")


def _threads(keyword, n_jobs):
    """scikit-learn's n_jobs: None is one thread, -1 every core, -2 all but one, ..."""
    if n_jobs is None:
        return "1"
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        _refuse(keyword, "None, a positive integer or -1 (every core), -2 (all but one), ...",
                n_jobs)
    if n_jobs == -1:
        return "auto"
    if n_jobs < 0:
        return str(max(1, _parsgd.available_cores() + 1 + int(n_jobs)))
    return str(int(n_jobs))


def _seed(keyword, random_state):
    """An int is the seed itself (as parsgd train --seed); None or a RandomState draws one."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            _refuse(keyword, "a non-negative integer, a RandomState or None", random_state)
        return str(int(random_state))
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return str(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    _refuse(keyword, "a non-negative integer, a RandomState or None", random_state)


def _bias(keyword, fit_intercept):
    if isinstance(fit_intercept, (bool, np.bool_)):
        return "on" if fit_intercept else "off"
    _refuse(keyword, "True or False", fit_intercept)


def _average(keyword, average):
    """scikit-learn's average: True or False; parsgd's start (an epoch) as a float. scikit-learn's
    integer counts samples, so an integer is refused rather than read as epochs."""
    if isinstance(average, (bool, np.bool_)):
        return "on" if average else "off"
    if isinstance(average, numbers.Real) and not isinstance(average, numbers.Integral):
        return repr(float(average))
    _refuse(keyword, "True, False or the epoch averaging starts at as a float (scikit-learn's "
            "integer counts samples)", average)


_SPECIAL = {"threads": _threads, "seed": _seed, "bias": _bias, "asgd": _average}
_SPECIAL_DOC = {
    "threads": "int or None, default=None\n    Worker threads, as scikit-learn counts them: None one, "
               "-1 every core this process may use, -2 all but one, ...",
    "seed": "int, RandomState or None, default=None\n    Seed of every random choice (the sample "
            "order, the MLP's initial weights): an int is the seed itself (parsgd train --seed); "
            "None or a RandomState draws one",
    "asgd": "bool or float, default=False\n    Averaged SGD: coef_ and intercept_ are the mean "
            "of the iterates (True: from the end of the first epoch, or the start of a one-epoch "
            "run; a float: from that epoch on, 0.0 from the first step as scikit-learn's "
            "average=True). Lazy on sparse rows; not under the replica schemes",
    "bias": "bool, default=True\n    Train the bias b of z = W^T x + b (never regularised); False "
            "holds it at 0, the problem without a bias (bias on or off)",
}


def keywords(names, exclude=()):
    """The keywords of every table setting but those in NEVER and `exclude`, named by `names`
    where it has the key, else by the key with '_' for '-'."""
    out = []
    for key in TABLE:
        if key in NEVER or key in exclude:
            continue
        out.append(Keyword(key, names.get(key, key.replace("-", "_"))))
    return out


def threads(n_jobs):
    """The library's thread count for n_jobs (0: every core)."""
    text = _threads(Keyword("threads", "n_jobs"), n_jobs)
    return 0 if text == "auto" else int(text)
