#!/usr/bin/env python3
"""Missing values filled in: parsgd train --missing zero|mean|median|most-frequent|indicator against
scikit-learn's usual pipeline (SimpleImputer with the same strategy, or add_indicator, then
one-hot for the text columns, StandardScaler, and Ridge() for a regression or
LogisticRegression() for classes), on real tables with cells blanked at random.

The tables, from Debian packages: Vega's cars (python3-vega-datasets: 392 rows, miles per gallon
from cylinders, displacement, horsepower, weight, acceleration, the model year and the origin as
text) and scikit-learn's diabetes (442 rows, 10 standardised columns), each shuffled (seed 0) and
cut 80/20, then --blank cells of the number columns (training and test rows alike) emptied at
random (seed 1). Reported: the test rows' R^2 of each (parsgd's from its last line, given only the
data, the label column, the model and --missing), medians over --repeats for parsgd (its runs
vary with the threads' interleaving).

Usage: missing.py PARSGD WORKDIR [--blank N] [--repeats R] [--threads T]
"""
import argparse
import json
import os
import re
import statistics
import subprocess

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_diabetes
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

CARS = "/usr/lib/python3/dist-packages/vega_datasets/_data/cars.json"
CAR_COLUMNS = ["Cylinders", "Displacement", "Horsepower", "Weight_in_lbs", "Acceleration"]


def cars():
    with open(CARS) as f:
        rows = [c for c in json.load(f)
                if c["Miles_per_Gallon"] is not None and all(c[k] is not None for k in CAR_COLUMNS)]
    header = ["mpg"] + CAR_COLUMNS + ["year", "origin"]
    table = [[c["Miles_per_Gallon"]] + [float(c[k]) for k in CAR_COLUMNS] +
             [float(c["Year"][:4]), c["Origin"]] for c in rows]
    return header, table, [len(header) - 1]


def diabetes():
    x, y = load_diabetes(return_X_y=True)
    header = ["target"] + [f"x{j}" for j in range(x.shape[1])]
    return header, [[t] + list(r) for r, t in zip(x, y)], []


def blank(table, text_columns, count, seed):
    rng = np.random.RandomState(seed)
    numbers = [j for j in range(1, len(table[0])) if j not in text_columns]
    cells = [(i, j) for i in range(len(table)) for j in numbers]
    for k in rng.choice(len(cells), size=count, replace=False):
        i, j = cells[k]
        table[i][j] = None


def write(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join("" if v is None else str(v) for v in r) + "\n")


def parsgd_r2(parsgd, train, test, label, missing, threads):
    out = subprocess.run([parsgd, "train", "--train", train, "--test", test, "--label-column",
                          label, "--model", "squared", "--missing", missing, "--threads",
                          str(threads)], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"R\^2 (-?[0-9.e+-]+)", out.strip().splitlines()[-1]).group(1))


def sklearn_r2(train, test, text_columns, strategy):
    def split(rows):
        x = [[np.nan if v is None else v for v in r[1:]] for r in rows]
        return x, np.array([r[0] for r in rows])
    xt, yt = split(train)
    xs, ys = split(test)
    text = [j - 1 for j in text_columns]
    numbers = [j for j in range(len(xt[0])) if j not in text]
    if strategy == "zero":
        imputer = SimpleImputer(strategy="constant", fill_value=0)
    elif strategy == "indicator":
        imputer = SimpleImputer(strategy="constant", fill_value=0, add_indicator=True)
    else:
        imputer = SimpleImputer(strategy=strategy.replace("-", "_"))
    steps = [("numbers", make_pipeline(imputer, StandardScaler()), numbers)]
    if text:
        steps.append(("text", OneHotEncoder(handle_unknown="ignore"), text))
    model = make_pipeline(ColumnTransformer(steps), Ridge())
    xt_array = np.array(xt, dtype=object)
    xs_array = np.array(xs, dtype=object)
    model.fit(xt_array, yt)
    return r2_score(ys, model.predict(xs_array))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parsgd")
    parser.add_argument("workdir")
    parser.add_argument("--blank", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    a = parser.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    print(f"| table | --missing | parsgd test R^2 | scikit-learn's pipeline test R^2 |")
    print("|---|---|---:|---:|")
    for name, make in (("cars", cars), ("diabetes", diabetes)):
        header, table, text_columns = make()
        blank(table, text_columns, a.blank, 1)
        order = np.random.RandomState(0).permutation(len(table))
        cut = int(0.8 * len(table))
        train_rows = [table[i] for i in order[:cut]]
        test_rows = [table[i] for i in order[cut:]]
        train = os.path.join(a.workdir, f"{name}.train.csv")
        test = os.path.join(a.workdir, f"{name}.test.csv")
        write(train, header, train_rows)
        write(test, header, test_rows)
        for missing in ("zero", "mean", "median", "most-frequent", "indicator"):
            ours = statistics.median(parsgd_r2(a.parsgd, train, test, header[0], missing, a.threads)
                                     for _ in range(a.repeats))
            theirs = sklearn_r2(train_rows, test_rows, text_columns, missing)
            print(f"| {name} ({a.blank} cells blank) | {missing} | {ours:.4f} | {theirs:.4f} |")


if __name__ == "__main__":
    main()
