#!/usr/bin/env python3
"""Small tables, the whole process: `parsgd train --train T.csv --test V.csv` given only the data,
against scikit-learn's usual pipeline (pandas.read_csv of both files, then one-hot for the text
columns and StandardScaler for the numbers, LogisticRegression(), fit and test accuracy).

Timed: parsgd's whole process (start to exit, reading, training and testing included), and
scikit-learn's read + fit + score inside one Python process (its imports not counted). Medians over
--repeats, the two run alternately; the ratio is parsgd's median over scikit-learn's.

The tables, from Debian packages, each shuffled (seed 0) and cut 75/25 (stratified), written as CSV
with a header and the label first (text class names where the source has them):
- scikit-learn's bundled iris, wine, breast_cancer and digits (numbers);
- LIBLINEAR's heart_scale (liblinear-tools);
- Vega's cars (the origin from the car's numbers; rows with blanks left out), seattle-weather (the
  weather from the day's numbers and its month as text) and barley (the year from the yield, the
  variety and the site, both text) (python3-vega-datasets);
- statsmodels' anes96 (the vote), fair (any affair; the occupations as text) and modechoice (the
  mode chosen; the mode as text) (python3-statsmodels).

Usage: small_tables.py PARSGD WORKDIR [--repeats R] [--only NAME,...] [-- PARSGD FLAGS...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from sklearn import datasets
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

VEGA = "/usr/lib/python3/dist-packages/vega_datasets/_data"
HEART = "/usr/share/doc/liblinear-tools/examples/heart_scale"


def bundled(load, names=None):
    d = load()
    frame = pd.DataFrame(d.data, columns=[f"x{j}" for j in range(d.data.shape[1])])
    labels = d.target if names is None else np.array(names)[d.target]
    frame.insert(0, "label", labels)
    return frame


def heart():
    x, y = load_svmlight_file(HEART)
    frame = pd.DataFrame(x.toarray(), columns=[f"x{j}" for j in range(x.shape[1])])
    frame.insert(0, "label", y.astype(int))
    return frame


def cars():
    with open(os.path.join(VEGA, "cars.json")) as f:
        frame = pd.DataFrame(json.load(f))
    frame["Year"] = frame["Year"].str[:4].astype(int)
    frame = frame.dropna()
    return frame[["Origin", "Miles_per_Gallon", "Cylinders", "Displacement", "Horsepower",
                  "Weight_in_lbs", "Acceleration", "Year"]]


def seattle():
    frame = pd.read_csv(os.path.join(VEGA, "seattle-weather.csv"))
    frame["month"] = pd.to_datetime(frame["date"]).dt.strftime("%b")
    return frame[["weather", "precipitation", "temp_max", "temp_min", "wind", "month"]]


def barley():
    with open(os.path.join(VEGA, "barley.json")) as f:
        frame = pd.DataFrame(json.load(f))
    return frame[["year", "yield", "variety", "site"]]


def statsmodels_set(name):
    import statsmodels.api as sm
    frame = getattr(sm.datasets, name).load_pandas().data
    if name == "anes96":
        return frame[["vote"] + [c for c in frame.columns if c != "vote"]]
    if name == "fair":
        frame.insert(0, "affair", (frame.pop("affairs") > 0).astype(int))
        for c in ("occupation", "occupation_husb"):
            frame[c] = "occ" + frame[c].astype(int).astype(str)
        return frame
    if name == "modechoice":
        frame = frame.drop(columns=["individual"])
        frame["mode"] = frame["mode"].map({1: "air", 2: "train", 3: "bus", 4: "car"})
        return frame[["choice"] + [c for c in frame.columns if c != "choice"]]
    raise ValueError(name)


TABLES = {
    "iris": lambda: bundled(datasets.load_iris, ["setosa", "versicolor", "virginica"]),
    "wine": lambda: bundled(datasets.load_wine),
    "breast_cancer": lambda: bundled(datasets.load_breast_cancer, ["malignant", "benign"]),
    "digits": lambda: bundled(datasets.load_digits),
    "heart_scale": heart,
    "cars": cars,
    "seattle_weather": seattle,
    "barley": barley,
    "anes96": lambda: statsmodels_set("anes96"),
    "fair": lambda: statsmodels_set("fair"),
    "modechoice": lambda: statsmodels_set("modechoice"),
}


def write(name, frame, work):
    frame = frame.sample(frac=1.0, random_state=0)
    train, test = train_test_split(frame, test_size=0.25, random_state=0,
                                   stratify=frame.iloc[:, 0])
    paths = (os.path.join(work, name + ".train.csv"), os.path.join(work, name + ".test.csv"))
    train.to_csv(paths[0], index=False)
    test.to_csv(paths[1], index=False)
    return paths, len(train), len(test)


def run_parsgd(parsgd, paths, flags):
    start = time.perf_counter()
    out = subprocess.run([parsgd, "train", "--train", paths[0], "--test", paths[1]] + flags,
                         check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    lines = out.strip().splitlines()
    accuracy = float(re.search(r"test accuracy ([0-9.]+)%", lines[-1]).group(1))
    epochs = [int(m.group(1)) for m in (re.match(r" *([0-9]+)/[0-9]+ ", l) for l in lines) if m]
    return seconds, accuracy, epochs[-1]


def run_sklearn(paths):
    start = time.perf_counter()
    train, test = pd.read_csv(paths[0]), pd.read_csv(paths[1])
    label = train.columns[0]
    x, y = train.drop(columns=[label]), train[label]
    text = [c for c in x.columns if x[c].dtype == object]
    numbers = [c for c in x.columns if c not in text]
    model = make_pipeline(
        ColumnTransformer([("text", OneHotEncoder(handle_unknown="ignore"), text),
                           ("numbers", StandardScaler(), numbers)]),
        LogisticRegression())
    model.fit(x, y)
    accuracy = 100.0 * model.score(test.drop(columns=[label]), test[label])
    return time.perf_counter() - start, accuracy


def main():
    argv = sys.argv[1:]
    flags = []
    if "--" in argv:
        flags = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser()
    p.add_argument("parsgd")
    p.add_argument("work")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--only", default="")
    a = p.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    names = a.only.split(",") if a.only else list(TABLES)
    import warnings
    warnings.filterwarnings("ignore")  # LogisticRegression's max_iter warning on raw tables
    print("| table | rows (train + test) | parsgd epochs | parsgd test accuracy | scikit-learn "
          "test accuracy | parsgd s | scikit-learn s | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for name in names:
        paths, n_train, n_test = write(name, TABLES[name](), a.work)
        ours, theirs = [], []
        for _ in range(a.repeats):  # alternately, so that both see the machine alike
            ours.append(run_parsgd(a.parsgd, paths, flags))
            theirs.append(run_sklearn(paths))
        ours_s = statistics.median(r[0] for r in ours)
        theirs_s = statistics.median(r[0] for r in theirs)
        accuracy = statistics.median(r[1] for r in ours)
        epochs = statistics.median(r[2] for r in ours)
        ratios.append(ours_s / theirs_s)
        print(f"| {name} | {n_train} + {n_test} | {epochs:g} | {accuracy:.2f}% | "
              f"{theirs[0][1]:.2f}% | {ours_s:.4f} | {theirs_s:.4f} | {ours_s / theirs_s:.2f} |",
              flush=True)
    geo = float(np.exp(np.mean(np.log(ratios))))
    print(f"\ngeometric mean of the ratios: {geo:.2f}; largest: {max(ratios):.2f}")


if __name__ == "__main__":
    main()
