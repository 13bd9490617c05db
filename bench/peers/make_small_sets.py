#!/usr/bin/python3
"""Writes small real data sets, never tuned on, as LIBSVM train/test files for the defaults check.

Sources (all offline): scikit-learn's bundled sets (breast_cancer, digits, wine, iris: raw,
unscaled features, as users have them) and LIBLINEAR's heart_scale (Debian liblinear-tools).
Each set is split 75/25 with a fixed seed, stratified. Usage: make_small_sets.py OUTDIR
"""
import os
import sys

import numpy as np
from sklearn import datasets
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.model_selection import train_test_split

HEART = "/usr/share/doc/liblinear-tools/examples/heart_scale"


def binary(y):
    return np.where(y == y.max(), 1, -1)


def main(out):
    os.makedirs(out, exist_ok=True)
    sets = {
        "breast_cancer": (datasets.load_breast_cancer(), True),
        "digits": (datasets.load_digits(), False),
        "wine": (datasets.load_wine(), False),
        "iris": (datasets.load_iris(), False),
    }
    arrays = {name: (d.data, binary(d.target) if is_binary else d.target) for name, (d, is_binary) in sets.items()}
    if os.path.exists(HEART):
        x, y = load_svmlight_file(HEART)
        arrays["heart_scale"] = (x.toarray(), y.astype(int))
    for name, (x, y) in arrays.items():
        xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
        dump_svmlight_file(xtr, ytr, os.path.join(out, name + ".train"), zero_based=False)
        dump_svmlight_file(xte, yte, os.path.join(out, name + ".test"), zero_based=False)
        kind = "binary" if len(set(y)) == 2 else f"{len(set(y))} classes"
        print(f"{name}: {len(ytr)} train, {len(yte)} test, {x.shape[1]} features, {kind}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "small_sets")
