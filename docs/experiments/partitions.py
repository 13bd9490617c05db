#!/usr/bin/env python3
"""Experiment 5's table (docs/experiments.md): per configuration of a `parsgd compare` folder of
docs/experiments/run.sh 5, from its runs.jsonl, medians over repeats of
  - the seconds an epoch (training, every epoch of a run: its median),
  - the bytes one worker read that another wrote, per minibatch: for the partitions the metrics'
    exchanged_bytes (counted) over the epoch's minibatches (updates / batch); for the data-parallel
    schemes, from their definitions over P parameters and W workers (marked "formula"): sync
    (W - 1) P floats a step (each owner reads the others' gradients on its range), average
    2 (W - 1) P / (W K) a minibatch at period K (each combination: the owners read every replica's
    range and every replica reads back the others' means), hogwild (W - 1) / W P (each minibatch's
    snapshot of the shared model, the other workers' writes among it),
  - the pipeline's bubble (the share of its stages' time idle; (K-1)/(M+K-1) for equal stages),
  - the test accuracy and test loss after the last epoch,
  - the seconds of training to a target test loss: the best median final test loss of the folder
    plus 2%, and plus 20% (the first epoch at or below it; "-" where a run never gets there).

usage: /usr/bin/python3 docs/experiments/partitions.py FOLDER:HIDDEN...   (HIDDEN: 256,128)
"""
import json
import statistics as st
import sys


def median(values):
    values = [v for v in values if v is not None]
    return st.median(values) if values else None


def parameters(hidden, inputs=784, classes=10):
    sizes = [inputs] + hidden + [classes]
    return sum((sizes[l] + 1) * sizes[l + 1] for l in range(len(sizes) - 1))


def formula(scheme, p, workers, period):
    """Floats exchanged a minibatch by a data-parallel scheme (see the docstring)."""
    if scheme == "sync":
        return (workers - 1) * p
    if scheme == "average":
        return 2 * (workers - 1) * p / (workers * period)
    if scheme == "hogwild":
        return (workers - 1) / workers * p
    return None


def table(folder, hidden):
    p = parameters(hidden)
    runs = {}
    for line in open(f"{folder}/runs.jsonl"):
        r = json.loads(line)
        if "error" in r:
            continue
        runs.setdefault(r["label"], {}).setdefault(r["repeat"], []).append(r)
    final_loss = {label: median([epochs[-1]["test_loss"] for epochs in reps.values()])
                  for label, reps in runs.items()}
    targets = [min(final_loss.values()) * f for f in (1.02, 1.2)]
    print(f"\n{folder}: 784-{'-'.join(map(str, hidden))}-10, {p} parameters "
          f"(target test losses {targets[0]:.4f} and {targets[1]:.4f})\n")
    print("| configuration | s / epoch | bytes exchanged / minibatch | bubble | test accuracy | "
          f"test loss | s to {targets[0]:.4f} | s to {targets[1]:.4f} |")
    print("|---|---|---|---|---|---|---|---|")
    for label, reps in runs.items():
        seconds, exchanged, bubble, accuracy = [], [], [], []
        reached = [[], []]
        counted = True
        for epochs in reps.values():
            seconds.append(st.median(e["train_seconds"] for e in epochs))
            minibatches = epochs[0]["updates"] / epochs[0]["batch"]
            floats = formula(epochs[0]["scheme"], p, epochs[0]["workers"], 10)
            if floats is None:
                exchanged.append(st.median(e["exchanged_bytes"] for e in epochs) / minibatches)
            else:
                counted = False
                exchanged.append(4 * floats)
            bubble.append(median([e.get("bubble") for e in epochs]))
            accuracy.append(epochs[-1]["test_accuracy"])
            for target, times in zip(targets, reached):
                clock, to_target = 0.0, None
                for e in epochs:
                    clock += e["train_seconds"]
                    if to_target is None and e["test_loss"] <= target:
                        to_target = clock
                times.append(to_target)
        b = median(bubble)
        t = [median(x) if all(v is not None for v in x) else None for x in reached]
        how = "" if counted else " (formula)"
        print(f"| {label} | {median(seconds):.3f} | {median(exchanged) / 1024:.0f} KiB{how} | "
              f"{'-' if b is None else f'{b:.2f}'} | {100 * median(accuracy):.2f}% | "
              f"{final_loss[label]:.4f} | "
              + " | ".join("-" if x is None else f"{x:.2f}" for x in t) + " |")


for arg in sys.argv[1:]:
    folder, hidden = arg.rsplit(":", 1)
    table(folder, [int(h) for h in hidden.split(",")])
