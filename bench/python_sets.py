#!/usr/bin/python3
"""Held-out accuracy of parsgd's SGDClassifier next to scikit-learn's, paired, over several
generated RCV1-shaped sets: is a difference a property of the method or of one test set?

For each data seed, `parsgd gen` writes a set (500,000 x 50,000 by default, Zipf features,
unit-norm rows, 5% label noise); its last 20% of rows are held out. On it: scikit-learn's
LogisticRegression (the objective's optimum, C = 1), then for each of --seeds seeds parsgd's
SGDClassifier with its defaults, parsgd's with scikit-learn's rate (learning_rate='optimal',
normalize='none') and scikit-learn's SGDClassifier, all on the same objective (logistic loss,
alpha = 1/n, no intercept, 10 epochs, scikit-learn's tol=None). Printed per set: the optimum's
accuracy, each method's median, and each parsgd variant's paired difference to scikit-learn's
SGDClassifier of the same seed (mean and standard error, in points of accuracy); then the mean
over the sets. Accuracy only: fit times are bench/python_compare.py's.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_sets.py [--sets 1-8] [--seeds 7]
         [--rows 500000] [--threads 2] [--parsgd build/parsgd]
"""

import argparse
import os
import subprocess
import tempfile

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model import SGDClassifier as SkSGDClassifier

import parsgd

EPOCHS = 10
VARIANTS = {
    "parsgd defaults": {},
    "parsgd optimal rate": {"learning_rate": "optimal", "normalize": "none"},
}


def seed_range(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def one_set(path, seeds, threads):
    X, y = load_svmlight_file(path, dtype=np.float64)
    X = sp.csr_matrix(X)
    cut = int(X.shape[0] * 0.8)
    n = cut
    X_train, y_train, X_test, y_test = X[:cut], y[:cut], X[cut:], y[cut:]
    X_train32, X_test32 = X_train.astype(np.float32), X_test.astype(np.float32)
    optimum = LogisticRegression(C=1.0, fit_intercept=False, max_iter=300).fit(X_train, y_train)
    accuracy = {name: [] for name in [*VARIANTS, "sklearn SGDClassifier"]}
    for seed in seeds:
        for name, extra in VARIANTS.items():
            model = parsgd.SGDClassifier(alpha=1.0 / n, fit_intercept=False, max_iter=EPOCHS,
                                         n_jobs=threads, random_state=seed, **extra)
            accuracy[name].append(model.fit(X_train32, y_train).score(X_test32, y_test))
        sk = SkSGDClassifier(loss="log_loss", alpha=1.0 / n, fit_intercept=False,
                             max_iter=EPOCHS, tol=None, random_state=seed)
        accuracy["sklearn SGDClassifier"].append(sk.fit(X_train, y_train).score(X_test, y_test))
    return optimum.score(X_test, y_test), accuracy


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default="1-8", help="data seeds of parsgd gen, e.g. 1-8")
    p.add_argument("--seeds", type=int, default=7, help="training seeds per set")
    p.add_argument("--rows", type=int, default=500000)
    p.add_argument("--threads", type=int, default=2, help="parsgd's n_jobs")
    p.add_argument("--parsgd", default="build/parsgd", help="the parsgd program (for gen)")
    a = p.parse_args()
    seeds = list(range(1, a.seeds + 1))
    print(f"# {a.seeds} seeds per set; differences to scikit-learn SGDClassifier of the same seed, "
          "in points (mean, standard error)")
    print("| set | optimum (LogisticRegression) | sklearn SGD median | "
          + " | ".join(f"{v} median | {v} - sklearn" for v in VARIANTS) + " |")
    print("|---|---|---|" + "---|---|" * len(VARIANTS))
    means = {v: [] for v in VARIANTS}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "set.svm")
        for data_seed in seed_range(a.sets):
            subprocess.run([a.parsgd, "gen", path, "--rows", str(a.rows), "--seed",
                            str(data_seed)], check=True, stdout=subprocess.DEVNULL)
            optimum, accuracy = one_set(path, seeds, a.threads)
            sk = np.array(accuracy["sklearn SGDClassifier"])
            cells = []
            for v in VARIANTS:
                d = 100 * (np.array(accuracy[v]) - sk)
                means[v].append(d.mean())
                cells.append(f"{100 * np.median(accuracy[v]):.3f}% | {d.mean():+.4f} "
                             f"({d.std(ddof=1) / np.sqrt(len(d)):.4f})")
            print(f"| {data_seed} | {100 * optimum:.3f}% | {100 * np.median(sk):.3f}% | "
                  + " | ".join(cells) + " |", flush=True)
    for v in VARIANTS:
        m = np.array(means[v])
        se = m.std(ddof=1) / np.sqrt(len(m)) if len(m) > 1 else float("nan")
        print(f"# {v} - sklearn SGDClassifier over {len(m)} sets: mean {m.mean():+.4f} points "
              f"(standard error over the sets {se:.4f}); lower on {(m < 0).sum()} sets")


if __name__ == "__main__":
    main()
