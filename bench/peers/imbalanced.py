#!/usr/bin/env python3
"""Class weights on an imbalanced set: parsgd --class-weight balanced against scikit-learn's
SGDClassifier(class_weight="balanced"), each with its defaults and the logistic loss.

The set: `parsgd gen` (RCV1-shaped, 50,000 features), every negative row kept and one positive in
30 (seeded), so about 3% of the rows are positive; split 80/20 in file order. Reported per run:
the test set's balanced accuracy (the mean of the two recalls, from the predicted labels), the
training time (parsgd's metrics train_seconds; scikit-learn's fit), and the whole process
(parsgd train, reading included; scikit-learn's load_svmlight_file plus fit), medians over
--repeats runs, in turn.

Usage: bench/peers/venv/bin/python bench/peers/imbalanced.py PARSGD WORKDIR [--rows N] [--threads T]
           [--repeats R]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import sklearn

import numpy as np
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import balanced_accuracy_score


def make_set(parsgd, folder, rows):
    train, test = os.path.join(folder, "imb.train"), os.path.join(folder, "imb.test")
    if os.path.exists(train) and os.path.exists(test):
        return train, test
    full = os.path.join(folder, "imb.full.svm")
    subprocess.run([parsgd, "gen", full, "--rows", str(rows), "--features", "50000"], check=True)
    x, y = load_svmlight_file(full, n_features=50000)
    rng = np.random.RandomState(1)
    keep = (y < 0) | (rng.uniform(size=len(y)) < 1 / 30)
    x, y = x[keep], y[keep]
    cut = int(0.8 * len(y))
    dump_svmlight_file(x[:cut], y[:cut], train, zero_based=False)
    dump_svmlight_file(x[cut:], y[cut:], test, zero_based=False)
    os.remove(full)
    print(f"{cut} train rows, {len(y) - cut} test rows, {100 * np.mean(y > 0):.2f}% positive")
    return train, test


def parsgd_run(parsgd, train, test, folder, threads):
    metrics, model = os.path.join(folder, "m.jsonl"), os.path.join(folder, "m.bin")
    start = time.perf_counter()
    subprocess.run([parsgd, "train", "--train", train, "--class-weight", "balanced", "--threads",
                    str(threads), "--metrics", metrics, "--save", model, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    whole = time.perf_counter() - start
    with open(metrics) as f:
        train_seconds = sum(json.loads(line)["train_seconds"] for line in f)
    out = subprocess.run([parsgd, "predict", model, test], check=True, capture_output=True,
                         text=True).stdout
    predicted = np.array([float(v) for v in out.split()])
    _, y = load_svmlight_file(test, n_features=50000)
    return balanced_accuracy_score(y, predicted), train_seconds, whole


def sklearn_run(train, test, threads):
    start = time.perf_counter()
    x, y = load_svmlight_file(train, n_features=50000)
    # 32-bit indices: today's scikit-learn reads 64-bit ones and its SGDClassifier refuses them.
    x.indices, x.indptr = x.indices.astype(np.int32), x.indptr.astype(np.int32)
    fit_start = time.perf_counter()
    clf = SGDClassifier(loss="log_loss", class_weight="balanced", random_state=0,
                        n_jobs=threads).fit(x, y)
    end = time.perf_counter()
    xt, yt = load_svmlight_file(test, n_features=50000)
    return balanced_accuracy_score(yt, clf.predict(xt)), end - fit_start, end - start


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("parsgd")
    p.add_argument("folder")
    p.add_argument("--rows", type=int, default=200000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    os.makedirs(a.folder, exist_ok=True)
    train, test = make_set(a.parsgd, a.folder, a.rows)
    runs = {"parsgd": [], "sklearn": []}
    for _ in range(a.repeats):
        runs["parsgd"].append(parsgd_run(a.parsgd, train, test, a.folder, a.threads))
        runs["sklearn"].append(sklearn_run(train, test, a.threads))
    ratios_fit = [p[1] / s[1] for p, s in zip(runs["parsgd"], runs["sklearn"])]
    ratios_all = [p[2] / s[2] for p, s in zip(runs["parsgd"], runs["sklearn"])]
    for name, rs in runs.items():
        print(f"{name}: balanced accuracy {100 * statistics.median(r[0] for r in rs):.2f}%, "
              f"training {statistics.median(r[1] for r in rs):.3f} s, "
              f"whole {statistics.median(r[2] for r in rs):.3f} s")
    print(f"scikit-learn {sklearn.__version__}; paired ratios parsgd/sklearn (median): training {statistics.median(ratios_fit):.3f}, "
          f"whole {statistics.median(ratios_all):.3f}")


if __name__ == "__main__":
    main()
