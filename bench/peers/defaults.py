#!/usr/bin/env python3
"""Test accuracy with default settings only, parsgd next to its peers, on sets none was tuned on.

Sets: scikit-learn's bundled breast_cancer, digits, wine, iris and LIBLINEAR's heart_scale, split
75/25 by make_small_sets.py (raw features, as users have them), plus any TRAIN:TEST pairs given.
parsgd gets only --train, --test and --model (logistic for 2 classes, softmax otherwise), one
thread; with --optimizers, one parsgd column per optimiser (--optimizer O, all else default). Peers: SGDClassifier() and LogisticRegression(max_iter=10000) with their defaults, and
LIBLINEAR's logistic regression (-s 0, C = 1), which solve the same L2 problem to convergence.

usage: bench/peers/defaults.py [--parsgd build/parsgd] [--optimizers sgd,momentum,nesterov]
                              [NAME=TRAIN:TEST ...]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
from sklearn.datasets import load_svmlight_files
from sklearn.linear_model import LogisticRegression, SGDClassifier

HERE = os.path.dirname(os.path.abspath(__file__))


def parsgd(binary, train, test, classes, optimizer=None):
    model = "logistic" if classes == 2 else "softmax"
    extra = ["--optimizer", optimizer] if optimizer else []
    run = subprocess.run([binary, "train", "--train", train, "--test", test, "--model", model,
                          "--threads", "1", "--quiet", *extra], capture_output=True, text=True)
    if run.returncode != 0:
        return None  # a refusal or a diverged run: its message is in run.stderr
    return float(run.stdout.split("test accuracy ")[1].split("%")[0])


def liblinear(train, test):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["liblinear-train", "-s", "0", "-q", train, d + "/m"], check=True)
        out = subprocess.run(["liblinear-predict", test, d + "/m", d + "/p"], check=True,
                             capture_output=True, text=True).stdout
    return float(out.split("=")[1].split("%")[0])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    p.add_argument("--optimizers", default="", help="comma-separated: one parsgd column each")
    p.add_argument("sets", nargs="*")
    a = p.parse_args()
    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as small:
        subprocess.run([sys.executable, os.path.join(HERE, "make_small_sets.py"), small],
                       check=True, stdout=subprocess.DEVNULL)
        pairs = [(n, f"{small}/{n}.train", f"{small}/{n}.test")
                 for n in ("breast_cancer", "heart_scale", "digits", "wine", "iris")
                 if os.path.exists(f"{small}/{n}.train")]
        for s in a.sets:
            name, files = s.split("=", 1)
            train, test = files.split(":")
            pairs.append((name, train, test))
        optimizers = [o for o in a.optimizers.split(",") if o]
        extra = "".join(f" parsgd --optimizer {o} |" for o in optimizers)
        print(f"| set | parsgd (defaults) |{extra} SGDClassifier() | LogisticRegression() | LIBLINEAR -s 0 |")
        print("|---|---|" + "---|" * len(optimizers) + "---|---|---|")
        for name, train, test in pairs:
            xtr, ytr, xte, yte = load_svmlight_files([train, test])
            for x in (xtr, xte):  # 32-bit indices: today's scikit-learn refuses its own 64-bit ones
                x.indices, x.indptr = x.indices.astype(np.int32), x.indptr.astype(np.int32)
            classes = len(set(ytr))
            ours = parsgd(a.parsgd, train, test, classes)
            cells = "".join(" diverged |" if r is None else f" {r:.2f}% |"
                            for r in (parsgd(a.parsgd, train, test, classes, o) for o in optimizers))
            sgd = 100 * SGDClassifier(random_state=0).fit(xtr, ytr).score(xte, yte)
            lr = 100 * LogisticRegression(max_iter=10000).fit(xtr, ytr).score(xte, yte)
            ll = liblinear(train, test)
            print(f"| {name} | {ours:.2f}% |{cells} {sgd:.2f}% | {lr:.2f}% | {ll:.2f}% |", flush=True)


if __name__ == "__main__":
    main()
