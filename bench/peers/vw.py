#!/usr/bin/env python3
"""parsgd against Vowpal Wabbit on VW's own text format, file to model, one program at a time.

The training and test files are LIBSVM text (the RCV1-shaped set: bench/README.md, "The data
sets"), written here once as VW text (`+1 |f 12:0.25 907:0.5 ...`, one namespace, binary -1/+1
labels). Vowpal Wabbit (bench/peers/setup.sh's `vowpalwabbit`, its command-line driver run through
the Python module's Workspace with -d: the same parser and learner as the `vw` program) trains
logistic regression on 2^--bits hashed weights for --passes passes over its cache (-c: the first
pass parses the text and writes the cache, the others read it), with its defaults otherwise
(adaptive, normalised, invariant steps), twice: with its own hashing, which takes a feature name
of digits as its number (these features then fill distinct columns; parsgd's `--format vw` hashes
so too), and with `--hash all`, which hashes every name as text (and collides). Its time is the
Workspace's, from the text to the model, and its test accuracy that of its model on the test
file. parsgd trains the
same file with `--format vw --model logistic` and its defaults otherwise, 2 threads (--threads),
for --epochs epochs, at 2^--bits columns and at 2^--more-bits, the test file measured after every
epoch (its --metrics rows); its time is the training time (train_seconds) to the first epoch at or
above each VW run's test accuracy, and the whole command's wall time (reading and hashing the text
included). Repeats are interleaved; times are medians.

usage: bench/peers/venv/bin/python bench/peers/vw.py TRAIN.svm TEST.svm [--work DIR]
           [--bits 18] [--more-bits 22] [--passes 10] [--epochs 10] [--threads 2] [--repeats 3]
           [--parsgd build/parsgd]
"""
import argparse
import json
import os
import statistics as st
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def to_vw(svm, vw):
    """LIBSVM text to VW text, labels >0 as 1 and the rest -1, one namespace f."""
    if os.path.exists(vw):
        return
    with open(svm) as src, open(vw + ".part", "w") as out:
        for line in src:
            label, _, features = line.partition(" ")
            out.write(("1" if float(label) > 0 else "-1") + " |f " + features)
    os.replace(vw + ".part", vw)


def vw_run(train, test, labels, bits, passes, work, extra=""):
    """(seconds from the text to the model, test accuracy); `labels`: the test file's."""
    from vowpalwabbit import Workspace
    model = os.path.join(work, "vw.model")
    cache = os.path.join(work, "vw.cache")
    if os.path.exists(cache):
        os.remove(cache)  # every run writes its cache in its first pass, as `vw -c` from scratch
    start = time.perf_counter()
    ws = Workspace(f"-d {train} --loss_function logistic -b {bits} --passes {passes} -c "
                   f"--cache_file {cache} -k --holdout_off -f {model} --quiet {extra}")
    ws.run_parser()
    ws.finish()
    seconds = time.perf_counter() - start
    predictions = os.path.join(work, "vw.pred")
    ws = Workspace(f"-t -i {model} -d {test} --binary -p {predictions} --quiet")
    ws.run_parser()
    ws.finish()
    with open(predictions) as f:
        predicted = [float(line.split()[0]) for line in f]
    right = sum((p > 0) == (l > 0) for p, l in zip(predicted, labels))
    return seconds, right / len(labels)


def parsgd_run(parsgd, train, test, bits, epochs, threads, work):
    metrics = os.path.join(work, "parsgd.jsonl")
    start = time.perf_counter()
    subprocess.run([parsgd, "train", "--train", train, "--test", test, "--format", "vw",
                    "--model", "logistic", "--hash-bits", str(bits), "--epochs", str(epochs),
                    "--threads", str(threads), "--metrics", metrics, "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    return wall, [json.loads(line) for line in open(metrics)]


def reached(rows, accuracy):
    """(training seconds, epoch) to the first epoch at or above accuracy, or None."""
    elapsed = 0.0
    for row in rows:
        elapsed += row["train_seconds"]
        if row["test_accuracy"] >= accuracy:
            return elapsed, row["epoch"]
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--work", default=None, help="where the VW text is written (default: beside TRAIN)")
    p.add_argument("--bits", type=int, default=18)
    p.add_argument("--more-bits", type=int, default=22)
    p.add_argument("--passes", type=int, default=10)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    a = p.parse_args()
    import vowpalwabbit
    work = a.work or os.path.dirname(os.path.abspath(a.train))
    train_vw = os.path.join(work, os.path.basename(a.train) + ".vw")
    test_vw = os.path.join(work, os.path.basename(a.test) + ".vw")
    to_vw(a.train, train_vw)
    to_vw(a.test, test_vw)
    scratch = tempfile.mkdtemp(prefix="vw.")
    with open(test_vw) as f:
        labels = [float(line.split(" ", 1)[0]) for line in f]
    vw_runs = {f"VW, its hashing (digits as numbers), 2^{a.bits}": "",
               f"VW `--hash all` (every name as text), 2^{a.bits}": "--hash all"}
    ours_runs = {f"parsgd `--format vw`, 2^{a.bits}": a.bits, f"parsgd `--format vw`, 2^{a.more_bits}": a.more_bits}
    vw = {name: [] for name in vw_runs}
    ours = {name: [] for name in ours_runs}
    for r in range(a.repeats):
        for name, extra in vw_runs.items():
            vw[name].append(vw_run(train_vw, test_vw, labels, a.bits, a.passes, scratch, extra))
            print(f"repeat {r + 1}: {name}: {vw[name][-1][0]:.2f} s {100 * vw[name][-1][1]:.2f}%", flush=True)
        for name, bits in ours_runs.items():
            ours[name].append(parsgd_run(a.parsgd, train_vw, test_vw, bits, a.epochs, a.threads, scratch))
            print(f"repeat {r + 1}: {name}: {ours[name][-1][0]:.2f} s "
                  f"{100 * ours[name][-1][1][-1]['test_accuracy']:.2f}%", flush=True)
    print(f"\n{a.train} as VW text; vowpalwabbit {vowpalwabbit.__version__}; {a.passes} passes for VW, "
          f"{a.epochs} epochs and {a.threads} threads for parsgd; medians of {a.repeats}")
    print("| trainer | file to model, seconds | test accuracy |")
    print("|---|---|---|")
    for name in vw_runs:
        print(f"| {name}, logistic, {a.passes} passes over its cache | {st.median(s for s, _ in vw[name]):.2f} "
              f"| {100 * vw[name][-1][1]:.2f}% |")
    for name in ours_runs:
        print(f"| {name}, {a.epochs} epochs | {st.median(w for w, _ in ours[name]):.2f} "
              f"| {100 * ours[name][-1][1][-1]['test_accuracy']:.2f}% |")
    print("\n| parsgd run | VW run | parsgd's training time to VW's test accuracy | / VW's time |")
    print("|---|---|---|---|")
    for name in ours_runs:
        for vname in vw_runs:
            target = vw[vname][-1][1]
            vw_seconds = st.median(s for s, _ in vw[vname])
            hits = [reached(rows, target) for _, rows in ours[name]]
            if all(hits):
                t = st.median(h[0] for h in hits)
                print(f"| {name} | {vname} | {t:.2f} s (epoch {max(h[1] for h in hits)}) | {t / vw_seconds:.2f}x |")
            else:
                best = max(r["test_accuracy"] for _, rows in ours[name] for r in rows)
                print(f"| {name} | {vname} | not reached in {a.epochs} epochs (best {100 * best:.2f}%) | |")


if __name__ == "__main__":
    main()
