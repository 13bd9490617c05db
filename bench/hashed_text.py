#!/usr/bin/python3
"""Writes a fastText text file and a VW text file of the same words, for timing the streaming
convert of hashed text: lines of 30 words drawn from 50,000 with Zipf frequencies, 10 classes
(fastText's __label__cK; VW's +1 for classes 0-4, -1 for the rest), until the fastText file holds
BYTES bytes. The same arguments always write the same files.

usage: bench/hashed_text.py BYTES FASTTEXT_OUT VW_OUT
"""
import bisect
import itertools
import random
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    target, fasttext_path, vw_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    rng = random.Random(7)
    vocabulary = 50000
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(vocabulary)))
    total = cumulative[-1]
    # A long run of Zipf draws; each line is a window of it (fast, and still Zipf-distributed).
    pool = ["w%d" % bisect.bisect_left(cumulative, rng.random() * total) for _ in range(2000000)]
    written = 0
    line_number = 0
    with open(fasttext_path, "w") as fasttext, open(vw_path, "w") as vw:
        while written < target:
            start = rng.randrange(0, len(pool) - 40)
            words = " ".join(pool[start:start + 30])
            label = line_number % 10
            line = "__label__c%d %s\n" % (label, words)
            fasttext.write(line)
            written += len(line)
            vw.write("%d |t %s\n" % (1 if label < 5 else -1, words))
            line_number += 1


if __name__ == "__main__":
    main()
