#!/usr/bin/env python3
"""Regression with the defaults on real tables: parsgd train --model
squared|huber|epsilon-insensitive (given only the data and the model) against scikit-learn's LinearRegression(), Ridge() and SGDRegressor() (squared
and huber), each as a new user would first call it, on the raw columns.

The tables, from Debian packages: scikit-learn's diabetes (442 rows, 10 standardised columns, the
disease progression) and Vega's cars (python3-vega-datasets: 392 rows with every value, miles per
gallon from cylinders, displacement, horsepower, weight, acceleration, the model year and the
origin as text), each shuffled (seed 0) and cut 80/20, and each again with its targets times 1000
(the same quantities in other units: prices in dollars rather than thousands), where a tool whose
steps follow the targets' scale fits the same model 1000 times as large: the same R^2 and 1000
times the RMSE. Reported: the test rows' R^2 and RMSE
(parsgd's from its last line, scikit-learn's from r2_score), and the seconds of the whole parsgd
process (start, reading, training, the test rows) and of scikit-learn's fit alone, medians over
--repeats.

Usage: regression.py PARSGD WORKDIR [--repeats R] [--threads T]
"""
import argparse
import itertools
import json
import os
import re
import statistics
import subprocess
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, Ridge, SGDRegressor
from sklearn.metrics import mean_squared_error, r2_score

CARS = "/usr/lib/python3/dist-packages/vega_datasets/_data/cars.json"
CAR_COLUMNS = ["Cylinders", "Displacement", "Horsepower", "Weight_in_lbs", "Acceleration"]
ORIGINS = ["USA", "Europe", "Japan"]


def diabetes():
    x, y = load_diabetes(return_X_y=True)
    header = ["target"] + [f"x{j}" for j in range(x.shape[1])]
    rows = [[t] + list(r) for r, t in zip(x, y)]
    return header, rows, x, y


def cars():
    with open(CARS) as f:
        cars = [c for c in json.load(f)
                if c["Miles_per_Gallon"] is not None and all(c[k] is not None for k in CAR_COLUMNS)]
    header = ["mpg"] + CAR_COLUMNS + ["year", "origin"]
    rows = [[c["Miles_per_Gallon"]] + [c[k] for k in CAR_COLUMNS] + [int(c["Year"][:4]),
                                                                      c["Origin"]] for c in cars]
    # scikit-learn's side: the origin one-hot, as parsgd's CSV reader makes it.
    x = np.array([r[1:-1] + [r[-1] == o for o in ORIGINS] for r in rows], dtype=float)
    y = np.array([r[0] for r in rows])
    return header, rows, x, y


def split(folder, name, header, rows, x, y):
    order = np.random.RandomState(0).permutation(len(rows))
    cut = int(0.8 * len(rows))
    paths = []
    for part, idx in (("train", order[:cut]), ("test", order[cut:])):
        path = os.path.join(folder, f"{name}.{part}.csv")
        with open(path, "w") as f:
            f.write(",".join(header) + "\n")
            for i in idx:
                f.write(",".join(str(v) for v in rows[i]) + "\n")
        paths.append(path)
    return paths, (x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]])


def parsgd_run(parsgd, train, test, label, model, threads, extra=()):
    start = time.perf_counter()
    out = subprocess.run([parsgd, "train", "--train", train, "--test", test, "--label-column",
                          label, "--model", model, "--threads", str(threads), *extra],
                         check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    last = out.strip().splitlines()[-1]
    r2 = float(re.search(r"R\^2 (-?[0-9.e+-]+)", last).group(1))
    rmse = float(re.search(r"RMSE ([0-9.e+-]+)", last).group(1))
    return r2, rmse, seconds


def sklearn_run(estimator, xt, yt, xs, ys):
    start = time.perf_counter()
    estimator.fit(xt, yt)
    seconds = time.perf_counter() - start
    predicted = estimator.predict(xs)
    if not np.all(np.isfinite(predicted)):
        return float("nan"), float("nan"), seconds
    return r2_score(ys, predicted), mean_squared_error(ys, predicted) ** 0.5, seconds


def main():
    warnings.filterwarnings("ignore", category=ConvergenceWarning)  # SGDRegressor's, every run
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parsgd")
    parser.add_argument("workdir")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    a = parser.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    for (name, make), scale in itertools.product((("diabetes", diabetes), ("cars", cars)),
                                                 (1, 1000)):
        header, rows, x, y = make()
        if scale != 1:
            name = f"{name}-x{scale}"
            rows = [[r[0] * scale] + r[1:] for r in rows]
            y = y * scale
        (train, test), (xt, yt, xs, ys) = split(a.workdir, name, header, rows, x, y)
        runs = {
            "parsgd --model squared": lambda: parsgd_run(a.parsgd, train, test, header[0],
                                                         "squared", a.threads),
            "parsgd --model squared --solver cd": lambda: parsgd_run(
                a.parsgd, train, test, header[0], "squared", a.threads, ("--solver", "cd")),
            "parsgd --model huber": lambda: parsgd_run(a.parsgd, train, test, header[0], "huber",
                                                       a.threads),
            "parsgd --model epsilon-insensitive": lambda: parsgd_run(
                a.parsgd, train, test, header[0], "epsilon-insensitive", a.threads),
            "parsgd --model huber --optimizer adam": lambda: parsgd_run(
                a.parsgd, train, test, header[0], "huber", a.threads, ("--optimizer", "adam")),
            "LinearRegression()": lambda: sklearn_run(LinearRegression(), xt, yt, xs, ys),
            "Ridge()": lambda: sklearn_run(Ridge(), xt, yt, xs, ys),
            "SGDRegressor()": lambda: sklearn_run(SGDRegressor(), xt, yt, xs, ys),
            "SGDRegressor(loss='huber')": lambda: sklearn_run(SGDRegressor(loss="huber"), xt, yt,
                                                              xs, ys),
        }
        print(f"\n{name}: {len(yt)} training rows, {len(ys)} test rows")
        print(f"| {'run':36} | test R^2 | test RMSE | seconds |")
        print(f"|{'-' * 38}|---------:|----------:|--------:|")
        for label, run in runs.items():
            results = [run() for _ in range(a.repeats)]
            r2, rmse, _ = results[-1]
            seconds = statistics.median(s for _, _, s in results)
            shown = f"{r2:8.4f}" if r2 > -1000 else f"{r2:8.1e}"  # a diverged fit's
            print(f"| {label:36} | {shown} | {rmse:9.4g} | {seconds:7.3f} |")


if __name__ == "__main__":
    main()
