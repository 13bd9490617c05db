#!/usr/bin/python3
"""parsgd's coordinate-descent solvers against LIBLINEAR on the same problem (the anchors
of bench/README.md, "The coordinate-descent solvers against LIBLINEAR").

For each problem (C = 1, no bias): LIBLINEAR's solvers for it (Debian's liblinear-tools, default
tolerances) and `parsgd train --solver S --bias off` (dual-cd; cd too but for the hinge) with
their default stopping rules, at each thread count, file to model:
the wall time of the whole command, which reads the LIBSVM text and writes the model. Rounds are
interleaved (every command once per round, in turn); times are medians over rounds, with min-max.
The primal objective 1/2 ||w||^2 + C sum loss(y_i w.x_i) is computed here, with numpy in double,
for LIBLINEAR from its model file; parsgd's is its own reported objective (mean loss + l2/2 ||w||^2,
in double) times C n. scikit-learn's LogisticRegression(solver=
"liblinear") is timed on the loaded matrices (fit only) for the logistic problem, and with
--xgboost, xgboost's gblinear with the shotgun updater (Debian's python3-xgboost; eta 1, lambda
1/n: xgboost multiplies it by the rows, so C = 1) after 10, 30 and 100 rounds (one coordinate pass
each) at each thread count, fit only. gblinear always trains an unregularised bias, so its problem
is not quite the others': its primal (with its bias) is printed beside, and can end below theirs.

usage: /usr/bin/python3 bench/peers/anchors.py TRAIN [--rounds 3] [--threads 1,2]
           [--problems hinge,squared-hinge,logistic] [--solvers dual-cd,cd] [--parsgd build/parsgd] [--no-sklearn]
           [--xgboost]
"""
import argparse
import json
import os
import statistics as st
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# LIBLINEAR's solvers per problem, and the loss of y w.x for the primal.
LIBLINEAR = {"hinge": ["3"], "squared-hinge": ["2", "1"], "logistic": ["0", "7"]}
# parsgd's solvers per problem.
SOLVERS = {"hinge": ["dual-cd"], "squared-hinge": ["dual-cd", "cd"], "logistic": ["dual-cd", "cd"]}
LOSS = {
    "hinge": lambda m: np.maximum(1 - m, 0),
    "squared-hinge": lambda m: np.maximum(1 - m, 0) ** 2,
    "logistic": lambda m: np.logaddexp(0, -m),
}


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, out


