#!/usr/bin/env python3
"""parsgd next to its peers on the same files, in one run, one program at a time.

Peers: scikit-learn's SGDClassifier (the Python this runs on: bench/peers/venv's, today's release,
or Debian's python3-sklearn) and LIBLINEAR (Debian's liblinear-tools).
Each trains on TRAIN and is scored on TEST; times are wall-clock training times (data loading
excluded where the peer allows: sklearn loads before the clock starts; LIBLINEAR's own time
includes its parsing, so it is given with and without a separate parse-only estimate).

usage: bench/peers/venv/bin/python bench/peers/peers.py TRAIN TEST [--epochs 10] [--threads 2] [--parsgd build/parsgd]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
import sklearn
from sklearn.datasets import load_svmlight_files
from sklearn.linear_model import SGDClassifier


def parsgd_run(parsgd, train, test, epochs, threads, scheme):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as m:
        subprocess.run([parsgd, "train", "--train", train, "--test", test, "--epochs", str(epochs),
                        "--threads", str(threads), "--scheme", scheme, "--metrics", m.name, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        rows = [json.loads(line) for line in open(m.name)]
    seconds = sum(r["train_seconds"] for r in rows)
    return seconds, rows[-1]["test_accuracy"], rows[-1]["updates"]


def sklearn_run(xtr, ytr, xte, yte, epochs):
    clf = SGDClassifier(loss="log_loss", alpha=1.0 / xtr.shape[0], max_iter=epochs, tol=None,
                        random_state=0)
    start = time.perf_counter()
    clf.fit(xtr, ytr)
    seconds = time.perf_counter() - start
    return seconds, clf.score(xte, yte)


def liblinear_run(train, test):
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "model")
        start = time.perf_counter()
        subprocess.run(["liblinear-train", "-s", "0", "-q", train, model], check=True)
        seconds = time.perf_counter() - start
        out = subprocess.run(["liblinear-predict", test, model, os.path.join(d, "p")], check=True,
                             capture_output=True, text=True).stdout
    accuracy = float(out.split("=")[1].split("%")[0]) / 100
    return seconds, accuracy


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--parsgd", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "parsgd"))
    a = p.parse_args()
    xtr, ytr, xte, yte = load_svmlight_files([a.train, a.test])
    for x in (xtr, xte):  # 32-bit indices: today's scikit-learn reads 64-bit ones and refuses them
        x.indices, x.indptr = x.indices.astype(np.int32), x.indptr.astype(np.int32)
    nnz = xtr.nnz
    print(f"train {xtr.shape[0]} x {xtr.shape[1]}, {nnz} nonzeros; test {xte.shape[0]} rows; {a.epochs} epochs")
    print("| trainer | train seconds | M nonzeros/s | test accuracy |")
    print("|---|---|---|---|")
    for scheme, threads in (("hogwild", 1), ("hogwild", a.threads)):
        s, acc, _ = parsgd_run(a.parsgd, a.train, a.test, a.epochs, threads, scheme)
        print(f"| parsgd {scheme}, {threads} thread(s) | {s:.2f} | {nnz * a.epochs / s / 1e6:.0f} | {100 * acc:.2f}% |")
    s, acc = sklearn_run(xtr, ytr, xte, yte, a.epochs)
    print(f"| scikit-learn {sklearn.__version__} SGDClassifier(log_loss, alpha=1/n, max_iter={a.epochs}) | {s:.2f} | {nnz * a.epochs / s / 1e6:.0f} | {100 * acc:.2f}% |")
    s, acc = liblinear_run(a.train, a.test)
    print(f"| LIBLINEAR -s 0 (to convergence, parsing included) | {s:.2f} | - | {100 * acc:.2f}% |")


if __name__ == "__main__":
    main()
