#!/usr/bin/env python3
"""A raw-text multi-class set in fastText's format from the Debian archive's package index.

Each binary package of `apt-cache dumpavail` is a line '__label__SECTION words ...': its Debian
section (libs, python, doc, games, ... with any 'contrib/' or 'non-free/' area dropped) and its
one-line description, lower-cased, punctuation split from words as fastText's own examples
prepare text. Sections with fewer than --min-rows packages are left out. Lines are shuffled with
--seed and split 80/20 into OUT_PREFIX.train and OUT_PREFIX.test. The index depends on the apt
sources of the machine, so a figure measured on it names the machine's Debian release.

    /usr/bin/python3 bench/peers/make_fasttext_set.py OUT_PREFIX   # writes OUT_PREFIX.train, .test
"""
import argparse
import collections
import random
import re
import subprocess

TOKEN = re.compile(r"[a-z0-9_+#]+(?:[-.'][a-z0-9_+#]+)*|[^\sa-z0-9_+#]")


def packages():
    text = subprocess.run(["apt-cache", "dumpavail"], check=True, capture_output=True,
                          text=True).stdout
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line and not line[0].isspace() and ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if "Section" in fields and "Description" in fields:
            yield fields["Section"].split("/")[-1], fields["Description"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--min-rows", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = [(s, " ".join(TOKEN.findall(d.lower()))) for s, d in packages()]
    counts = collections.Counter(s for s, _ in rows)
    lines = [f"__label__{s} {d}\n" for s, d in rows if counts[s] >= args.min_rows and d]
    random.Random(args.seed).shuffle(lines)
    cut = len(lines) * 4 // 5
    with open(args.out + ".train", "w") as f:
        f.writelines(lines[:cut])
    with open(args.out + ".test", "w") as f:
        f.writelines(lines[cut:])
    classes = len({l.split()[0] for l in lines})
    print(f"{len(lines)} lines, {classes} classes: {cut} train, {len(lines) - cut} test")


if __name__ == "__main__":
    main()
