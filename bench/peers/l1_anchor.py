#!/usr/bin/env python3
"""parsgd's L1-regularised coordinate descent against LIBLINEAR's (bench/README.md, "The L1
penalty against LIBLINEAR").

For each problem, at cost C with no bias: LIBLINEAR's L1 solver (Debian's liblinear-tools,
`-s 6` for logistic regression, `-s 5` for the squared-hinge SVM, its default tolerance) and
`parsgd train --solver cd --bias off --l1 1/(C n)` (its default stopping rule, and each --tol
given), file to model: the wall time of the whole command, which reads the LIBSVM text and writes
the model. Rounds are interleaved (every command once a round, in turn); the ratio to LIBLINEAR is
taken within each round; times are medians over rounds with min-max. The objective
||w||_1 + C sum loss(y_i w.x_i) is computed here, in double with numpy, for LIBLINEAR from its model
file; parsgd's is its reported objective (mean loss + l1 ||w||_1, in double) times C n. With
--reference-eps, LIBLINEAR is also run once at that tolerance: its objective stands in for the
optimum.

usage: bench/peers/venv/bin/python bench/peers/l1_anchor.py TRAIN [--c 1] [--rounds 3] [--threads 2]
           [--problems logistic,squared-hinge] [--tols auto,1e-4] [--reference-eps 1e-4]
           [--parsgd build/parsgd] [--liblinear-train PROGRAM]
"""
import argparse
import json
import os
import statistics as st
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from anchors import liblinear_weights, timed  # noqa: E402 - the L2 anchors' helpers, shared
SOLVER = {"logistic": "6", "squared-hinge": "5"}
LOSS = {
    "squared-hinge": lambda m: np.maximum(1 - m, 0) ** 2,
    "logistic": lambda m: np.logaddexp(0, -m),
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("--c", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", default="2")
    p.add_argument("--problems", default="logistic,squared-hinge")
    p.add_argument("--tols", default="auto,1e-4", help="parsgd's --tol values (auto: its default)")
    p.add_argument("--reference-eps", type=float, default=0)
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    p.add_argument("--liblinear-train", default="liblinear-train",
                   help="LIBLINEAR's train program (default: Debian's, 2.3.0)")
    a = p.parse_args()

    from sklearn.datasets import load_svmlight_file
    x, y = load_svmlight_file(a.train, dtype=np.float64)
    y = np.where(y > 0, 1.0, -1.0)
    n, d = x.shape
    l1 = 1.0 / (a.c * n)
    work = tempfile.mkdtemp(prefix="l1_anchor.")
    commands = []  # (problem, label, cmd, model or metrics)
    for problem in a.problems.split(","):
        model = os.path.join(work, f"ll-{problem}.model")
        commands.append((problem, f"liblinear -s {SOLVER[problem]}",
                         [a.liblinear_train, "-s", SOLVER[problem], "-c", repr(a.c), a.train, model],
                         model))
        for t in a.threads.split(","):
            for tol in a.tols.split(","):
                metrics = os.path.join(work, f"p-{problem}-{t}-{tol}.jsonl")
                cmd = [a.parsgd, "train", "--train", a.train, "--solver", "cd", "--model", problem,
                       "--bias", "off", "--l1", repr(l1), "--threads", t, "--quiet",
                       "--save", os.path.join(work, "p.model"), "--metrics", metrics]
                if tol != "auto":
                    cmd += ["--tol", tol]
                commands.append((problem, f"parsgd cd {t}t tol {tol}", cmd, metrics))
    runs = {}
    for r in range(a.rounds):
        for problem, label, cmd, _ in commands:
            seconds, _ = timed(cmd)
            runs.setdefault((problem, label), []).append(seconds)
            print(f"round {r + 1}: {problem:13} {label:26} {seconds:7.2f} s", flush=True)

    reference = {}
    if a.reference_eps > 0:
        for problem in a.problems.split(","):
            model = os.path.join(work, f"ref-{problem}.model")
            subprocess.run([a.liblinear_train, "-s", SOLVER[problem], "-c", repr(a.c), "-e",
                            repr(a.reference_eps), a.train, model], check=True, capture_output=True)
            w = liblinear_weights(model, d)
            reference[problem] = (np.abs(w).sum() + a.c * LOSS[problem](y * (x @ w)).sum(),
                                  int(np.count_nonzero(w)))

    print(f"\n{a.train}: {n} rows x {d} features, {x.nnz} nonzeros; C = {a.c:g} (--l1 {l1:.6g}), no bias")
    print(f"| problem | command | file to model (median, min-max of {a.rounds}) | / LIBLINEAR (paired) "
          "| epochs | objective | nonzero weights |")
    print("|---|---|---|---|---|---|---|")
    for problem in a.problems.split(","):
        rows = [c for c in commands if c[0] == problem]
        base = runs[(problem, rows[0][1])]
        for _, label, cmd, out in rows:
            times = runs[(problem, label)]
            if label.startswith("liblinear"):
                w = liblinear_weights(out, d)
                objective = np.abs(w).sum() + a.c * LOSS[problem](y * (x @ w)).sum()
                nonzero, epochs = int(np.count_nonzero(w)), "-"
            else:
                lines = [json.loads(l) for l in open(out)]
                objective = lines[-1]["objective"] * a.c * n
                nonzero, epochs = lines[-1]["nonzero_weights"], len(lines)
            ratios = [t / b for t, b in zip(times, base)]
            print(f"| {problem} | {label} | {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) "
                  f"| {st.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | {epochs} "
                  f"| {objective:,.3f} | {nonzero} |")
        if problem in reference:
            objective, nonzero = reference[problem]
            print(f"| {problem} | LIBLINEAR -e {a.reference_eps:g} (reference) | | | | {objective:,.3f} | {nonzero} |")


if __name__ == "__main__":
    main()
