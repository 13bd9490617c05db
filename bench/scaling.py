#!/usr/bin/python3
"""Thread scaling of parsgd's schemes, measured in pairs so that a shared machine's drift cancels.

For each repeat, every (scheme, threads) configuration trains the same data for a few epochs, one
after the other (never concurrently); the score of a run is its median epoch training time. The
table gives, per configuration, the median over repeats of samples/s, and the median over repeats
of the ratio to the 1-thread run of the same repeat and scheme.

Before each repeat the time a cache line takes between two cores is measured (bench_machine): on a
virtual machine it changes when the hypervisor moves the vCPUs, and Hogwild!'s scaling with it. Each
repeat's line on stderr gives that latency and the repeat's ratios.

usage: bench/scaling.py DATA [--threads 1,2] [--schemes hogwild,locked,...] [--repeats 5]
                        [--epochs 3] [--parsgd build/parsgd] [--train-flags "--model softmax"]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(parsgd, data, scheme, threads, epochs, extra):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as metrics:
        cmd = [parsgd, "train", "--train", data, "--scheme", scheme, "--threads", str(threads),
               "--epochs", str(epochs), "--metrics", metrics.name, "--quiet"] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        epochs = [json.loads(line) for line in open(metrics.name)]
    seconds = statistics.median(e["train_seconds"] for e in epochs)
    return epochs[0]["updates"] / seconds


def round_trip_ns(bench_machine):
    out = subprocess.run([bench_machine, "--benchmark_min_time=0.2"], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("BM_CoreToCoreRoundTrip"):
            return float(line.split()[1])
    return float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--schemes", default="hogwild,locked,striped,atomic")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--parsgd", default=os.path.join(os.path.dirname(__file__), "..", "build", "parsgd"))
    p.add_argument("--train-flags", default="", help="more flags for parsgd train")
    a = p.parse_args()
    a.extra = a.train_flags.split()
    threads = [int(t) for t in a.threads.split(",")]
    schemes = a.schemes.split(",")
    bench_machine = os.path.join(os.path.dirname(a.parsgd), "bench", "bench_machine")
    rates = {(s, t): [] for s in schemes for t in threads}
    ratios = {(s, t): [] for s in schemes for t in threads}
    latencies = []
    for r in range(a.repeats):
        latencies.append(round_trip_ns(bench_machine))
        for s in schemes:
            base = None
            for t in threads:
                rate = run(a.parsgd, a.data, s, t, a.epochs, a.extra)
                rates[(s, t)].append(rate)
                base = rate if t == threads[0] else base
                ratios[(s, t)].append(rate / base)
        summary = ", ".join(f"{s}@{t} {ratios[(s, t)][-1]:.2f}x" for s in schemes for t in threads[1:])
        print(f"repeat {r + 1}/{a.repeats}: core-to-core round trip {latencies[-1]:.0f} ns; {summary}",
              file=sys.stderr)
    print(f"core-to-core round trip before each repeat: {', '.join(f'{x:.0f}' for x in latencies)} ns")
    hog1 = statistics.median(rates[("hogwild", threads[0])]) if "hogwild" in schemes else None
    print(f"| scheme | threads | samples/s (median of {a.repeats}) | vs {threads[0]} thread(s), paired | vs hogwild at {threads[0]} |")
    print("|---|---|---|---|---|")
    for s in schemes:
        for t in threads:
            m = statistics.median(rates[(s, t)])
            q = statistics.median(ratios[(s, t)])
            h = f"{m / hog1:.2f}x" if hog1 else "-"
            print(f"| {s} | {t} | {m / 1e6:.2f} M | {q:.2f}x (range {min(ratios[(s, t)]):.2f}-{max(ratios[(s, t)]):.2f}) | {h} |")


if __name__ == "__main__":
    main()
