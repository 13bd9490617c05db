"""scikit-learn's own estimator checks for every estimator. A check that cannot apply is marked by
the estimator's tags (_more_tags: binary_only for the binary losses, _xfail_checks with the reason
for the check of rows of weight 0), never skipped here."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd

ESTIMATORS = [
    parsgd.SGDClassifier(),
    parsgd.SGDClassifier(loss="hinge"),
    parsgd.SGDRegressor(),
    # The default 256-128 network and its automatic epochs (about 10^6 samples) are far more than
    # the checks' few hundred rows need; one small layer keeps the suite short.
    parsgd.MLPClassifier(hidden_layer_sizes=(16,), max_iter=100),
]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_check(estimator, check):
    check(estimator)
