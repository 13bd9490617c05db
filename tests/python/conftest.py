"""The Python module's tests (pytest; ctest runs them with the build's package on PYTHONPATH).
Each file skips itself when the module is not importable (not built: PARSGD_PYTHON=off, or no
pybind11-dev / python3-dev; or build/python not on PYTHONPATH)."""

import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """The parsgd program of the same build (ctest sets PARSGD_CLI)."""
    path = os.environ.get("PARSGD_CLI", str(REPO / "build" / "parsgd"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"no parsgd program at {path} (set PARSGD_CLI)")
    return path


def make_problem(rows, features, classes, seed, density=0.3):
    """A seeded classification problem: float32 rows with about `density` of them nonzero,
    labels from hidden linear scores (argmax of `classes` of them)."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((rows, features)).astype(np.float32)
    X[rng.uniform(size=X.shape) > density] = 0
    X[:, -1] = rng.uniform(0.5, 1.0, size=rows)  # every column holds a value: files keep the width
    scores = X[:, :-1] @ rng.standard_normal((features - 1, classes))
    return X, scores.argmax(axis=1)
