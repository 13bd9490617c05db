"""The same settings and data give the same model in Python as on the command line, bit for bit,
under the deterministic schemes; and partial_fit continues a model as `parsgd train --init` does."""

import subprocess

import numpy as np
import pytest

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from parsgd import _parsgd
from conftest import make_problem


def write_libsvm(path, X, y):
    # repr of a float32's double is its shortest exact decimal: the CLI reads the same floats.
    with open(path, "w") as f:
        for row, label in zip(X, y):
            entries = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label} {entries}\n")


def train_cli(cli, tmp_path, name, X, y, *flags):
    data = tmp_path / f"{name}.svm"
    model = tmp_path / f"{name}.model"
    write_libsvm(data, X, y)
    subprocess.run([cli, "train", "--train", str(data), "--save", str(model), "--quiet", *flags],
                   check=True, capture_output=True)
    return _parsgd.Model.load(str(model))


CASES = [
    # (name, estimator, CLI flags, classes)
    ("logistic-sequential", parsgd.SGDClassifier(scheme="sequential", deterministic=True,
                                                 max_iter=4, random_state=7),
     ["--model", "logistic", "--scheme", "sequential", "--deterministic", "--epochs", "4",
      "--seed", "7", "--threads", "1"], 2),
    ("hinge-sync-adam", parsgd.SGDClassifier(loss="hinge", scheme="sync", deterministic=True,
                                             n_jobs=2, batch_size=16, optimizer="adam",
                                             eta0=0.01, max_iter=3, random_state=3),
     ["--model", "hinge", "--scheme", "sync", "--deterministic", "--threads", "2", "--batch",
      "16", "--optimizer", "adam", "--learning-rate", "0.01", "--epochs", "3", "--seed", "3"], 2),
    ("softmax-average-nobias", parsgd.SGDClassifier(scheme="average", deterministic=True,
                                                    n_jobs=2, period=4, fit_intercept=False,
                                                    alpha=0.001, max_iter=3, random_state=1),
     ["--model", "softmax", "--scheme", "average", "--deterministic", "--threads", "2",
      "--period", "4", "--bias", "off", "--l2", "0.001", "--epochs", "3", "--seed", "1"], 3),
    ("mlp-sequential", parsgd.MLPClassifier(hidden_layer_sizes=(8,), scheme="sequential",
                                            deterministic=True, max_iter=2, random_state=5),
     ["--model", "mlp", "--hidden", "8", "--scheme", "sequential", "--deterministic",
      "--threads", "1", "--epochs", "2", "--seed", "5"], 3),
]


@pytest.mark.parametrize("name,estimator,flags,classes", CASES, ids=[c[0] for c in CASES])
def test_the_same_settings_give_the_cli_model_bit_for_bit(cli, tmp_path, name, estimator, flags,
                                                          classes):
    X, y = make_problem(400, 12, classes, seed=11)
    labels = y + 1  # labels 1..K in the file and in Python: the same classes either way
    reference = train_cli(cli, tmp_path, name, X, labels, *flags)
    fitted = estimator.fit(X, labels)
    assert fitted._model.kind == reference.kind
    assert np.array_equal(fitted._model.params, reference.params)
    assert reference.params.size > 0 and np.any(reference.params != 0)
    if isinstance(fitted, parsgd.SGDClassifier):
        d, k = reference.features, reference.outputs
        w = reference.params
        assert np.array_equal(fitted.coef_, w[:d * k].reshape(d, k).T)
        assert np.array_equal(fitted.intercept_, w[d * k:])


def test_a_cli_model_file_predicts_as_the_estimator(cli, tmp_path):
    X, y = make_problem(300, 10, 2, seed=12)
    flags = ["--model", "logistic", "--scheme", "sequential", "--deterministic", "--epochs", "2",
             "--seed", "2", "--threads", "1"]
    train_cli(cli, tmp_path, "m", X, np.where(y == 1, 1, -1), *flags)
    clf = parsgd.SGDClassifier(scheme="sequential", deterministic=True, max_iter=2,
                               random_state=2).fit(X, y)
    test = tmp_path / "test.svm"
    write_libsvm(test, X[:50], np.where(y[:50] == 1, 1, -1))
    out = subprocess.run([cli, "predict", str(tmp_path / "m.model"), str(test), "--scores"],
                         check=True, capture_output=True, text=True).stdout
    cli_scores = np.array([float(line) for line in out.split()], dtype=np.float32)
    assert np.array_equal(cli_scores, clf.decision_function(X[:50]).astype(np.float32))


def test_partial_fit_continues_as_train_init(cli, tmp_path):
    X, y = make_problem(600, 10, 3, seed=13)
    first, second = slice(0, 300), slice(300, 600)
    params = dict(scheme="sequential", deterministic=True, random_state=4, alpha=0.001,
                  learning_rate="constant", eta0=0.05)
    clf = parsgd.SGDClassifier(**params)
    clf.partial_fit(X[first], y[first], classes=[0, 1, 2])
    flags = ["--model", "softmax", "--scheme", "sequential", "--deterministic", "--seed", "4",
             "--threads", "1", "--l2", "0.001", "--schedule", "constant", "--learning-rate",
             "0.05", "--epochs", "1"]
    one = train_cli(cli, tmp_path, "one", X[first], y[first], *flags)
    assert np.array_equal(clf._model.params, one.params)
    clf.partial_fit(X[second], y[second])
    two = train_cli(cli, tmp_path, "two", X[second], y[second], *flags, "--init",
                    str(tmp_path / "one.model"))
    assert np.array_equal(clf._model.params, two.params)
    assert not np.array_equal(one.params, two.params)


def test_a_model_of_text_classes_keeps_their_names(cli, tmp_path):
    data = tmp_path / "two.csv"
    data.write_text("y,x\nno,0\nyes,1\nno,0.1\nyes,0.9\n")
    model = tmp_path / "two.model"
    subprocess.run([cli, "train", "--train", str(data), "--save", str(model), "--quiet"],
                   check=True, capture_output=True)
    assert _parsgd.Model.load(str(model)).labels == ["no", "yes"]
