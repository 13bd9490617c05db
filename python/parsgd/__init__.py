"""parsgd for Python: scikit-learn estimators over parsgd's parallel stochastic optimisation.

    import parsgd
    clf = parsgd.SGDClassifier(n_jobs=-1, scheme="hogwild").fit(X, y)   # X: scipy CSR or numpy
    clf.predict_proba(X_test)

SGDClassifier, SGDRegressor and MLPClassifier follow scikit-learn's conventions (clone,
pipelines, grid search, pickling); their keywords are parsgd's training settings, named as
scikit-learn names them where it has a name (alpha, max_iter, n_jobs, random_state,
learning_rate, eta0, batch_size, fit_intercept) and as parsgd does elsewhere (scheme, order,
period, optimizer, solver, deterministic, ...). Training releases the GIL; Ctrl-C stops it and
leaves the estimator as it was.

    X, y = parsgd.load_file("reviews.txt")   # LIBSVM, CSV, fastText's or VW's text, IDX, .bin
"""

from ._files import load_file
from ._linear import SGDClassifier, SGDRegressor
from ._mlp import MLPClassifier

__all__ = ["SGDClassifier", "SGDRegressor", "MLPClassifier", "load_file"]
