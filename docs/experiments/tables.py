#!/usr/bin/env python3
"""Prints the result tables of docs/experiments.md from the summary.csv files that
docs/experiments/run.sh wrote (OUT, default out/experiments): every number in those tables comes
from here, unrounded in the CSV files."""
import csv
import os
import sys

OUT = os.environ.get("OUT", "out/experiments")


def rows(name):
    path = os.path.join(OUT, name, "summary.csv")
    if not os.path.exists(path):
        sys.exit(f"{path}: missing (run docs/experiments/run.sh)")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v, digits=4):
    return "–" if v in ("", None) else f"{float(v):.{digits}g}"


def mean_std(r, key, digits=5):
    return f"{num(r[key + '_mean'], digits)} ± {num(r[key + '_std'], 2)}"


def rate(v):
    return "–" if v == "" else f"{float(v) / 1e6:.3g} M" if float(v) >= 1e6 else f"{float(v) / 1e3:.3g} k"


def to_target(r):
    reached, runs = int(r["reached"] or 0), int(r["runs"])
    if reached == 0:
        return "not reached"
    return f"{float(r['epochs_to_target_mean']):.3g}" + ("" if reached == runs else f" ({reached}/{runs})")


def orders():
    print("| set | scheme | random | global | local |")
    print("|---|---|---|---|---|")
    for name, label in (("1-order-sparse", "RCV1-shaped"), ("1-order-fmnist", "Fashion-MNIST")):
        by = {(r["scheme"], r["order"]): r for r in rows(name)}
        for scheme in ("sequential", "hogwild", "sync", "average"):
            cells = []
            for order in ("random", "global", "local"):
                r = by[(scheme, order)]
                cells.append(f"{mean_std(r, 'objective')}; {float(r['test_accuracy_mean']) * 100:.2f}%; "
                             f"{to_target(r)}")
            print(f"| {label} | {scheme} | " + " | ".join(cells) + " |")


def schemes():
    print("| set | scheme | samples/s, 1 thread | samples/s, 2 threads | speedup (samples/s) "
          "| epochs to target, 1 / 2 threads | speedup (time to target) |")
    print("|---|---|---|---|---|---|---|")
    sets = [("2-schemes-sparse", None, "RCV1-shaped (70 nnz, Zipf 1)"),
            ("2-schemes-fmnist", None, "Fashion-MNIST softmax (dense)")]
    sets += [("2-sparsity", f"{DATA}/{s}.bin", label) for s, label in (
        ("nnz10", "200k rows, 10 nnz, Zipf 1"), ("nnz70", "200k rows, 70 nnz, Zipf 1"),
        ("nnz300", "200k rows, 300 nnz, Zipf 1"), ("zipf0.5", "200k rows, 70 nnz, Zipf 0.5"),
        ("zipf1.5", "200k rows, 70 nnz, Zipf 1.5"))]
    for name, train, label in sets:
        table = [r for r in rows(name) if train is None or r.get("train") == train]
        by = {(r["scheme"], r["threads"]): r for r in table}
        for scheme in ("hogwild", "locked", "striped", "atomic", "sync"):
            one, two = by[(scheme, "1")], by[(scheme, "2")]
            print(f"| {label} | {scheme} | {rate(one['samples_per_second_mean'])} | "
                  f"{rate(two['samples_per_second_mean'])} | {num(two['throughput_speedup'], 3)}× | "
                  f"{to_target(one)} / {to_target(two)} | "
                  f"{num(two['time_to_target_speedup'], 3)}{'×' if two['time_to_target_speedup'] else ''} |")


def periods():
    print("| set | configuration | final objective | epochs to target | seconds to target "
          "| samples/s |")
    print("|---|---|---|---|---|---|")
    for name, label in (("3-period-sparse", "RCV1-shaped"), ("3-period-fmnist", "Fashion-MNIST")):
        for r in rows(name):
            seconds = "–" if r["seconds_to_target_mean"] == "" else \
                f"{float(r['seconds_to_target_mean']):.3g} ± {num(r['seconds_to_target_std'], 2)}"
            print(f"| {label} | {r['label']} | {mean_std(r, 'objective')} | {to_target(r)} | "
                  f"{seconds} | {rate(r['samples_per_second_mean'])} |")


DATA = os.environ.get("DATA", "out/experiments/data")
if __name__ == "__main__":
    which = sys.argv[1:] or ["1", "2", "3"]
    for w in which:
        {"1": orders, "2": schemes, "3": periods}[w]()
        print()
