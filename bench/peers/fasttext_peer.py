#!/usr/bin/env python3
"""parsgd against fastText on raw text in fastText's format, file to model, one program at a time.

TRAIN and TEST are `__label__CLASS words ...` lines (bench/peers/make_fasttext_set.py writes the
Debian package-description set). fastText (bench/peers/setup.sh's `fasttext`, its C++ trainer
through the Python module's train_supervised, which reads the file itself) trains with its
defaults (single words, 5 epochs) and with word pairs (wordNgrams 2), --threads threads each;
its time is train_supervised's, file to model, its accuracy P@1 on TEST (model.test). parsgd
trains `parsgd train --train TRAIN --model softmax --save M --threads T` (its defaults: word
pairs, 2^16 columns, 20 epochs) and at fastText's 5 epochs; its time is the whole command's, its
accuracy `parsgd eval M TEST`'s. Rounds are interleaved; times are medians over --repeats.

usage: bench/peers/venv/bin/python bench/peers/fasttext_peer.py TRAIN TEST [--repeats 5]
           [--threads 2] [--parsgd build/parsgd]
"""
import argparse
import os
import re
import statistics as st
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parsgd_run(parsgd, train, test, threads, extra, work):
    model = os.path.join(work, "m.bin")
    start = time.perf_counter()
    subprocess.run([parsgd, "train", "--train", train, "--model", "softmax", "--save", model,
                    "--threads", str(threads), "--quiet", *extra], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    out = subprocess.run([parsgd, "eval", model, test], check=True, capture_output=True, text=True).stdout
    return seconds, float(re.search(r"accuracy ([0-9.]+)%", out).group(1)) / 100


def fasttext_run(train, test, threads, ngrams):
    """(seconds, accuracy), or None where the run diverged (fastText stops with "Encountered
    NaN": its default step is too large for some orders of its racing threads)."""
    import fasttext
    start = time.perf_counter()
    try:
        model = fasttext.train_supervised(input=train, thread=threads, wordNgrams=ngrams, verbose=0)
    except RuntimeError as e:
        if "NaN" not in str(e):
            raise
        return None
    seconds = time.perf_counter() - start
    _, precision, _ = model.test(test)
    return seconds, precision


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "..", "build", "parsgd"))
    a = p.parse_args()
    import importlib.metadata
    version = importlib.metadata.version("fasttext")
    work = tempfile.mkdtemp(prefix="fasttext_peer.")
    runs = {
        "parsgd defaults (word pairs, 20 epochs)": lambda: parsgd_run(a.parsgd, a.train, a.test, a.threads, [], work),
        "parsgd --epochs 5": lambda: parsgd_run(a.parsgd, a.train, a.test, a.threads, ["--epochs", "5"], work),
        f"fastText {version} defaults (single words, 5 epochs)": lambda: fasttext_run(a.train, a.test, a.threads, 1),
        f"fastText {version} wordNgrams 2": lambda: fasttext_run(a.train, a.test, a.threads, 2),
    }
    results = {name: [] for name in runs}
    diverged = {name: 0 for name in runs}
    for r in range(a.repeats):
        for name, run in runs.items():
            result = run()
            if result is None:
                diverged[name] += 1
                print(f"round {r + 1}: {name}: diverged (Encountered NaN)", flush=True)
                continue
            results[name].append(result)
            print(f"round {r + 1}: {name}: {result[0]:.2f} s", flush=True)
    names = list(runs)
    print(f"\n{a.train}, {a.threads} threads, medians of {a.repeats} (of the runs that finished)")
    print("| trainer | file to model | test accuracy | runs diverged |")
    print("|---|---|---|---|")
    for name in names:
        if not results[name]:
            print(f"| {name} | | | {diverged[name]} of {a.repeats} |")
            continue
        seconds = st.median(s for s, _ in results[name])
        accuracy = st.median(acc for _, acc in results[name])
        print(f"| {name} | {seconds:.2f} s | {100 * accuracy:.2f}% | {diverged[name]} of {a.repeats} |")
    if results[names[0]] and results[names[2]]:
        ours = st.median(s for s, _ in results[names[0]])
        theirs = st.median(s for s, _ in results[names[2]])
        print(f"\nparsgd's defaults: {ours / theirs:.2f}x fastText's defaults' time")


if __name__ == "__main__":
    main()
