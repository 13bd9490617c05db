"""What the library reads: scipy CSR float32 in place, everything else converted once, and bad
arrays refused with the row and column."""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("parsgd._parsgd", reason="the parsgd Python module is not built")

import parsgd
from parsgd import _base, _data, _parsgd
from conftest import make_problem


def test_csr_float32_is_borrowed_not_copied():
    X, y = make_problem(200, 30, 2, seed=1)
    Xs = sp.csr_matrix(X)
    assert Xs.dtype == np.float32 and Xs.indices.dtype == np.int32
    labels = y.astype(np.float32)
    data = _data.as_dataset(Xs, labels)
    assert data.values_address == Xs.data.ctypes.data
    assert data.indices_address == Xs.indices.ctypes.data
    assert data.labels_address == labels.ctypes.data
    assert (data.rows, data.features, data.nnz) == (200, 30, Xs.nnz)


def test_fit_validates_csr_float32_without_a_copy():
    # The estimators' validation (scikit-learn's check_array) hands the same arrays on.
    X, y = make_problem(100, 10, 2, seed=2)
    Xs = sp.csr_matrix(X)
    checked = _base.validate_data(parsgd.SGDClassifier(), Xs, accept_sparse="csr",
                                  dtype=np.float32)
    assert checked.data.ctypes.data == Xs.data.ctypes.data
    assert checked.indices.ctypes.data == Xs.indices.ctypes.data


def test_fit_trains_on_the_callers_arrays(monkeypatch):
    # The Dataset the library trains on, seen on its way into the training run.
    X, y = make_problem(300, 20, 3, seed=7)
    Xs = sp.csr_matrix(X)
    seen = []
    train = _parsgd.train

    def spy(settings, data, *rest):
        seen.append((data.values_address, data.indices_address, data.nnz))
        return train(settings, data, *rest)

    monkeypatch.setattr(_parsgd, "train", spy)
    parsgd.SGDClassifier(max_iter=1).fit(Xs, y)
    parsgd.SGDClassifier(max_iter=1).partial_fit(Xs, y, classes=[0, 1, 2])
    parsgd.SGDRegressor(max_iter=1).fit(Xs, y.astype(float))
    assert seen == [(Xs.data.ctypes.data, Xs.indices.ctypes.data, Xs.nnz)] * 3


def test_other_layouts_are_converted_once():
    X, y = make_problem(50, 8, 2, seed=3)
    dense = _data.as_dataset(X)  # dense -> CSR, zeros dropped
    assert dense.nnz == np.count_nonzero(X)
    wide = sp.csr_matrix(X.astype(np.float64))
    assert _data.as_dataset(wide.astype(np.float32)).nnz == np.count_nonzero(X)
    big = sp.csr_matrix(X)
    big.indices = big.indices.astype(np.int64)
    big.indptr = big.indptr.astype(np.int64)
    converted = _data.as_dataset(big)
    assert converted.indices_address != big.indices.ctypes.data  # a uint32 copy
    assert converted.values_address == big.data.ctypes.data


def test_dense_sparse_and_unsorted_input_train_the_same_model():
    X, y = make_problem(300, 20, 3, seed=4)
    Xs = sp.csr_matrix(X)
    shuffled = Xs.copy()
    rng = np.random.RandomState(0)
    for r in range(shuffled.shape[0]):  # reverse some rows' entries: unsorted indices
        a, b = shuffled.indptr[r], shuffled.indptr[r + 1]
        if rng.uniform() < 0.5:
            shuffled.indices[a:b] = shuffled.indices[a:b][::-1].copy()
            shuffled.data[a:b] = shuffled.data[a:b][::-1].copy()
    shuffled.has_sorted_indices = False
    shuffled.has_canonical_format = False
    params = dict(random_state=0, max_iter=3, scheme="sequential")
    models = [parsgd.SGDClassifier(**params).fit(data, y) for data in (X, Xs, shuffled)]
    for m in models[1:]:
        assert np.array_equal(m.coef_, models[0].coef_)
        assert np.array_equal(m.intercept_, models[0].intercept_)


def test_bad_arrays_are_refused_naming_the_row():
    indptr = np.array([0, 2, 3], dtype=np.int32)
    values = np.ones(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"row 0: column index 0 after 1: .*strictly ascending"):
        _parsgd.Dataset(indptr, np.array([1, 0, 2], dtype=np.int32), values, None, 4)
    with pytest.raises(ValueError, match=r"row 1: column index 7 is outside \[0, 4\)"):
        _parsgd.Dataset(indptr, np.array([0, 1, 7], dtype=np.int32), values, None, 4)
    with pytest.raises(ValueError, match=r"row 1: column index -2 is outside"):
        _parsgd.Dataset(indptr, np.array([0, 1, -2], dtype=np.int32), values, None, 4)
    bad = values.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="row 1, column 2: value nan is not finite"):
        _parsgd.Dataset(indptr, np.array([0, 1, 2], dtype=np.int32), bad, None, 4)
    with pytest.raises(ValueError, match="indptr runs from 0 to 3, not from 0 to the 2 entries"):
        _parsgd.Dataset(indptr, np.array([0, 1], dtype=np.int32), values[:2], None, 4)
    with pytest.raises(TypeError, match="float32"):
        _parsgd.Dataset(indptr, np.array([0, 1, 2], dtype=np.int32), np.ones(3), None, 4)


def test_dense_rows_are_converted_once_to_csr_without_zeros():
    X, y = make_problem(40, 6, 2, seed=6)
    dense = _data.as_dataset(X, y.astype(np.float32))
    assert (dense.rows, dense.features, dense.nnz) == (40, 6, np.count_nonzero(X))
    assert _data.as_dataset(np.asfortranarray(X)).nnz == np.count_nonzero(X)
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="row 7, column 2: value nan is not finite"):
        _parsgd.Dataset.from_dense(bad, None)
    with pytest.raises(TypeError, match="2-d C-contiguous float32"):
        _parsgd.Dataset.from_dense(X.astype(np.float64), None)


def test_nan_and_inf_are_refused_before_training():
    X, y = make_problem(20, 4, 2, seed=5)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        parsgd.SGDClassifier().fit(X, y)
