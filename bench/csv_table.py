#!/usr/bin/python3
"""Writes a CSV table for timing the streaming convert of CSV text: a header, a class name
(c0-c9, from a linear score of the numbers and the categories, with noise), 16 numeric columns
(3 decimals, 1 in 20 missing: NA), a colour of 8 values and a city of 2,000 values (categorical),
until the file holds BYTES bytes. The same arguments always write the same file.

usage: bench/csv_table.py BYTES OUT
"""
import random
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    target, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(11)
    colours = ["red", "orange", "yellow", "green", "blue", "indigo", "violet", "black"]
    cities = ["city%04d" % i for i in range(2000)]
    weights = [rng.uniform(-1, 1) for _ in range(16)]
    # A pool of formatted numbers to draw from (formatting each afresh is the slow part).
    numbers = [("%.3f" % (i / 1000.0), i / 1000.0) for i in range(-3000, 3001)]
    written = 0
    with open(path, "w") as out:
        header = "class," + ",".join("x%d" % j for j in range(16)) + ",colour,city\n"
        out.write(header)
        written += len(header)
        lines = []
        while written < target:
            fields, score = [], 0.0
            for j in range(16):
                if rng.random() < 0.05:
                    fields.append("NA")
                    continue
                text, value = numbers[rng.randrange(len(numbers))]
                fields.append(text)
                score += weights[j] * value
            colour = rng.randrange(8)
            city = rng.randrange(2000)
            score += colour * 0.3 + (city % 10) * 0.1 + rng.gauss(0, 0.5)
            label = min(9, max(0, int(score + 5)))
            line = "c%d,%s,%s,%s\n" % (label, ",".join(fields), colours[colour], cities[city])
            lines.append(line)
            written += len(line)
            if len(lines) == 10000:
                out.write("".join(lines))
                lines = []
        out.write("".join(lines))


if __name__ == "__main__":
    main()
