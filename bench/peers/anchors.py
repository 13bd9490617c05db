#!/usr/bin/env python3
"""parsgd's solvers other than SGD against LIBLINEAR and Snap ML on the same problem (the
anchors of bench/README.md, "The coordinate-descent and Newton solvers against LIBLINEAR and Snap
ML").

For each problem (C = 1, no bias): LIBLINEAR's solvers for it (Debian's liblinear-tools, default
tolerances) and `parsgd train --solver S --bias off` (dual-cd; cd and newton too but for the
hinge) with
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

Today's peers, from the Python this runs on (bench/peers/venv, bench/peers/setup.sh), fit only (the
data loaded, and for LIBLINEAR its problem built, before the clock starts), interleaved with the
commands above: LIBLINEAR 2.5 (liblinear-official, its C++ solvers through ctypes; one thread, as
the official release has no threads) for each of its solvers of the problem, and Snap ML
(LogisticRegression, SupportVectorMachine with the hinge or squared hinge; regularizer 1, which is
C = 1: its objective is 1/2 ||w||^2 + sum loss; default tolerance) at each thread count. Their
primals are computed here from their weights; parsgd's too where this Python imports parsgd (`pip
install .` into the venv), else its reported objective times C n. Peers this Python lacks are left
out with a note.

usage: bench/peers/venv/bin/python bench/peers/anchors.py TRAIN [--rounds 3] [--threads 1,2]
           [--problems hinge,squared-hinge,logistic] [--solvers dual-cd,cd,newton] [--parsgd build/parsgd] [--no-sklearn]
           [--xgboost] [--liblinear-train liblinear-train,PATH]
"""
import argparse
import importlib.metadata
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
SOLVERS = {"hinge": ["dual-cd"], "squared-hinge": ["dual-cd", "cd", "newton"],
           "logistic": ["dual-cd", "cd", "newton"]}
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


# LIBLINEAR 2.5's solvers (liblinear-official) and Snap ML's estimators per problem.
SNAPML = {"hinge": ("SupportVectorMachine", {"loss": "hinge"}),
          "squared-hinge": ("SupportVectorMachine", {"loss": "squared_hinge"}),
          "logistic": ("LogisticRegression", {})}


def todays_peers(x, y, problems, threads):
    """(problem, label, fit) for LIBLINEAR 2.5 and Snap ML, where this Python has them: fit() trains
    on the loaded data and returns (seconds of the fit alone, w, passes)."""
    peers = []
    try:
        from liblinear import liblinearutil as ll
        version = importlib.metadata.version("liblinear-official")
        prob = ll.problem(y, x)

        def liblinear_fit(s):
            def fit():
                param = ll.parameter(f"-s {s} -c 1 -q")
                start = time.perf_counter()
                model = ll.train(prob, param)
                seconds = time.perf_counter() - start
                w = np.array(model.w[:x.shape[1]], dtype=np.float64)
                return seconds, (w if model.get_labels()[0] == 1 else -w), ""
            return fit

        for problem in problems:
            for s in LIBLINEAR[problem]:
                peers.append((problem, f"LIBLINEAR {version} -s {s}, fit only", liblinear_fit(s)))
    except ImportError:
        print("(no liblinear-official in this Python: bench/peers/setup.sh)")
    try:
        import snapml
        snap_version = importlib.metadata.version("snapml")
        x32 = x.astype(np.float32)

        def snapml_fit(problem, t):
            name, extra = SNAPML[problem]

            def fit():
                model = getattr(snapml, name)(regularizer=1.0, fit_intercept=False, n_jobs=t, **extra)
                start = time.perf_counter()
                model.fit(x32, y)
                seconds = time.perf_counter() - start
                # classes_ sorted: coef_ scores the class +1.
                return seconds, model.coef_.ravel().astype(np.float64), str(getattr(model, "n_iter_", ""))
            return fit

        for problem in problems:
            for t in threads:
                name, extra = SNAPML[problem]
                peers.append((problem, f"Snap ML {snap_version} {name}"
                              f"{'(' + extra['loss'] + ')' if extra else ''}, n_jobs {t}, fit only",
                              snapml_fit(problem, t)))
    except ImportError:
        print("(no snapml in this Python: bench/peers/setup.sh)")
    return peers


