"""Data files read by parsgd's own readers, as scipy and numpy arrays.

load_file reads every format the command line reads (LIBSVM, CSV, fastText's and Vowpal Wabbit's
text, IDX images, the binary cache; gzipped text too), in parallel and without the GIL, so that a
file trains the same in Python as from the command line. Text formats whose features are hashed
(fastText, VW) are hashed here exactly as `parsgd train` hashes them: give the same settings to
read new text for a model fitted on the first.
"""

import os

import numpy as np
import scipy.sparse as sp

from . import _parsgd


def load_file(path, *, format="auto", hash_bits=None, ngrams=2, char_ngrams=None,
              interactions="", labels=True, return_weights=False, categorical="auto",
              like=None, ignore_columns=(), missing="error"):
    """(X, y) from the data file at path, as scikit-learn's load_svmlight_file returns them.

    X: scipy CSR, float32, one column per feature (fastText and VW text: 2**hash_bits hashed
    columns). y: the class names (numpy object array of str) where the file names its classes
    (CSV text classes, fastText's __label__NAME), else the labels as float64; None with
    labels=False (data to predict: fastText and VW lines without labels, IDX images alone).
    format: "auto" (detected, as the command line does) or one of "libsvm", "csv", "fasttext",
    "vw", "idx", "bin". hash_bits, ngrams, char_ngrams (a (min, max) pair) and interactions (e.g.
    "ab,abc") are --hash-bits, --ngrams, --char-ngrams and --interactions (hash_bits None: 16 for
    text, CSV categories one column each). CSV: text columns are categorical, one column per
    value after the table's columns (or hashed into 2**hash_bits), categorical "none" makes text an
    error and "a,b" names columns categorical whatever their values (--categorical);
    ignore_columns: CSV columns left out, by header name or 0-based position ("id,note" or a
    sequence; --ignore-columns), and so in a file read like this one; missing: what a CSV
    missing value is, "error", "zero", or filled in by the file's own rows ("mean", "median",
    "most-frequent", "indicator"; --missing), and in a file read like this one by this one's
    rows; like: the
    path of the file this one is another part of (the training file of a test file), read as that
    one was: its CSV columns matched by name, the same category columns (a value the first never
    had left out), its hashing (a binary cache's too), its LIBSVM index base; a file that holds
    data read otherwise (hashed with other settings, another table) raises. With return_weights, (X, y, w): w the rows' weights (VW importances, a CSV
    weight column; None when every row weighs 1).
    Raises ValueError naming the file, line and column for malformed data.
    """
    char_min, char_max = (0, 0) if char_ngrams is None else (int(c) for c in char_ngrams)
    left_out = ([c for c in ignore_columns.split(",") if c] if isinstance(ignore_columns, str)
                else [str(c) for c in ignore_columns])
    indptr, indices, data, row_labels, features, names, weights = _parsgd.load_file(
        os.fspath(path), format, 0 if hash_bits is None else int(hash_bits), int(ngrams),
        char_min, char_max, str(interactions), not labels, str(categorical),
        "" if like is None else os.fspath(like), left_out, str(missing))
    X = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, features))
    if not labels:
        y = None
    elif names:
        y = np.asarray(names, dtype=object)[row_labels.astype(np.int64)]
    else:
        y = row_labels.astype(np.float64)
    return (X, y, weights) if return_weights else (X, y)