def liblinear_weights(path, features):
    with open(path) as f:
        lines = f.read().split("\n")
    head = {l.split()[0]: l.split()[1:] for l in lines[: lines.index("w")]}
    labels = [int(v) for v in head["label"]]
    w = np.array([float(v) for v in lines[lines.index("w") + 1:] if v.strip()])
    w = np.pad(w, (0, max(0, features - len(w))))[:features]
    # LIBLINEAR scores the first label it met as positive.
    return w if labels[0] == 1 else -w


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--problems", default="hinge,squared-hinge,logistic")
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    p.add_argument("--solvers", default="dual-cd,cd", help="parsgd's solvers to run")
    p.add_argument("--no-sklearn", action="store_true")
    p.add_argument("--xgboost", action="store_true", help="also xgboost's gblinear (logistic)")
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    problems = a.problems.split(",")

    work = tempfile.mkdtemp(prefix="anchors.")
    runs = {}  # label -> list of (seconds, extra)
    commands = []
    for problem in problems:
        for s in LIBLINEAR[problem]:
            model = os.path.join(work, f"ll{s}.model")
            commands.append((problem, f"liblinear -s {s}",
                             ["liblinear-train", "-s", s, "-c", "1", a.train, model], model))
        for solver in SOLVERS[problem]:
            if solver not in a.solvers.split(","):
                continue
            for t in threads:
                model = os.path.join(work, f"p-{problem}-{solver}-{t}.model")
                metrics = os.path.join(work, f"p-{problem}-{solver}-{t}.jsonl")
                commands.append((problem, f"parsgd {solver} {t}t",
                                 [a.parsgd, "train", "--train", a.train, "--solver", solver,
                                  "--model", problem, "--bias", "off", "--threads", str(t),
                                  "--quiet", "--save", model, "--metrics", metrics], model))
    for r in range(a.rounds):
        for problem, label, cmd, _ in commands:
            seconds, out = timed(cmd)
            runs.setdefault((problem, label), []).append((seconds, out))
            print(f"round {r + 1}: {problem:8} {label:18} {seconds:7.2f} s", flush=True)

    from sklearn.datasets import load_svmlight_file
    x, y = load_svmlight_file(a.train, dtype=np.float64)
    y = np.where(y > 0, 1.0, -1.0)
    n, d = x.shape
    # parsgd's +1 class: MakeTargets maps the labels it meets as LIBLINEAR does (first seen +1).
    print(f"\n{a.train}: {n} rows x {d} features, {x.nnz} nonzeros; C = 1, no bias")
    print(f"| problem | command | file to model (median, min-max of {a.rounds}) | passes | primal |")
    print("|---|---|---|---|---|")
    for problem, label, cmd, model in commands:
        times = [s for s, _ in runs[(problem, label)]]
        last_out = runs[(problem, label)][-1][1]
        if label.startswith("liblinear"):
            w = liblinear_weights(model, d)
            margins = y * (x @ w)
            primal = 0.5 * w @ w + LOSS[problem](margins).sum()
            lines = last_out.split("\n")
            dual = [l for l in lines if "#iter" in l]  # dual solvers: "optimization finished, #iter = N"
            newton = [l for l in lines if l.lstrip().startswith("iter")]  # -s 0: one line per Newton step
            passes = dual[-1].split("=")[-1].strip() if dual else f"{len(newton)} Newton"
        else:
            metrics = model.replace(".model", ".jsonl")
            rows = [json.loads(l) for l in open(metrics)]
            passes = str(len(rows))
            primal = rows[-1]["objective"] * n  # C n times parsgd's objective, C = 1
        print(f"| {problem} | `{' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd))}` "
              f"| {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) | {passes} | {primal:,.3f} |")
    if "logistic" in problems and not a.no_sklearn:
        from sklearn.linear_model import LogisticRegression
        times = []
        for _ in range(a.rounds):
            clf = LogisticRegression(solver="liblinear", C=1.0, fit_intercept=False)
            start = time.perf_counter()
            clf.fit(x, y)
            times.append(time.perf_counter() - start)
        w = clf.coef_.ravel()
        primal = 0.5 * w @ w + LOSS["logistic"](y * (x @ w)).sum()
        print(f"| logistic | scikit-learn LogisticRegression(solver='liblinear', fit_intercept=False), fit only "
              f"| {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) | {clf.n_iter_[0]} | {primal:,.3f} |")

    if "logistic" in problems and a.xgboost:
        xgboost_rows(x, y, threads, 1)  # slow: once each


def xgboost_rows(x, y, threads, repeats):
    import xgboost as xgb
    n = x.shape[0]
    x32 = x.astype(np.float32)
    for t in threads:
        dm = xgb.DMatrix(x32, label=(y > 0).astype(np.float32), nthread=t)
        params = {"booster": "gblinear", "updater": "shotgun", "objective": "binary:logistic",
                  "eta": 1.0, "lambda": 1.0 / n, "alpha": 0.0, "nthread": t, "base_score": 0.5,
                  "feature_selector": "cyclic"}
        for rounds in (10, 30, 100):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                booster = xgb.train(params, dm, num_boost_round=rounds)
                times.append(time.perf_counter() - start)
            model = json.loads(booster.save_raw("json"))
            weights = np.array(model["learner"]["gradient_booster"]["model"]["weights"], dtype=np.float64)
            w, bias = weights[:-1], weights[-1]
            primal = 0.5 * w @ w + LOSS["logistic"](y * (x @ w + bias)).sum()
            print(f"| logistic | xgboost gblinear shotgun, {rounds} rounds, nthread {t}, fit only (with a bias "
                  f"{bias:.3f}) | {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) | {rounds} "
                  f"| {primal:,.3f} |", flush=True)


if __name__ == "__main__":
    main()
