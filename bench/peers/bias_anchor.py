#!/usr/bin/env python3
"""The problem with an unregularised bias, against LIBLINEAR.

LIBLINEAR has no unregularised bias: with `-B 100` it appends a feature of value 100 whose weight
w_b is regularised like the others, so the bias b = 100 w_b costs only w_b^2 / 2 = b^2 / 20000:
nearly the unregularised problem. Its model, evaluated on the unregularised objective
(0.5 ||w||^2 + C sum_i loss(y_i (w.x_i + b)), C = 1, no term for b), is at or above that
problem's optimum, which `parsgd train --solver S --bias on` (cd, newton) should reach. Prints
the primals, their relative difference and each file-to-model time (one run each, in turn).

  bench/peers/venv/bin/python bench/peers/bias_anchor.py TRAIN.svm [--parsgd build/parsgd] [--threads 2]
      [--solvers cd,newton] [--liblinear-train liblinear-train]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from sklearn.datasets import load_svmlight_file

HERE = os.path.dirname(os.path.abspath(__file__))
LOSS = {"squared-hinge": lambda m: np.maximum(1 - m, 0) ** 2, "logistic": lambda m: np.logaddexp(0, -m)}
LIBLINEAR = {"logistic": "0", "squared-hinge": "2"}  # LIBLINEAR's fastest primal solvers here (bench/README.md)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    p.add_argument("--threads", default="2")
    p.add_argument("--solvers", default="cd,newton", help="parsgd's solvers to run")
    p.add_argument("--liblinear-train", default="liblinear-train",
                   help="LIBLINEAR's train program (Debian's, or one built from a release's source)")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="bias_anchor.")
    x, y = load_svmlight_file(a.train, dtype=np.float64)
    y = np.where(y > 0, 1.0, -1.0)
    n, d = x.shape
    print(f"{a.train}: {n} rows x {d} features; C = 1, an unregularised bias")
    print("| problem | command | file to model | epochs | primal | relative to LIBLINEAR's |")
    print("|---|---|---|---|---|---|")
    for problem, s in LIBLINEAR.items():
        model = os.path.join(work, "ll.model")
        start = time.perf_counter()
        subprocess.run([a.liblinear_train, "-s", s, "-c", "1", "-B", "100", a.train, model],
                       check=True, capture_output=True)
        ll_seconds = time.perf_counter() - start
        lines = open(model).read().split("\n")
        head = {l.split()[0]: l.split()[1:] for l in lines[: lines.index("w")]}
        w = np.array([float(v) for v in lines[lines.index("w") + 1:] if v.strip()])
        w = w if int(head["label"][0]) == 1 else -w  # LIBLINEAR scores its first label as positive
        weights, bias = np.pad(w[:-1], (0, max(0, d - len(w) + 1)))[:d], 100 * w[-1]
        ll = 0.5 * weights @ weights + LOSS[problem](y * (x @ weights + bias)).sum()
        print(f"| {problem} | `{os.path.basename(a.liblinear_train)} -s {s} -c 1 -B 100` | {ll_seconds:.2f} s | | "
              f"{ll:,.4f} (b = {bias:.4f}) | |")
        for solver in a.solvers.split(","):
            metrics = os.path.join(work, "p.jsonl")
            cmd = [a.parsgd, "train", "--train", a.train, "--solver", solver, "--model", problem, "--bias", "on",
                   "--threads", a.threads, "--quiet", "--metrics", metrics]
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            p_seconds = time.perf_counter() - start
            rows = [json.loads(l) for l in open(metrics)]
            primal = rows[-1]["objective"] * n  # C n times parsgd's objective, C = 1
            print(f"| {problem} | `parsgd train --solver {solver} --bias on --threads {a.threads}` | {p_seconds:.2f} s | "
                  f"{len(rows)} | {primal:,.4f} | {(primal - ll) / ll:+.1e} |", flush=True)


if __name__ == "__main__":
    main()
