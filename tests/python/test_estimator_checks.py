"""scikit-learn's own estimator checks for every estimator, under the scikit-learn this Python has
(Debian's 1.2 in the build's suite, today's in scripts/wheel_check.sh's venv). The one check that
cannot apply, of rows of weight 0, is expected to fail with its reason (_base.ZERO_WEIGHT_CHECK):
through the estimators' _xfail_checks tag before scikit-learn 1.6, through
parametrize_with_checks' expected_failed_checks since; never skipped here."""

import inspect

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


EXPECTED = {}
if "expected_failed_checks" in inspect.signature(parametrize_with_checks).parameters:
    from parsgd._base import ZERO_WEIGHT_CHECK

    EXPECTED["expected_failed_checks"] = lambda estimator: ZERO_WEIGHT_CHECK


@parametrize_with_checks(ESTIMATORS, **EXPECTED)
def test_scikit_learn_check(estimator, check):
    check(estimator)
