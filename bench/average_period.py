#!/usr/bin/python3
"""The averaging period experiment: the average scheme with period K in {1, 2, 5, 10, 20, 50, 100,
epoch}, with and without --average-state, for sgd and momentum, next to hogwild and sync; all with
the same data, epochs, seed and thread count, one run after another.

Prints a Markdown table: final objective, test accuracy, and samples/s (median epoch) per
configuration. The source texts report K of 10 to 20 minibatches working well; this measures it.

usage: bench/average_period.py TRAIN TEST [--model logistic] [--epochs 5] [--threads 2]
                               [--periods 1,2,5,10,20,50,100,epoch] [--batch auto]
                               [--parsgd build/parsgd]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def train(parsgd, args):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as m:
        subprocess.run([parsgd, "train", *args, "--metrics", m.name, "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        rows = [json.loads(line) for line in open(m.name)]
    rate = statistics.median(r["updates"] / r["train_seconds"] for r in rows)
    return rows[-1]["objective"], rows[-1]["test_accuracy"], rate


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--model", default="logistic")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--periods", default="1,2,5,10,20,50,100,epoch")
    p.add_argument("--batch", default="auto", help="the average scheme's minibatch per worker")
    p.add_argument("--parsgd", default=os.path.join(os.path.dirname(__file__), "..", "build", "parsgd"))
    a = p.parse_args()
    base = ["--train", a.train, "--test", a.test, "--model", a.model, "--epochs", str(a.epochs),
            "--threads", str(a.threads)]
    print(f"| optimizer | scheme | period | state | objective after {a.epochs} epochs | test accuracy | samples/s |")
    print("|---|---|---|---|---|---|---|")
    for optimizer in ("sgd", "momentum"):
        opt = ["--optimizer", optimizer]
        for scheme in ("hogwild", "sync"):
            obj, acc, rate = train(a.parsgd, base + opt + ["--scheme", scheme])
            print(f"| {optimizer} | {scheme} | - | - | {obj:.6f} | {100 * acc:.2f}% | {rate / 1e6:.2f} M |", flush=True)
        for period in a.periods.split(","):
            for state in ((False,) if optimizer == "sgd" else (False, True)):
                extra = ["--scheme", "average", "--period", period, "--batch", a.batch]
                extra += ["--average-state"] if state else []
                obj, acc, rate = train(a.parsgd, base + opt + extra)
                label = "averaged" if state else ("per replica" if optimizer != "sgd" else "-")
                print(f"| {optimizer} | average | {period} | {label} | {obj:.6f} | {100 * acc:.2f}% | {rate / 1e6:.2f} M |", flush=True)


if __name__ == "__main__":
    main()
