"""Input arrays as the library's one layout: CSR rows with float32 values and 32-bit indices.

What is copied and what is not (X as scikit-learn's check_array leaves it, float32):
  - scipy CSR, float32 values, int32 indices, each row's indices sorted and distinct: used in
    place. The library reads scipy's `data` and `indices` arrays (and the float32 labels) where
    they are; only `indptr` is converted (rows + 1 values) to the library's uint64 row offsets.
  - scipy CSR with unsorted or repeated indices: one sorted copy (scipy's sum_duplicates, which
    adds repeated entries, as scipy reads them).
  - int64 indices: one copy as uint32.
  - float64 (or other) values, and every other sparse format: one conversion by check_array.
  - dense arrays: one conversion to CSR, zeros dropped (the library has no dense layout), by the
    module in two passes over a float32 C-contiguous array (others are made one first).
The arrays must not change while a fit or predict runs.
"""

import numpy as np
import scipy.sparse as sp

from . import _parsgd


def csr(X):
    """X (validated, float32, sparse) as a CSR matrix in canonical form."""
    if not sp.isspmatrix_csr(X):
        X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def as_dataset(X, labels=None, *, real_labels=False, classes=(), source="X", weights=None):
    """The library's Dataset over X's arrays (see the module's docstring for what is copied).

    labels: float32 per row (class indices or real values), or None for prediction; classes: the
    class values the labels are drawn from, when a batch may lack some (partial_fit); weights:
    each row's weight, or None (every row 1)."""
    data = _rows(X, labels, real_labels, classes, source)
    if weights is not None:
        data = data.with_weights(np.ascontiguousarray(weights, dtype=np.float32))
    return data


def _rows(X, labels, real_labels, classes, source):
    if labels is not None:
        labels = np.ascontiguousarray(labels, dtype=np.float32)
    classes = [float(c) for c in classes]
    if not sp.issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float32)
        return _parsgd.Dataset.from_dense(X, labels, real_labels, classes, source)
    X = csr(X)
    indices = np.ascontiguousarray(X.indices)
    if indices.dtype != np.int32:
        if X.shape[1] > 2**32:
            raise ValueError(f"{source}: {X.shape[1]} features, more than parsgd's 2^32")
        indices = indices.astype(np.uint32)
    data = np.ascontiguousarray(X.data, dtype=np.float32)
    return _parsgd.Dataset(np.ascontiguousarray(X.indptr), indices, data, labels, X.shape[1],
                           real_labels, classes, source)
