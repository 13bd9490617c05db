#!/usr/bin/python3
"""Interleaved, paired timing of `parsgd train` configurations (the method of bench/README.md).

Each round runs every configuration once, in turn; a run's rate is the median over its epochs of
samples/s (from --metrics). Per configuration it prints the median rate over rounds, the ratio to
the first configuration taken within each round (median, min-max), the median training seconds,
the test (or train) accuracy, and each epoch's median rate over rounds. A configuration is
LABEL:COMMAND, the word PARSGD in COMMAND standing for the binary (--parsgd, or $PARSGD).

usage: /usr/bin/python3 bench/paired.py ROUNDS 'a:PARSGD train ...' 'b:taskset -c 0 PARSGD ...'
"""
import json
import os
import shlex
import statistics as st
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    configs = [c.split(":", 1) for c in sys.argv[2:]]
    binary = os.environ.get("PARSGD", os.path.join(HERE, "..", "build", "parsgd"))
    rates = {label: [] for label, _ in configs}
    seconds = {label: [] for label, _ in configs}
    accuracy = {label: [] for label, _ in configs}
    for _ in range(rounds):
        for label, command in configs:
            with tempfile.NamedTemporaryFile(suffix=".jsonl") as m:
                cmd = shlex.split(command.replace("PARSGD", binary)) + ["--quiet", "--metrics", m.name]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                rows = [json.loads(line) for line in open(m.name)]
            rates[label].append([r["samples_per_second"] for r in rows])
            seconds[label].append(sum(r["train_seconds"] for r in rows))
            last = rows[-1]
            accuracy[label].append(last["test_accuracy"] if last.get("test_accuracy") is not None
                                   else last["train_accuracy"])
    first = configs[0][0]
    for label, _ in configs:
        ratios = [st.median(a) / st.median(b) for a, b in zip(rates[label], rates[first])]
        epochs = [st.median(run[e] for run in rates[label]) for e in range(len(rates[label][0]))]
        print(f"{label:12s} {st.median(st.median(r) for r in rates[label]) / 1e3:8.1f}k samples/s  "
              f"vs {first}: {st.median(ratios):.3f}x ({min(ratios):.3f}-{max(ratios):.3f})  "
              f"train {st.median(seconds[label]):.2f}s  acc {100 * st.median(accuracy[label]):.2f}%  "
              f"epochs {' '.join(f'{e / 1e3:.0f}k' for e in epochs)}")


if __name__ == "__main__":
    main()
