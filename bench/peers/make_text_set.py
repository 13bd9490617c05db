#!/usr/bin/env python3
"""A real bag-of-words binary set from the English manual pages installed on a Debian machine.

Documents: the pages of sections 1, 6 and 8 (commands, label -1) and of sections 2, 3, 4, 5 and 7
(programming interfaces, devices, file formats, conventions: +1) under /usr/share/man, troff
requests and escapes stripped, links and stubs left out, at most --per-class of each (a seeded
sample), tf-idf rows of unit L2 norm (scikit-learn's TfidfVectorizer defaults, words
of two or more letters, a word kept when it appears in at least --min-df documents). Written as
one-based LIBSVM, train and test split 80/20 with --seed. The set depends on the packages installed,
so a figure measured on it names the machine; the shape is close to small text benchmarks (a few
thousand rows, tens of thousands of features, ~100-200 nonzeros per row, many features seen in a
handful of rows, values well below 1).

    /usr/bin/python3 bench/peers/make_text_set.py OUT_PREFIX   # writes OUT_PREFIX.train, .test
"""
import argparse
import gzip
import os
import random
import re

import numpy as np
from sklearn.datasets import dump_svmlight_file
from sklearn.feature_extraction.text import TfidfVectorizer

ESCAPE = re.compile(r"\\(f[BIRP0-9]|f\(..|s[-+]?\d|\(..|\*.|.)")


def page_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        lines = [l for l in f if not l.startswith((".", "'"))]
    return ESCAPE.sub(" ", " ".join(lines))


def pages(sections, limit, rng):
    paths = []
    for section in sections:
        folder = f"/usr/share/man/man{section}"
        if os.path.isdir(folder):
            paths += sorted(os.path.join(folder, n) for n in os.listdir(folder))
    rng.shuffle(paths)
    texts = []
    for path in paths:
        if os.path.islink(path) or os.path.getsize(path) < 600:  # links and ".so" stubs
            continue
        text = page_text(path)
        if len(text.split()) >= 50:
            texts.append(text)
        if len(texts) == limit:
            break
    return texts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--per-class", type=int, default=2500)
    parser.add_argument("--min-df", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    a = parser.parse_args()
    rng = random.Random(a.seed)
    negative, positive = pages("168", a.per_class, rng), pages("23457", a.per_class, rng)
    docs = negative + positive
    y = np.array([-1] * len(negative) + [1] * len(positive))
    X = TfidfVectorizer(token_pattern=r"(?u)\b[a-zA-Z]{2,}\b", min_df=a.min_df,
                        dtype=np.float32).fit_transform(docs)
    order = list(range(len(docs)))
    rng.shuffle(order)
    cut = len(order) * 4 // 5
    for name, rows in (("train", order[:cut]), ("test", order[cut:])):
        dump_svmlight_file(X[rows], y[rows], f"{a.out}.{name}", zero_based=False)
    nnz = X.getnnz(axis=1)
    print(f"{len(docs)} rows ({len(positive)} interfaces and formats, {len(negative)} commands), "
          f"{X.shape[1]} features, {nnz.mean():.0f} nonzeros per row on average; "
          f"{cut} train, {len(docs) - cut} test")


if __name__ == "__main__":
    main()
