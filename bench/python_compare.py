#!/usr/bin/python3
"""parsgd's SGDClassifier (the Python module) next to scikit-learn's SGDClassifier and
LogisticRegression, fit on the same data in memory.

The same objective on every side: logistic loss, L2 alpha = 1/n (LogisticRegression's C = 1), no
intercept (parsgd's fit_intercept=False is its `bias off`), 10 epochs for the two SGDs
(scikit-learn's tol=None: no early stop), LogisticRegression by lbfgs (at most its default 100
iterations). parsgd runs twice: with its defaults (the linear schedule, steps scaled per feature
by max |x_j|) and with scikit-learn SGDClassifier's own rate (learning_rate='optimal',
normalize='none').
Every method runs once a round, in turn (interleaved), and its fit time is also taken over
scikit-learn SGDClassifier's of the same round (paired). Each library gets the data in its own layout, prepared before any clock starts: parsgd float32
CSR (used in place), scikit-learn float64 (CSR for the sparse set, dense for Fashion-MNIST, its
fastest layouts); a row "parsgd (dense float32 in)" also times parsgd from the dense array, its
conversion to CSR included. Fashion-MNIST has 10 classes: parsgd and LogisticRegression fit the
multinomial (softmax) model, whose objective is shown, scikit-learn's SGDClassifier one-vs-rest
logistic models (another objective: only its accuracy compares).

Data: a LIBSVM file given on the command line (the RCV1-shaped set of `build/parsgd gen`; the last
--test-fraction of its rows held out) and Fashion-MNIST (IDX, /usr/share/datasets/fashion-mnist,
Debian's dataset-fashion-mnist; train and t10k). Printed: per data set and method the median fit
time over --repeats runs (seeds 1, 2, ...), the median test accuracy (and its range over the
seeds) and training objective, and the CPU.

usage: /usr/bin/python3 bench/python_compare.py DATA.svm [--repeats 5] [--threads 2]
         [--fmnist-rows N] [--no-fmnist] [--methods NAME ...]
  e.g. build/parsgd gen rcv1.svm --rows 500000 --features 50000 --nnz 70
Needs PYTHONPATH=build/python (or an installed parsgd).
"""

import argparse
import gzip
import os
import statistics
import struct
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model import SGDClassifier as SkSGDClassifier

import parsgd

FMNIST = "/usr/share/datasets/fashion-mnist"
EPOCHS = 10
YARDSTICK = "sklearn SGDClassifier"  # every ratio is to its fit time


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def read_idx(path):
    raw = gzip.open(path).read()
    magic, count = struct.unpack(">II", raw[:8])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * (dims - 1), raw[8:4 + 4 * dims])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims)
    return data.reshape((count,) + shape)


def libsvm_problem(path, test_fraction):
    X, y = load_svmlight_file(path, dtype=np.float64)
    X = sp.csr_matrix(X)
    X.sum_duplicates()
    cut = int(X.shape[0] * (1 - test_fraction))
    return {"name": os.path.basename(path), "X": X[:cut], "y": y[:cut], "X_test": X[cut:],
            "y_test": y[cut:], "sparse": True}


def fmnist_problem(rows):
    images = read_idx(f"{FMNIST}/train-images-idx3-ubyte.gz")[:rows]
    labels = read_idx(f"{FMNIST}/train-labels-idx1-ubyte.gz")[:rows]
    test = read_idx(f"{FMNIST}/t10k-images-idx3-ubyte.gz")
    test_labels = read_idx(f"{FMNIST}/t10k-labels-idx1-ubyte.gz")
    as_rows = lambda a: a.reshape(len(a), -1).astype(np.float64) / 255.0  # noqa: E731
    return {"name": f"fashion-mnist ({len(images)} rows)", "X": as_rows(images), "y": labels,
            "X_test": as_rows(test), "y_test": test_labels, "sparse": False}


def objective(model, X, y, alpha):
    """The training objective without intercept, in float64: mean logistic loss (binary) or
    softmax cross-entropy (more classes) + alpha/2 ||W||^2."""
    W = np.asarray(model.coef_, dtype=np.float64)
    classes = model.classes_
    penalty = alpha / 2 * float(np.sum(W * W))
    if len(classes) == 2:
        margins = np.where(y == classes[1], 1.0, -1.0) * np.asarray(X @ W.ravel()).ravel()
        return float(np.mean(np.logaddexp(0.0, -margins))) + penalty
    Z = np.asarray(X @ W.T)
    top = Z.max(axis=1, keepdims=True)
    log_sum = np.log(np.exp(Z - top).sum(axis=1)) + top[:, 0]
    truth = Z[np.arange(len(y)), np.searchsorted(classes, y)]
    return float(np.mean(log_sum - truth)) + penalty


