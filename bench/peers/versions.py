#!/usr/bin/env python3
"""Prints the version of every peer this Python can import, one `name version` per line; a peer
it lacks is printed as `name missing`. The peer scripts print the same lines at their start."""
import importlib.metadata as md
import platform

PEERS = ["torch", "snapml", "vowpalwabbit", "liblinear-official", "scikit-learn", "numpy", "scipy",
         "fasttext", "pandas"]


def versions():
    found = {"python": platform.python_version()}
    for name in PEERS:
        try:
            found[name] = md.version(name)
        except md.PackageNotFoundError:
            found[name] = "missing"
    return found


if __name__ == "__main__":
    for name, version in versions().items():
        print(name, version)