def parsgd_weights(model, d):
    """parsgd's weights from its model file (a -1/+1 file's: they score +1), where this Python
    imports parsgd; else None."""
    try:
        from parsgd import _parsgd
    except ImportError:
        return None
    return np.array(_parsgd.Model.load(model).params[:d], dtype=np.float64)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--problems", default="hinge,squared-hinge,logistic")
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    p.add_argument("--solvers", default="dual-cd,cd", help="parsgd's solvers to run")
    p.add_argument("--no-sklearn", action="store_true")
    p.add_argument("--liblinear-train", default="liblinear-train",
                   help="LIBLINEAR's train programs to run, comma-separated (default: Debian's, "
                        "2.3.0; another release's `make train` too, e.g. liblinear-train,/opt/ll25/train)")
    p.add_argument("--xgboost", action="store_true", help="also xgboost's gblinear (logistic)")
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    problems = a.problems.split(",")

    from sklearn.datasets import load_svmlight_file
    x, y = load_svmlight_file(a.train, dtype=np.float64)
    # 32-bit indices: today's scikit-learn reads them as 64-bit, and its input checks (Snap ML's
    # and LogisticRegression's liblinear solver) refuse those.
    x.indices, x.indptr = x.indices.astype(np.int32), x.indptr.astype(np.int32)
    # Every w below scores the positive label (LIBLINEAR's, which score the first label they
    # meet, are turned where the file starts with the negative one).
    y = np.where(y > 0, 1.0, -1.0)
    n, d = x.shape

    work = tempfile.mkdtemp(prefix="anchors.")
    runs = {}  # (problem, label) -> list of (seconds, output or (w, passes))
    commands = []
    for problem in problems:
        for k, program in enumerate(filter(None, a.liblinear_train.split(","))):
            for s in LIBLINEAR[problem]:
                model = os.path.join(work, f"ll{k}-{s}.model")
                commands.append((problem, f"liblinear {k} -s {s}",
                                 [program, "-s", s, "-c", "1", a.train, model], model))
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
    peers = todays_peers(x, y, problems, threads)
    for r in range(a.rounds):
        for problem, label, cmd, _ in commands:
            seconds, out = timed(cmd)
            runs.setdefault((problem, label), []).append((seconds, out))
            print(f"round {r + 1}: {problem:8} {label:18} {seconds:7.2f} s", flush=True)
        for problem, label, fit in peers:
            seconds, w, passes = fit()
            runs.setdefault((problem, label), []).append((seconds, (w, passes)))
            print(f"round {r + 1}: {problem:8} {label} {seconds:7.2f} s", flush=True)

    def primal(problem, w):
        return 0.5 * w @ w + LOSS[problem](y * (x @ w)).sum()

    print(f"\n{a.train}: {n} rows x {d} features, {x.nnz} nonzeros; C = 1, no bias")
    print(f"| problem | command | seconds (median, min-max of {a.rounds}) | passes | primal |")
    print("|---|---|---|---|---|")
    for problem, label, cmd, model in commands:
        times = [s for s, _ in runs[(problem, label)]]
        last_out = runs[(problem, label)][-1][1]
        if label.startswith("liblinear"):
            value = primal(problem, liblinear_weights(model, d))
            lines = last_out.split("\n")
            dual = [l for l in lines if "#iter" in l]  # dual solvers: "optimization finished, #iter = N"
            newton = [l for l in lines if l.lstrip().startswith("iter")]  # -s 0: one line per Newton step
            passes = dual[-1].split("=")[-1].strip() if dual else f"{len(newton)} Newton"
        else:
            metrics = model.replace(".model", ".jsonl")
            rows = [json.loads(l) for l in open(metrics)]
            passes = str(len(rows))
            w = parsgd_weights(model, d)
            # C n times parsgd's objective (C = 1) where the weights cannot be read here.
            value = primal(problem, w) if w is not None else rows[-1]["objective"] * n
        # The program as given (parsgd's by name), the files by name.
        shown = ["parsgd" if cmd[0] == a.parsgd else cmd[0]]
        shown += [os.path.basename(c) if os.sep in c else c for c in cmd[1:]]
        print(f"| {problem} | `{' '.join(shown)}`, "
              f"file to model | {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) | {passes} "
              f"| {value:,.3f} |")
    for problem, label, _ in peers:
        times = [s for s, _ in runs[(problem, label)]]
        w, passes = runs[(problem, label)][-1][1]
        print(f"| {problem} | {label} | {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) "
              f"| {passes} | {primal(problem, w):,.3f} |")
    if "logistic" in problems and not a.no_sklearn:
        import sklearn
        from sklearn.linear_model import LogisticRegression
        times = []
        for _ in range(a.rounds):
            clf = LogisticRegression(solver="liblinear", C=1.0, fit_intercept=False)
            start = time.perf_counter()
            clf.fit(x, y)
            times.append(time.perf_counter() - start)
        print(f"| logistic | scikit-learn {sklearn.__version__} LogisticRegression(solver='liblinear', "
              f"fit_intercept=False), fit only | {st.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}) "
              f"| {clf.n_iter_[0]} | {primal('logistic', clf.coef_.ravel()):,.3f} |")

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