def methods(n, threads):
    alpha = 1.0 / n
    return [
        ("parsgd SGDClassifier", "csr32", lambda seed: parsgd.SGDClassifier(
            alpha=alpha, fit_intercept=False, max_iter=EPOCHS, n_jobs=threads,
            random_state=seed)),
        # scikit-learn SGDClassifier's own rate, 1 / (alpha (t0 + t)) (parsgd's schedule
        # optimal: plain per-sample SGD, one step size for every feature).
        ("parsgd SGDClassifier, optimal rate", "csr32", lambda seed: parsgd.SGDClassifier(
            alpha=alpha, fit_intercept=False, max_iter=EPOCHS, n_jobs=threads,
            random_state=seed, learning_rate="optimal", normalize="none")),
        ("parsgd (dense float32 in)", "dense32", lambda seed: parsgd.SGDClassifier(
            alpha=alpha, fit_intercept=False, max_iter=EPOCHS, n_jobs=threads,
            random_state=seed)),
        ("sklearn SGDClassifier", "native64", lambda seed: SkSGDClassifier(
            loss="log_loss", alpha=alpha, fit_intercept=False, max_iter=EPOCHS, tol=None,
            random_state=seed)),
        ("sklearn LogisticRegression", "native64", lambda seed: LogisticRegression(
            C=1.0, fit_intercept=False)),
    ]


def layouts(problem):
    X = problem["X"]
    out = {"native64": (X, problem["X_test"])}
    if problem["sparse"]:
        out["csr32"] = (X.astype(np.float32), problem["X_test"].astype(np.float32))
    else:
        out["csr32"] = (sp.csr_matrix(X.astype(np.float32)),
                        sp.csr_matrix(problem["X_test"].astype(np.float32)))
        out["dense32"] = (np.ascontiguousarray(X, dtype=np.float32),
                          np.ascontiguousarray(problem["X_test"], dtype=np.float32))
    return out


def run(problem, repeats, threads, only):
    """Every method once a round, in turn, `repeats` rounds (interleaved: a drift of the machine's
    speed touches every method alike); per method the medians, and its fit time over scikit-learn
    SGDClassifier's within each round (median, min-max)."""
    data = layouts(problem)
    y, y_test = problem["y"], problem["y_test"]
    n = problem["X"].shape[0]
    one_vs_rest = len(np.unique(y)) > 2  # scikit-learn's SGDClassifier: another objective
    chosen = [(name, layout, make) for name, layout, make in methods(n, threads)
              if layout in data and (name == YARDSTICK or not only or any(o in name for o in only))]
    results = {name: {"times": [], "accuracies": [], "objectives": [], "stopped": False}
               for name, _, _ in chosen}
    for r in range(repeats):
        for name, layout, make in chosen:
            X, X_test = data[layout]
            out = results[name]
            model = make(r + 1)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                start = time.perf_counter()
                model.fit(X, y)
                out["times"].append(time.perf_counter() - start)
            out["stopped"] |= any(issubclass(w.category, ConvergenceWarning) for w in caught)
            out["accuracies"].append(model.score(X_test, y_test))
            if not (one_vs_rest and isinstance(model, SkSGDClassifier)):
                out["objectives"].append(objective(model, problem["X"], y, 1.0 / n))
    yardstick = results[YARDSTICK]["times"]
    rows = []
    for name, _, _ in chosen:
        out = results[name]
        ratios = [y / t for t, y in zip(out["times"], yardstick)]
        rows.append((problem["name"], name + (" (max_iter)" if out["stopped"] else ""),
                     statistics.median(out["times"]),
                     (statistics.median(out["accuracies"]), min(out["accuracies"]),
                      max(out["accuracies"])),
                     statistics.median(out["objectives"]) if out["objectives"] else None,
                     (statistics.median(ratios), min(ratios), max(ratios))))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("libsvm", nargs="?", help="a LIBSVM file (binary labels), e.g. parsgd gen's")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=1, help="parsgd's n_jobs (default 1)")
    p.add_argument("--test-fraction", type=float, default=0.2)
    p.add_argument("--fmnist-rows", type=int, default=60000)
    p.add_argument("--no-fmnist", action="store_true")
    p.add_argument("--methods", nargs="*", default=[],
                   help="run only the methods whose name holds one of these strings (scikit-learn's "
                        "SGDClassifier always runs), e.g. --methods 'parsgd SGD'")
    a = p.parse_args()
    problems = []
    if a.libsvm:
        problems.append(libsvm_problem(a.libsvm, a.test_fraction))
    if not a.no_fmnist:
        problems.append(fmnist_problem(a.fmnist_rows))
    if not problems:
        p.error("nothing to run: give a LIBSVM file or leave out --no-fmnist")
    print(f"# {cpu_model()}; parsgd n_jobs={a.threads}; medians of {a.repeats} interleaved "
          f"rounds; alpha = 1/n, no intercept, {EPOCHS} epochs for the SGDs")
    print(f"| {'data':<28} | {'method':<40} | {'fit s':>8} | {'test acc (min-max)':>24} | "
          f"{'objective':>10} | {'sklearn SGD fit / this, paired':>30} |")
    print(f"|{'-' * 30}|{'-' * 42}|{'-' * 10}|{'-' * 26}|{'-' * 12}|{'-' * 32}|")
    for problem in problems:
        for data, name, seconds, accuracy, objective, ratio in run(problem, a.repeats, a.threads,
                                                                   a.methods):
            obj = f"{objective:.6f}" if objective is not None else "-"
            paired = f"{ratio[0]:.2f}x ({ratio[1]:.2f}-{ratio[2]:.2f})"
            acc = (f"{100 * accuracy[0]:.2f}% ({100 * accuracy[1]:.2f}-"
                   f"{100 * accuracy[2]:.2f})")
            print(f"| {data:<28} | {name:<40} | {seconds:8.3f} | {acc:>24} | "
                  f"{obj:>10} | {paired:>30} |", flush=True)


if __name__ == "__main__":
    main()
