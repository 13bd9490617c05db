#!/usr/bin/env python3
"""The CSV reader's yardstick: the same rows as CSV and as LIBSVM text.

    make_csv_set.py OUT_PREFIX [ROWS]

writes OUT_PREFIX.csv (a header y,a,b,c,d, then ROWS rows: a 0/1 label and four Gaussian values
rounded to 4 decimals) and OUT_PREFIX.svm (the same rows, 1-based indices, zeros left out), with
Python's random seeded 3, so that `parsgd convert` of each compares the readers on equal rows.
"""
import random
import sys


def main():
    prefix = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 2000000
    rng = random.Random(3)
    with open(prefix + ".csv", "w") as csv, open(prefix + ".svm", "w") as svm:
        csv.write("y,a,b,c,d\n")
        for _ in range(rows):
            y = rng.randint(0, 1)
            v = [round(rng.gauss(0, 1), 4) for _ in range(4)]
            csv.write(f"{y},{v[0]},{v[1]},{v[2]},{v[3]}\n")
            svm.write(f"{y} " + " ".join(f"{j + 1}:{x}" for j, x in enumerate(v) if x != 0) + "\n")


if __name__ == "__main__":
    main()
