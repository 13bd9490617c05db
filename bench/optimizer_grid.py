#!/usr/bin/python3
"""Every optimiser under every sharing scheme at its defaults: does it train, and how well?

For each --optimizer in sgd, momentum, nesterov, adagrad, rmsprop, adam and each --scheme in
hogwild, sync, average (the --schemes list), runs `parsgd train --train TRAIN --test TEST
--optimizer O --scheme S --threads 2` with nothing else set but the extra flags given after `--`,
and prints a markdown table of the test accuracy (or "diverged: epoch N" / the error).

usage: /usr/bin/python3 bench/optimizer_grid.py TRAIN TEST [--parsgd build/parsgd]
                                                [--schemes hogwild,sync,average] [-- FLAGS...]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPTIMIZERS = ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"]


def run(binary, train, test, optimizer, scheme, extra):
    r = subprocess.run([binary, "train", "--train", train, "--test", test, "--optimizer", optimizer,
                        "--scheme", scheme, "--threads", "2", "--quiet", *extra],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return r.stdout.split("test accuracy ")[1].split(",")[0]
    message = r.stderr.strip().splitlines()[0] if r.stderr.strip() else f"exit {r.returncode}"
    if "diverged" in message:
        return "diverged: " + message.split("error: ")[-1].split(":")[0]
    return message


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("--parsgd", default=os.path.join(HERE, "..", "build", "parsgd"))
    p.add_argument("--schemes", default="hogwild,sync,average")
    a = p.parse_args(argv)
    schemes = a.schemes.split(",")
    print("| optimizer | " + " | ".join(schemes) + " |")
    print("|---|" + "---|" * len(schemes))
    for o in OPTIMIZERS:
        cells = [run(a.parsgd, a.train, a.test, o, s, extra) for s in schemes]
        print(f"| {o} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
